/**
 * What `npm run admin` works with: the server's own store, cache and session rules, from the same
 * settings, plus a line to the running servers' presence so kicks reach every process.
 */
import { createColyseusPresence } from "../adapters/cache/colyseus-redis";
import { createCache } from "../adapters/cache/create-cache";
import { createUserStore } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import { SESSION_CHANGED_TOPIC, userChangedMessage } from "../core/session-events";
import type { Logger } from "../logging/logger";
import { platformDefinitions } from "../platforms/registry";
import { AccountService } from "../services/account-service";
import { AdminService } from "../services/admin-service";
import { createAnalyticsStore } from "../adapters/store/create-analytics-store";
import { buildUserExport } from "../services/user-export";
import { exportSupportMessages } from "./admin-support";
import { openAdminEconomy, type AdminEconomy } from "./admin-economy";
import { exportLeaderboards, exportLiveOps } from "./leaderboard-export";
import { createRewardStores, type RewardStores } from "../adapters/store/create-reward-stores";
import { RateLimiter } from "../services/rate-limiter";
import { SessionService } from "../services/session-service";
import { TokenSigner } from "../services/token-signer";
import type { SubscribeMessageService } from "../services/social/subscribe-message-service";
import { announceUserChanges } from "../services/user-changes";
import { openSubscribeMessages } from "./admin-notify";
import { openAdminPayments } from "./admin-payments";
import { openAdminPlatforms } from "./admin-platforms";
import type { PaymentServices } from "../server/payment-wiring";
import type { ErasureMarks } from "../core/ports/erasure-marks";
import { LEANCLOUD_NAMESPACE } from "../services/migration/player-importer";
import { buildSaves } from "../server/save-wiring";
import type { SaveService } from "../services/saves/save-service";

export interface AdminContext {
  admin: AdminService;
  /** `notify`: subscribe messages through the servers' token cache. */
  subscribeMessages: SubscribeMessageService;
  /** `orders`, `refund`, `grant`: the payment services, opened on first use. */
  payments(): Promise<PaymentServices>;
  /** Registers what else `erase` removes (the economy's store). */
  onErase(erase: (userId: string) => Promise<void>): void;
  /** Where `erase` marks the user first (the economy store's erase marks: core/ports/erasure-marks.ts). */
  trackErasesIn(marks: ErasureMarks): void;
  /** `catalog`, economy grants, export and erase: the economy's store and services, opened on first use. */
  economy(): Promise<AdminEconomy>;
  /** `saves`, export and erase: the cloud saves, opened on first use. */
  saves(): Promise<SaveService>;
  /** False with the in-memory cache: sessions then live inside the server process, out of reach. */
  reachesServers: boolean;
  /** Waits for session-change announcements to be sent, then closes every connection. */
  close(): Promise<void>;
}

export async function openAdminContext(config: AppConfig, logger: Logger, audit: Logger): Promise<AdminContext> {
  const rawStore = await createUserStore(config.store);
  const cache = await createCache(config.cache, config.cacheKeyPrefix, logger).catch(async (err: unknown) => {
    await rawStore.close();
    throw err;
  });
  const signer = new TokenSigner({
    secret: config.jwt.secret,
    previousSecrets: config.jwt.previousSecrets,
    accessTtlSec: config.jwt.accessTtlSec,
    refreshTtlSec: config.jwt.refreshTtlSec,
  });
  // The servers' rooms learn of ended sessions, and their user caches of changed users, on the
  // Colyseus presence channel (Redis).
  const presence = config.cache.kind === "memory" ? undefined : createColyseusPresence(config.cache, config.cacheKeyPrefix);
  const announcements: Promise<unknown>[] = [];
  const tellServers = (userId: string, message: unknown) => {
    if (!presence) return;
    announcements.push(
      presence.publish(SESSION_CHANGED_TOPIC, message).catch((err: unknown) => logger.error({ err, userId }, "could not tell the servers")),
    );
  };
  const store = announceUserChanges(rawStore, (userId) => tellServers(userId, userChangedMessage(userId)));
  const sessions = new SessionService(signer, cache, store, { refreshGraceSec: config.refreshGraceSec, apps: config.apps.map((a) => a.key) });
  sessions.onSessionChange((userId) => tellServers(userId, userId));
  const limiter = new RateLimiter(cache, config.rateLimit.enabled);
  const accounts = new AccountService(store, sessions, limiter, logger, {
    recentLoginSec: config.recentLoginSec,
    accountMax: config.rateLimit.accountMax,
    accountWindowSec: config.rateLimit.accountWindowSec,
  });


  let payments: Promise<PaymentServices> | undefined;
  const onErase = (erase: (userId: string) => Promise<void>) => accounts.onErase(erase);
  const platforms = openAdminPlatforms(config, cache, logger);
  const openPayments = () => (payments ??= openAdminPayments(platforms, store, logger));
  let economy: Promise<AdminEconomy> | undefined;
  const openEconomy = () => (economy ??= openAdminEconomy(config, logger));
  let rewards: Promise<RewardStores> | undefined;
  const openRewards = () => (rewards ??= createRewardStores(config.store));
  let saves: ReturnType<typeof buildSaves> | undefined;
  const openSaves = async () => (await (saves ??= buildSaves(config))).saves;
  let analytics: ReturnType<typeof createAnalyticsStore> | undefined;
  const userExport = buildUserExport({
    store,
    sessions,
    ledger: async () => (await openPayments()).ledger,
    economy: async () => (await openEconomy()).store,
    leaderboardRecords: (id) => exportLeaderboards(config, id),
    rewards: openRewards,
    saves: openSaves,
    supportMessages: (userId) => exportSupportMessages(config, userId),
    liveops: (id) => exportLiveOps(config, id),
    analytics: () => (analytics ??= createAnalyticsStore(config.store)),
  });
  return {
    admin: new AdminService(store, sessions, accounts, [...platformDefinitions.map((p) => p.name), LEANCLOUD_NAMESPACE], audit, userExport),
    subscribeMessages: openSubscribeMessages(platforms, store, logger),
    payments: openPayments,
    economy: openEconomy,
    saves: openSaves,
    onErase,
    trackErasesIn: (marks) => accounts.trackErasesIn(marks),
    reachesServers: presence !== undefined,
    close: async () => {
      await (await payments?.catch(() => undefined))?.close();
      await (await economy?.catch(() => undefined))?.close();
      await (await rewards?.catch(() => undefined))?.close();
      await (await saves?.catch(() => undefined))?.close();
      await (await analytics?.catch(() => undefined))?.close();
      await Promise.all(announcements);
      presence?.shutdown();
      await cache.close();
      await store.close();
    },
  };
}

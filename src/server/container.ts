/**
 * The composition root: turns validated config into wired services. The only module that knows
 * every adapter; services and edges receive what they need from here.
 */
import fs from "node:fs";
import { createCache } from "../adapters/cache/create-cache";
import { createUserStore } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import type { Logger } from "../logging/logger";
import { Metrics } from "../observability/metrics";
import type { PlatformSettings } from "../platforms/platform";
import { platformDefinitions } from "../platforms/registry";
import { EraseSweep } from "../services/erase-sweep";
import { AccountService } from "../services/account-service";
import { LoginService } from "../services/login-service";
import { ModerationService } from "../services/moderation-service";
import { MuteService } from "../services/mute-service";
import { RateLimiter } from "../services/rate-limiter";
import { PlatformTokenService } from "../services/platform-token-service";
import { PlayerDataService } from "../services/player-data-service";
import { SessionKeyCustody } from "../services/session-key-custody";
import { AppIdentities } from "../services/app-identity";
import { RecentUsers } from "../services/recent-users";
import { SessionService } from "../services/session-service";
import { announceUserChanges, UserChangeFeed } from "../services/user-changes";
import { buildDouyinLive } from "./douyin-live-wiring";
import { TokenSigner } from "../services/token-signer";
import { parseWordListFile, WordList } from "../services/word-list";
import { buildSocialServices } from "./social-wiring";
import { buildPlatformClients, platformTokenOptions } from "./platform-wiring";
import { defaultSimulatorApps, simulatorBaseUrl, startSimulator, type RunningSimulator } from "../simulator/simulator-server";
import { buildPaymentServices } from "./payment-wiring";
import { buildLiveOps, experimentSource } from "./liveops-wiring";
import { buildEconomyServices, deliverThroughEconomy } from "./economy-wiring";
import { buildLeaderboards } from "./leaderboard-wiring";
import { buildRewardServices, catalogRewards } from "./reward-wiring";
import { buildSaves } from "./save-wiring";
import { buildAnalytics, eraseMarkedEvents } from "./analytics-wiring";
import { recordingGrants } from "../services/analytics/server-facts";
import { buildDouyinFeed, buildGrowthServices, buildRiskChecks } from "./growth-wiring";
import { buildSupportDesk } from "./support-wiring";

import type { HoldTimer, Services } from "../services/services";
export type { HoldTimer, Services };

export interface ServiceOverrides {
  now?: () => number;
  /** Delay between platform "busy" retries; tests shorten it. */
  retryDelayMs?: (attempt: number) => number;
  /** The timer rooms hold dropped players' seats with; tests pass a controllable clock. */
  roomHoldTimer?: HoldTimer;
}

export async function buildServices(config: AppConfig, logger: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const enabled = platformDefinitions.filter((d) => d.name in config.platforms);
    let simulator: RunningSimulator | undefined;
    let apps = config.apps;
    if (config.simulator === "embedded") {
      // The embedded simulator serves every registered platform and accepts whatever app credentials are
      // configured: the default app's in place of its own, and every other app's beside them.
      const others = config.apps.slice(1).flatMap((app) => Object.entries(app.platforms).map(([platform, s]) => ({ platform, appId: s.appId, appSecret: s.appSecret })));
      const simulated = [...defaultSimulatorApps().map((app) => ({ ...app, ...pick(config.platforms[app.platform]) })), ...others];
      simulator = await startSimulator({ host: "127.0.0.1", port: 0, apps: simulated });
      cleanups.push(() => simulator!.close());
      const url = simulator.url;
      apps = apps.map((app) => ({ ...app, platforms: pointAt(url, app.platforms) }));
    }

    const now = overrides.now;
    const storeSetting = config.store.kind === "sqlite" ? "SQLITE_PATH" : "DATABASE_URL";
    const rawStore = await opening("the user store", storeSetting, () => createUserStore(config.store, now ? { now: () => new Date(now()) } : {}));
    cleanups.push(() => rawStore.close());
    const recentUsers = new RecentUsers({ ...config.userCache, now: overrides.now });
    const userChanges = new UserChangeFeed();
    userChanges.on((userId) => recentUsers.forget(userId));
    const store = announceUserChanges(rawStore, userChanges.announce);
    const cache = await opening("the Redis cache", "REDIS_URL", () => createCache(config.cache, config.cacheKeyPrefix, logger));
    cleanups.push(() => cache.close());

    const signer = new TokenSigner({
      secret: config.jwt.secret,
      previousSecrets: config.jwt.previousSecrets,
      accessTtlSec: config.jwt.accessTtlSec,
      refreshTtlSec: config.jwt.refreshTtlSec,
      now: overrides.now,
    });
    const appKeys = config.apps.map((a) => a.key);
    const sessions = new SessionService(signer, cache, store, { refreshGraceSec: config.refreshGraceSec, recentUsers, apps: appKeys });
    const sessionKeys = new SessionKeyCustody(cache, config.jwt.refreshTtlSec);

    const words = await opening("the content-check word list", "CONTENT_CHECK_WORDS_FILE", () => readWordList(config.contentCheck));
    const metrics = new Metrics();
    const analytics = await opening("the analytics store", storeSetting, () => buildAnalytics({ config, users: store, logger, metrics, now: overrides.now }));
    cleanups.push(() => analytics.close());
    analytics.start();
    // One client per app and platform: each carries its own credentials, nothing is switched per call.
    const { platformApps, socialClients } = buildPlatformClients(config, apps, logger, { metrics, retryDelayMs: overrides.retryDelayMs });

    const login = new LoginService(platformApps, store, sessions, sessionKeys, logger, {
      exposeSessionKey: config.exposeSessionKey,
      placeholderEmailDomain: config.placeholderEmailDomain,
      now: overrides.now,
      metrics,
      recentUsers,
      linkAppsByUnionid: config.linkAppsByUnionid,
      analytics: analytics.writer,
    });
    const limiter = new RateLimiter(cache, config.rateLimit.enabled);
    const platformTokens = new PlatformTokenService(platformApps, cache, logger, { ...platformTokenOptions(config), now: overrides.now, metrics });
    const playerData = new PlayerDataService(platformApps, sessionKeys, platformTokens);
    const contentCheck = config.contentCheck;
    const moderation = new ModerationService(platformApps, store, sessionKeys, platformTokens, words, logger, {
      enabled: contentCheck.enabled,
      fallback: contentCheck.fallback,
      cacheTtlSec: contentCheck.cacheTtlSec,
      cacheEntries: contentCheck.cacheEntries,
      now: overrides.now,
      metrics,
    });
    const social = buildSocialServices({
      clients: socialClients,
      platformApps,
      store,
      custody: sessionKeys,
      tokens: platformTokens,
      logger,
      settings: config.subscribeMessages,
      metrics,
      now: overrides.now,
    });
    const economy = await buildEconomyServices(config, logger, metrics, overrides.now);
    cleanups.push(() => economy.close());
    await economy.start();
    const payments = await buildPaymentServices({
      config, apps, platformApps, store, custody: sessionKeys, tokens: platformTokens, logger, metrics, sharedCache: cache, now: overrides.now,
      refuseItemPurchase: economy.refuseItemPurchase, analytics: analytics.writer,
    });
    cleanups.push(() => payments.close());
    deliverThroughEconomy(payments, economy, platformApps, logger);
    const risk = buildRiskChecks({ config, apps, platformApps, store, custody: sessionKeys, cache, tokens: platformTokens, logger }, economy.rewards);
    const rewardSources = await buildRewardServices({
      config, apps, platformApps, store, custody: sessionKeys, tokens: platformTokens, rewards: risk.rewards, ledger: economy.store, catalog: catalogRewards(economy.catalogs), logger, now: overrides.now,
    });
    cleanups.push(() => rewardSources.close());
    const growth = buildGrowthServices({ config, apps, platformApps, store, custody: sessionKeys, cache, tokens: platformTokens, rewards: risk.rewards, riskRanks: risk.riskRanks, decrypter: playerData, catalogs: economy.catalogs, logger, now: overrides.now });
    const support = await buildSupportDesk({ config, apps, platformApps, store, custody: sessionKeys, tokens: platformTokens, logger, now: overrides.now });
    cleanups.push(() => support.close());
    const boards = await buildLeaderboards({
      config, users: store, cache, logger, granter: economy.rewards, now: overrides.now,
      notifyReward: async (notice) => void (await rewardSources.mail.notice({ ...notice, sender: "leaderboard" })),
    });
    cleanups.push(() => boards.close());
    const liveops = await buildLiveOps(config, { users: store, orders: payments.ledger, platformApps, economy, rewardSources, leaderboards: boards.leaderboards, logger, now: overrides.now });
    cleanups.push(() => liveops.close());
    analytics.joinLiveOps(experimentSource(liveops.liveops, liveops.store, appKeys), (app, userId, at) => liveops.liveops.stampOf(app, userId, at));
    const saves = await opening("the cloud saves' store", storeSetting, () => buildSaves(config, overrides.now));
    cleanups.push(() => saves.close());
    const douyinLive = await buildDouyinLive({ config, apps, cache, tokens: platformTokens, logger, metrics, simulatorUrl: simulator?.url, now: overrides.now });
    if (douyinLive) cleanups.push(() => douyinLive.close());
    const accounts = new AccountService(
      store,
      sessions,
      limiter,
      logger,
      {
        recentLoginSec: config.recentLoginSec,
        accountMax: config.rateLimit.accountMax,
        accountWindowSec: config.rateLimit.accountWindowSec,
        now: overrides.now,
      },
      moderation,
    );

    // Every store that keeps something of a player forgets it with the account (DELETE /api/users/me, console, admin erase).
    accounts.onErase((userId) => economy.store.erase(userId));
    accounts.onErase((userId) => rewardSources.stores.eraseUser(userId));
    accounts.onErase((userId) => boards.leaderboards.eraseUser(userId));
    accounts.onErase(async (userId) => {
      analytics.writer.forget(userId);
      await analytics.store.eraseUser(userId);
    });
    economy.shop.reportTo(analytics.writer);
    economy.rewards.onReward(recordingGrants(analytics.writer));
    boards.leaderboards.reportTo(analytics.writer);
    rewardSources.ads.reportTo(analytics.writer);
    // Marked first, so writes of requests in flight cannot outlive it; the sweep finishes any erase a crash stopped.
    accounts.trackErasesIn(economy.store.erasures);
    analytics.writer.fenceWith((userIds) => eraseMarkedEvents(analytics.store, economy.store.erasures, userIds));
    const eraseSweep = new EraseSweep(economy.store.erasures, accounts, logger, { now: overrides.now });
    eraseSweep.start();
    cleanups.push(() => eraseSweep.stop());
    accounts.onErase((userId) => saves.saves.erase(userId));
    accounts.onErase(async (userId) => void (await support.eraseUser(userId)));
    accounts.onErase(async (userId) => void (await liveops.store.eraseUser(userId)));

    return {
      config,
      logger,
      store,
      cache,
      recentUsers,
      userChanges,
      sessions,
      login,
      accounts,
      limiter,
      platformTokens,
      playerData,
      moderation,
      mutes: new MuteService(store, cache, overrides.now),
      platformDefinitions: enabled,
      platformApps,
      appIdentities: new AppIdentities(platformApps, store, sessionKeys, enabled.map((p) => p.name)),
      playerStorage: social.playerStorage,
      subscribeMessages: social.subscribeMessages,
      payments,
      economy,
      rewardSources,
      growth: { ...growth, douyinFeed: buildDouyinFeed({ config, platformApps, store, saves: saves.saves, analytics: analytics.writer, now: overrides.now }) },
      support,
      liveops: liveops.liveops,
      metrics,
      leaderboards: boards.leaderboards,
      saves: saves.saves,
      analytics,
      douyinLive,
      simulator,
      close: () => runAll(cleanups.reverse()),
    };
  } catch (err) {
    await runAll(cleanups.reverse());
    throw err;
  }
}

/** A boot failure an operator can act on: which setting leads to the service that failed. */
export class StartupError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "StartupError";
  }
}

async function opening<T>(what: string, setting: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown; errors?: Array<{ message?: unknown }> };
    // Node reports a refused dual-stack connect as an AggregateError with an empty message.
    const reason = [e.code, e.message || e.errors?.map((x) => x.message).join("; ")].filter(Boolean).join(" ") || String(err);
    throw new StartupError(`could not open ${what} (${setting}): ${reason}`, err);
  }
}

/** CONTENT_CHECK_WORDS plus the entries of CONTENT_CHECK_WORDS_FILE (read once, at boot). */
async function readWordList(settings: AppConfig["contentCheck"]): Promise<WordList> {
  const fromFile = settings.wordsFile ? parseWordListFile(await fs.promises.readFile(settings.wordsFile, "utf8")) : [];
  return new WordList([...settings.words, ...fromFile]);
}

function pick(settings: PlatformSettings | undefined): { appId?: string; appSecret?: string } {
  return settings ? { appId: settings.appId, appSecret: settings.appSecret } : {};
}

/** Each platform's API inside the simulator (its real paths, under a prefix where they collide). */
function pointAt(simulatorUrl: string, platforms: Record<string, PlatformSettings>): Record<string, PlatformSettings> {
  return Object.fromEntries(Object.entries(platforms).map(([name, s]) => [name, { ...s, apiBaseUrl: simulatorBaseUrl(simulatorUrl, name) }]));
}

async function runAll(steps: Array<() => Promise<void>>): Promise<void> {
  for (const step of steps) await step().catch(() => undefined);
}

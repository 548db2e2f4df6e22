/**
 * The reward sources' part of the composition root (container.ts): their stores on the configured
 * database, the ad, gift, gift-code and mail services over the economy's RewardGranter and catalog,
 * and each app's callback keys per platform (the settings', else the simulator's when it is embedded).
 */
import { createRewardStores } from "../adapters/store/create-reward-stores";
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import type { AppRewardKeys, RewardCrashPoint } from "../config/settings/rewards";
import { DEFAULT_APP } from "../core/apps";
import type { EconomyStore } from "../core/ports/economy-store";
import type { RewardGranter } from "../core/ports/reward-grants";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { RewardApp } from "../api/reward-push-routes";
import { AdRewards, type PlayerLookup } from "../services/rewards/ad-rewards";
import { redeemDouyinGiftCode } from "../platforms/douyin/douyin-gift-code";
import { grantResult } from "../services/economy/reward-granter";
import { GiftCodes, type GiftCodeRedeemer } from "../services/rewards/gift-codes";
import { GiftRewards } from "../services/rewards/gift-rewards";
import { MailService } from "../services/rewards/mail-service";
import type { RewardCatalog } from "../services/rewards/reward-catalog";
import type { PlatformApps } from "../services/platform-apps";
import type { CatalogService } from "../services/economy/catalog-service";
import type { SessionKeyCustody } from "../services/session-key-custody";
import { StoredPlayerOpenids } from "../services/social/player-openids";
import type { AppTokens } from "../services/social/social-ports";
import { simulatorRewardKeys } from "../simulator/rewards/reward-keys";

import type { RewardServices } from "../services/service-groups";
export type { RewardServices };

export interface RewardWiringInput {
  config: AppConfig;
  apps: readonly AppSettings[];
  platformApps: PlatformApps;
  store: Pick<UserStore, "findByIdentity" | "findById" | "listIdentities">;
  custody: Pick<SessionKeyCustody, "read">;
  tokens: AppTokens;
  rewards: RewardGranter;
  /** The economy's ledger: a gift code already granted is answered from its entry. */
  ledger: Pick<EconomyStore, "findBySource">;
  catalog: RewardCatalog;
  logger: Logger;
  now?: () => number;
}

export async function buildRewardServices(input: RewardWiringInput): Promise<RewardServices> {
  const { config, platformApps, logger } = input;
  const stores = await createRewardStores(config.store);
  const userIdFor: PlayerLookup = async (platform, app, openid) => {
    const found = platformApps.find(platform, app);
    const user = found ? await input.store.findByIdentity({ platform: platformApps.namespaceOf(found), platformId: openid }) : null;
    return user?.id;
  };
  const crash = crashPointFor(config.rewards.crashPoint);
  const common = { rewards: input.rewards, catalog: input.catalog, userIdFor, logger };
  const ads = new AdRewards({ ...common, views: stores, dayOffsetHours: config.rewards.dayOffsetHours, now: input.now, crashPoint: crash });
  const gifts = new GiftRewards({ ...common, crashPoint: crash });
  const giftCodes = new GiftCodes({
    gifts,
    redeemer: douyinRedeemer(input),
    openidOf: (app, userId) => new StoredPlayerOpenids(input.store, input.custody, (p, a) => namespaceOf(platformApps, p, a)).openidOf("douyin", app, userId),
    recorded: async (app, code) => {
      const entry = await input.ledger.findBySource(app, "gift_code", code);
      return entry ? { userId: entry.userId, giftId: entry.note?.startsWith("gift ") ? entry.note.slice(5) : null, result: grantResult(entry) } : undefined;
    },
    logger,
  });
  const mail = new MailService({ store: stores, rewards: input.rewards, defaultExpiryDays: config.rewards.mailDefaultExpiryDays, now: input.now, crashPoint: crash });
  const embedded = config.simulator === "embedded";

  const perPlatform = new Map<string, RewardApp[]>();
  for (const platform of ["wechat", "douyin"]) {
    const list: RewardApp[] = [];
    for (const app of input.apps) {
      const settings = app.platforms[platform];
      if (!settings || !platformApps.find(platform, app.key)) continue;
      const given = app.key === DEFAULT_APP ? defaultKeys(config, platform) : (app.payments?.[platform] ?? {});
      const keys: AppRewardKeys = embedded ? { ...simulatorRewardKeys(platform, settings.appId), ...defined(given) } : given;
      const ad = platform === "wechat" && keys.adToken && keys.adAesKey ? { token: keys.adToken, encodingAesKey: keys.adAesKey } : undefined;
      const giftPush = keys.giftPushToken ? { token: keys.giftPushToken, encodingAesKey: platform === "wechat" ? keys.giftPushAesKey : undefined } : undefined;
      if (platform === "wechat" && giftPush && !giftPush.encodingAesKey) {
        // Production refuses to start so (production-rules.ts); elsewhere say why every gift push will be refused.
        logger.warn({ event: "gift_push_unauthenticated", app: app.key }, "WeChat gift pushes have a Token but no EncodingAESKey: each is refused (plain_mode) until it is set");
      }
      list.push({ app: app.key, appId: settings.appId, ad, giftPush });
    }
    perPlatform.set(platform, list);
  }

  return {
    stores,
    ads,
    gifts,
    giftCodes,
    mail,
    rewardApps: (platform) => perPlatform.get(platform) ?? [],
    close: () => stores.close(),
  };
}

/** Douyin's gift-code redemption for each app on Douyin, with the app's self-healing token. */
function douyinRedeemer(input: RewardWiringInput): GiftCodeRedeemer {
  const { config, logger } = input;
  const hosts = new Map<string, string>();
  for (const app of input.apps) {
    const settings = app.platforms.douyin;
    if (settings && input.platformApps.find("douyin", app.key)) hosts.set(app.key, settings.apiBaseUrl);
  }
  return {
    serves: (app) => hosts.has(app),
    redeem: (app, call) => {
      const http = { settings: { appId: "", appSecret: "", apiBaseUrl: hosts.get(app)!, extra: {} }, timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger };
      return input.tokens.withPlatformToken("douyin", app, (accessToken) => redeemDouyinGiftCode(http, { ...call, accessToken }));
    },
  };
}

function namespaceOf(platformApps: PlatformApps, platform: string, app: string): string | undefined {
  const entry = platformApps.find(platform, app);
  return entry && platformApps.namespaceOf(entry);
}

/** The reward sources' view of the live catalogs (every process follows an operator's new version). */
export function catalogRewards(catalogs: Pick<CatalogService, "get">): RewardCatalog {
  return {
    adUnit: async (app, adUnitId) => catalogs.get(app).catalog.ads.find((a) => a.adUnitId === adUnitId),
    giftPack: async (app, giftId) => catalogs.get(app).catalog.giftPacks.find((g) => g.giftId === giftId),
  };
}

/**
 * The default app's keys: the reward settings, the WeChat gift push falling back to the payment
 * push's Token and EncodingAESKey together. A payment push in plain mode lends nothing: gift pushes
 * are read in safe mode only, and its Token alone would only route them to a refusal.
 */
function defaultKeys(config: AppConfig, platform: string): AppRewardKeys {
  const set = config.rewards.defaultApp[platform] ?? {};
  const pay = config.payments.defaultApp[platform];
  if (platform !== "wechat" || set.giftPushToken || !pay?.pushToken || !pay.pushAesKey) return set;
  return { ...set, giftPushToken: pay.pushToken, giftPushAesKey: pay.pushAesKey };
}

function defined(keys: AppRewardKeys): AppRewardKeys {
  return Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined)) as AppRewardKeys;
}

/** Test-only: kills the process at the configured step (SIGKILL: nothing is flushed or closed). */
function crashPointFor(point: RewardCrashPoint | undefined): ((step: RewardCrashPoint) => void) | undefined {
  if (!point) return undefined;
  return (step) => {
    if (step === point) process.kill(process.pid, "SIGKILL");
  };
}

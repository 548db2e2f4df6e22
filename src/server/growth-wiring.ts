/**
 * The growth surfaces' part of the composition root (container.ts): the once-per-day rewards over the
 * economy's RewardGranter and live catalogs, in the studio's time zone, and the sidebar revisit for
 * the apps on Douyin, its feed direct play over the players' saves (docs/growth.md).
 */
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import type { Cache } from "../core/ports/cache";
import { createActivityId, getUserRiskRank, setUpdatableMsg } from "../platforms/wechat/wechat-growth";
import { ShareMessages } from "../services/growth/share-messages";
import type { PlatformClientDeps } from "../platforms/platform";
import { RiskRanks, riskCheckedGranter } from "../services/growth/risk-rank";
import type { AppTokens } from "../services/social/social-ports";
import type { RewardGranter } from "../core/ports/reward-grants";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { CatalogService } from "../services/economy/catalog-service";
import { DailyGrowthRewards, type GrowthRewardCatalog } from "../services/growth/daily-rewards";
import { SidebarRewards } from "../services/growth/sidebar-reward";
import { WechatOpenData, type OpenDataDecrypter } from "../services/growth/wechat-open-data";
import type { PlatformApps } from "../services/platform-apps";
import type { SessionKeyCustody } from "../services/session-key-custody";
import { StoredPlayerOpenids } from "../services/social/player-openids";
import { DouyinFeed, savedFeedScenes, type FeedSceneSource } from "../services/growth/douyin-feed";
import type { SaveService } from "../services/saves/save-service";
import type { AnalyticsRecorder } from "../core/ports/analytics-store";

import type { GrowthServices } from "../services/service-groups";
export type { GrowthServices };

export interface RiskWiringInput {
  config: AppConfig;
  apps: readonly AppSettings[];
  platformApps: PlatformApps;
  store: Pick<UserStore, "findById" | "listIdentities">;
  custody: Pick<SessionKeyCustody, "read">;
  cache: Cache;
  tokens: AppTokens;
  logger: Logger;
}

/**
 * The risk check and the granter every reward source is given: the economy's, with WeChat's risk rank
 * asked before the sources RISK_RANK_CHECKS lists. Built before the reward sources, which take the granter.
 */
export function buildRiskChecks(input: RiskWiringInput, rewards: RewardGranter): { riskRanks: RiskRanks; rewards: RewardGranter } {
  const { config, platformApps, logger } = input;
  const openids = new StoredPlayerOpenids(input.store, input.custody, (platform, app) => {
    const entry = platformApps.find(platform, app);
    return entry && platformApps.namespaceOf(entry);
  });
  const httpOf = wechatHttp(input);
  const riskRanks = new RiskRanks({
    cache: input.cache,
    settings: config.growth.riskRank,
    openidOf: (app, userId) => (platformApps.find("wechat", app) ? openids.openidOf("wechat", app, userId) : Promise.resolve("")),
    askWechat: (app, openid, clientIp) => {
      return input.tokens.withPlatformToken("wechat", app, (accessToken) => getUserRiskRank(httpOf(app), { accessToken, openid, clientIp, scene: config.growth.riskRank.scene }));
    },
    logger,
  });
  return { riskRanks, rewards: config.growth.riskRank.checks.length > 0 ? riskCheckedGranter(rewards, riskRanks) : rewards };
}

/** Each WeChat app's HTTP settings for the growth calls. */
function wechatHttp(input: Pick<RiskWiringInput, "apps" | "config" | "logger">): (app: string) => PlatformClientDeps {
  const settingsOf = new Map(input.apps.flatMap((app) => (app.platforms.wechat ? [[app.key, app.platforms.wechat] as const] : [])));
  return (app) => ({ settings: settingsOf.get(app)!, timeoutMs: input.config.platformTimeoutMs, busyRetries: input.config.platformBusyRetries, logger: input.logger });
}

export interface GrowthWiringInput extends RiskWiringInput {
  config: AppConfig;
  platformApps: PlatformApps;
  store: Pick<UserStore, "findById" | "listIdentities">;
  custody: Pick<SessionKeyCustody, "read">;
  /** The risk-checked granter (buildRiskChecks). */
  rewards: RewardGranter;
  riskRanks: RiskRanks;
  /** The player-data service: decrypts with the kept session key, checks the watermark. */
  decrypter: OpenDataDecrypter;
  catalogs: Pick<CatalogService, "get">;
  logger: Logger;
  now?: () => number;
}

export function buildGrowthServices(input: GrowthWiringInput): Omit<GrowthServices, "douyinFeed"> {
  const { config, platformApps } = input;
  const daily = new DailyGrowthRewards({ rewards: input.rewards, catalog: growthCatalog(input.catalogs), timeZone: config.growth.timeZone, now: input.now });
  const namespaceOf = (platform: string, app: string) => {
    const entry = platformApps.find(platform, app);
    return entry && platformApps.namespaceOf(entry);
  };
  const openids = new StoredPlayerOpenids(input.store, input.custody, namespaceOf);
  const sidebar = new SidebarRewards({
    daily,
    onDouyin: (app) => platformApps.find("douyin", app) !== undefined,
    openidOf: (app, userId) => openids.openidOf("douyin", app, userId),
  });
  const catalog = growthCatalog(input.catalogs);
  const wechatOpenData = new WechatOpenData({
    decrypter: input.decrypter,
    daily,
    rewardsGameClub: async (app) => (await catalog.growthReward(app, "game_club")) !== undefined,
    now: input.now,
  });
  const httpOf = wechatHttp(input);
  const shares = new ShareMessages({
    cache: input.cache,
    openidOf: (app, userId) => (platformApps.find("wechat", app) ? openids.openidOf("wechat", app, userId) : Promise.resolve("")),
    createActivityId: (app, openid) => input.tokens.withPlatformToken("wechat", app, (accessToken) => createActivityId(httpOf(app), { accessToken, openid })),
    update: (app, activityId, update) => input.tokens.withPlatformToken("wechat", app, (accessToken) => setUpdatableMsg(httpOf(app), { accessToken, activityId, update })),
    logger: input.logger,
    now: input.now,
  });
  return { daily, sidebar, riskRanks: input.riskRanks, wechatOpenData, shares };
}

/** The growth rewards' view of the live catalogs (every process follows an operator's new version). */
export function growthCatalog(catalogs: Pick<CatalogService, "get">): GrowthRewardCatalog {
  return { growthReward: async (app, rewardId) => catalogs.get(app).catalog.growthRewards.find((r) => r.rewardId === rewardId) };
}

/**
 * Douyin's feed direct play, once the saves exist: the ready scenes from the player's save
 * `<DOUYIN_FEED_COLLECTION>/scenes`, unless the studio's own source is given.
 */
export function buildDouyinFeed(input: {
  config: AppConfig;
  platformApps: PlatformApps;
  store: Pick<UserStore, "findByIdentity">;
  saves: Pick<SaveService, "find">;
  analytics: AnalyticsRecorder;
  source?: FeedSceneSource;
  now?: () => number;
}): DouyinFeed {
  const { douyinFeed } = input.config.growth;
  return new DouyinFeed({
    userIdOf: async (app, openid) => {
      const entry = input.platformApps.find("douyin", app);
      return entry ? (await input.store.findByIdentity({ platform: input.platformApps.namespaceOf(entry), platformId: openid }))?.id : undefined;
    },
    source: input.source ?? savedFeedScenes(input.saves, douyinFeed.collection),
    analytics: input.analytics,
    deadlineMs: douyinFeed.deadlineMs,
    now: input.now,
  });
}

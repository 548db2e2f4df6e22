/**
 * The growth surfaces' part of the composition root (container.ts): the once-per-day rewards over the
 * economy's RewardGranter and live catalogs, in the studio's time zone, and the sidebar revisit for
 * the apps on Douyin (docs/growth.md).
 */
import type { AppConfig } from "../config/config";
import type { RewardGranter } from "../core/ports/reward-grants";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { CatalogService } from "../services/economy/catalog-service";
import { DailyGrowthRewards, type GrowthRewardCatalog } from "../services/growth/daily-rewards";
import { SidebarRewards } from "../services/growth/sidebar-reward";
import type { PlatformApps } from "../services/platform-apps";
import type { SessionKeyCustody } from "../services/session-key-custody";
import { StoredPlayerOpenids } from "../services/social/player-openids";

export interface GrowthServices {
  daily: DailyGrowthRewards;
  sidebar: SidebarRewards;
}

export interface GrowthWiringInput {
  config: AppConfig;
  platformApps: PlatformApps;
  store: Pick<UserStore, "findById" | "listIdentities">;
  custody: Pick<SessionKeyCustody, "read">;
  rewards: RewardGranter;
  catalogs: Pick<CatalogService, "get">;
  logger: Logger;
  now?: () => number;
}

export function buildGrowthServices(input: GrowthWiringInput): GrowthServices {
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
  return { daily, sidebar };
}

/** The growth rewards' view of the live catalogs (every process follows an operator's new version). */
export function growthCatalog(catalogs: Pick<CatalogService, "get">): GrowthRewardCatalog {
  return { growthReward: async (app, rewardId) => catalogs.get(app).catalog.growthRewards.find((r) => r.rewardId === rewardId) };
}

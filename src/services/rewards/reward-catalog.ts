/**
 * What the reward sources read from an app's catalog (docs/economy.md): the rewarded-ad units with
 * their grants and per-player daily caps, and the gift packs with their grants. The economy's
 * catalog answers it; the sources know nothing else of it.
 */
import type { ItemCount } from "../../core/ports/reward-grants";

export interface RewardGrants {
  currencies?: Record<string, number>;
  items?: ItemCount[];
}

export interface AdUnitReward {
  adUnitId: string;
  grants: RewardGrants;
  /** Rewarded views a player is granted per day on this unit; views past it are recorded, not granted. */
  dailyCap: number;
}

export interface GiftPackReward {
  giftId: string;
  grants: RewardGrants;
}

export interface RewardCatalog {
  adUnit(appId: string, adUnitId: string): Promise<AdUnitReward | undefined>;
  giftPack(appId: string, giftId: string): Promise<GiftPackReward | undefined>;
}

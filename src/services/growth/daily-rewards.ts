/**
 * Growth rewards a player gets at most once per day of the studio's time zone (the Douyin sidebar
 * revisit, WeChat game-circle activity): what is granted is the catalog's `growthRewards` entry,
 * through the RewardGranter keyed (app, surface, `<surface>:<day>:<userId>`), so replays, concurrent
 * claims and retries after a lost answer all land on the one ledger entry of that day. The user is in
 * the key because the ledger keeps one grant per (app, source, sourceId) across all players.
 */
import { AppError } from "../../core/errors";
import type { GrowthRewardId } from "../../core/catalog";
import type { RewardGrantResult, RewardGranter } from "../../core/ports/reward-grants";
import type { RewardGrants } from "../rewards/reward-catalog";
import { studioDay } from "./studio-day";

export interface GrowthRewardCatalog {
  growthReward(app: string, rewardId: GrowthRewardId): Promise<{ grants: RewardGrants } | undefined>;
}

/** Asked before a grant of value: throws to refuse it (risk-rank.ts). */
export type GrantGate = (input: { app: string; userId: string; grant: GrowthRewardId }) => Promise<void>;

export interface DailyRewardDeps {
  rewards: RewardGranter;
  catalog: GrowthRewardCatalog;
  timeZone: string;
  gate?: GrantGate;
  now?: () => number;
}

export interface DailyRewardResult extends RewardGrantResult {
  rewardId: GrowthRewardId;
  /** The studio day this grant counts for, YYYY-MM-DD. */
  day: string;
}

export function dailySourceId(rewardId: GrowthRewardId, day: string, userId: string): string {
  return `${rewardId}:${day}:${userId}`;
}

export class DailyGrowthRewards {
  private readonly now: () => number;

  constructor(private readonly deps: DailyRewardDeps) {
    this.now = deps.now ?? Date.now;
  }

  today(): string {
    return studioDay(this.now(), this.deps.timeZone);
  }

  async grant(app: string, userId: string, rewardId: GrowthRewardId): Promise<DailyRewardResult> {
    // The day is fixed first: a claim that straddles midnight counts for the day it arrived on.
    const day = this.today();
    const reward = await this.deps.catalog.growthReward(app, rewardId);
    if (!reward) throw new AppError("growth_reward_unconfigured", { data: { rewardId } });
    await this.deps.gate?.({ app, userId, grant: rewardId });
    const result = await this.deps.rewards.grant({ appId: app, userId, source: rewardId, sourceId: dailySourceId(rewardId, day, userId), ...reward.grants, reason: `${rewardId} ${day}` });
    return { rewardId, day, ...result };
  }
}

/**
 * Rewarded ads the platform verified (WeChat's server-side callback, wechat-ad-reward.ts), granted
 * once per ad view: the view is recorded in one of the player's daily slots of its ad unit
 * (AdViewStore), then granted through the RewardGranter keyed by the platform's transaction id. A
 * replay finds the view and repeats the grant, which changes nothing; a crash between the two is
 * finished by WeChat's retry or by the player's `watchAd()` poll (viewFor).
 */
import { boosted } from "../economy/offers";
import type { AdView, AdViewStore } from "../../core/ports/ad-views";
import type { RewardGrantResult, RewardGranter } from "../../core/ports/reward-grants";
import type { Logger } from "../../logging/logger";
import { readAdCustomData, type AdCallbackKeys, type AdReward } from "../../platforms/wechat/wechat-ad-reward";
import type { PushKeys } from "../../platforms/wechat/wechat-push";
import type { RewardCatalog, RewardGrants } from "./reward-catalog";

/** Finds our user for a platform identity of an app. */
import { NO_ANALYTICS, type AnalyticsRecorder } from "../../core/ports/analytics-store";
import { SERVER_EVENTS } from "../analytics/event-names";

/** One app's keys for the reward callbacks of one platform. */
export interface RewardApp {
  /** Our app's key. */
  app: string;
  /** The platform's app id. */
  appId: string;
  ad?: AdCallbackKeys;
  giftPush?: PushKeys;
}

export type PlayerLookup = (platform: string, app: string, openid: string) => Promise<string | undefined>;

export interface AdRewardDeps {
  views: AdViewStore;
  rewards: RewardGranter;
  catalog: RewardCatalog;
  userIdFor: PlayerLookup;
  logger: Logger;
  /** Hours from UTC of the players' day the caps count in. */
  dayOffsetHours: number;
  now?: () => number;
  /** Test-only (REWARD_CRASH_POINT): called at each step; the fault tests kill the process there. */
  crashPoint?: (step: "after_view_recorded") => void;
}

export type AdRewardOutcome =
  | { valid: true; view: AdView; result: RewardGrantResult }
  | { valid: false; reason: "malformed_custom_data" | "unknown_ad_unit" | "unknown_player" | "daily_cap"; view?: AdView };

/** The players' calendar day of a moment, `YYYY-MM-DD`. */
export function playerDay(ms: number, offsetHours: number): string {
  return new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 10);
}

export class AdRewards {
  private readonly now: () => number;
  private analytics: AnalyticsRecorder = NO_ANALYTICS;
  /** The player's ad reward multiplier now (LiveOps: experiments, live events); 1 when not wired. */
  boost: (app: string, userId: string) => Promise<{ factor: number; eventId?: string }> = async () => ({ factor: 1 });

  constructor(private readonly deps: AdRewardDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Where verified views are reported (docs/analytics.md). */
  reportTo(recorder: AnalyticsRecorder): void {
    this.analytics = recorder;
  }

  /** One verified callback of `platform` for our app `app`; `atMs` is the platform's timestamp of the reward. */
  async verified(platform: string, app: string, reward: AdReward, atMs: number): Promise<AdRewardOutcome> {
    const custom = readAdCustomData(reward.customData);
    if (!custom) return { valid: false, reason: "malformed_custom_data" };
    const unit = await this.deps.catalog.adUnit(app, custom.adUnitId);
    if (!unit) return { valid: false, reason: "unknown_ad_unit" };
    const userId = await this.deps.userIdFor(platform, app, reward.userId);
    if (!userId) return { valid: false, reason: "unknown_player" };
    const { view, created } = await this.deps.views.record(
      {
        appId: app,
        transactionId: reward.transactionId,
        userId,
        adUnitId: unit.adUnitId,
        day: playerDay(atMs, this.deps.dayOffsetHours),
        watchId: custom.watchId ?? null,
        createdAt: new Date(this.now()).toISOString(),
      },
      unit.dailyCap,
    );
    this.deps.crashPoint?.("after_view_recorded");
    if (created) this.analytics.record({ id: `ad:${app}:${reward.transactionId}`, name: SERVER_EVENTS.adReward, app, platform, userId, props: { adUnitId: unit.adUnitId, granted: view.slot !== null } });
    if (view.slot === null) {
      if (created) this.deps.logger.info({ event: "ad_reward_capped", platform, app, userId, adUnitId: unit.adUnitId }, "a rewarded ad past the player's daily cap was recorded, not granted");
      return { valid: false, reason: "daily_cap", view };
    }
    return { valid: true, view, result: await this.grantOf(view, unit.grants) };
  }

  /**
   * The player's view by the watch id their client chose: undefined while the platform has not
   * called back; else the view, and the grant result (repeated, so a grant a crash interrupted lands now).
   */
  async viewFor(app: string, userId: string, watchId: string): Promise<{ view: AdView; result?: RewardGrantResult } | undefined> {
    const view = await this.deps.views.findByWatch(app, userId, watchId);
    if (!view) return undefined;
    if (view.slot === null) return { view };
    const unit = await this.deps.catalog.adUnit(app, view.adUnitId);
    // A unit removed from the catalog since the view was recorded grants nothing more.
    return unit ? { view, result: await this.grantOf(view, unit.grants) } : { view };
  }

  /** The first grant of a view decides its amount (a later replay answers it, whatever the multiplier by then). */
  private async grantOf(view: AdView, grants: RewardGrants): Promise<RewardGrantResult> {
    const { factor, eventId } = await this.boost(view.appId, view.userId);
    return this.deps.rewards.grant({ appId: view.appId, userId: view.userId, source: "ad_reward", sourceId: view.transactionId, ...boosted(grants, factor), reason: `ad unit ${view.adUnitId}`, ...(eventId ? { liveEvent: eventId } : {}) });
  }
}

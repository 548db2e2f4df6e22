/**
 * The platforms' growth surfaces (the server's docs/growth.md), over a logged-in GameClient:
 * `growth(client).sidebarReward(options)` reports a launch from Douyin's sidebar (pass tt.onShow's
 * options) and answers the once-per-day grant; refusals throw the server's code (`not_from_sidebar`,
 * `growth_unsupported`, …).
 */
import type { RewardResult } from "./rewards";

/** Anything that makes authenticated calls to the server: a GameClient. */
export interface GrowthRequester {
  request<T = unknown>(method: "GET" | "POST", path: string, body?: unknown): Promise<T>;
}

/** A once-per-day growth grant: `granted` false when the player had it today (nothing more given). */
export interface DailyReward extends RewardResult {
  rewardId: "sidebar" | "game_club";
  /** The studio's day (YYYY-MM-DD) it counts for. */
  day: string;
}

/** What tt.onShow / tt.getLaunchOptionsSync report (only these two fields are read). */
export interface DouyinShowOptions {
  launch_from?: string;
  location?: string;
}

/** Whether Douyin launched the game from its sidebar (tt.onShow's options). */
export function launchedFromSidebar(options: DouyinShowOptions | undefined): boolean {
  return options?.launch_from === "homepage" && options.location === "sidebar_card";
}

export class Growth {
  constructor(private readonly client: GrowthRequester) {}

  /** Reports a sidebar launch; call it from tt.onShow when `launchedFromSidebar(options)`. */
  sidebarReward(options: DouyinShowOptions): Promise<DailyReward> {
    return this.client.request("POST", "/api/growth/sidebar", { launchFrom: options.launch_from ?? "", location: options.location ?? "" });
  }

  /**
   * Lets the server read the player's WeChat risk rank now, with this request's IP; call it once after
   * login where the studio checks risk before rewards (`checked` says whether a rank is known).
   */
  riskCheck(): Promise<{ checked: boolean }> {
    return this.client.request("POST", "/api/growth/risk-check");
  }
}

export function growth(client: GrowthRequester): Growth {
  return new Growth(client);
}

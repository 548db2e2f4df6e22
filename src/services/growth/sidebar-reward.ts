/**
 * Douyin's sidebar revisit (侧边栏复访), which Douyin's review requires of every mini-game: the client
 * sees `tt.onShow` report `launch_from: "homepage"` and `location: "sidebar_card"` and tells us; we
 * grant the catalog's `sidebar` reward once per studio day.
 *
 * What the server cannot verify: Douyin gives no server-side proof of a sidebar launch (none found in
 * its docs or SDKs: docs/growth.md). A modified client can report one every day without entering
 * from the sidebar; what it gains is bounded by the once-per-day rule and the catalog's reward.
 */
import { AppError } from "../../core/errors";
import type { DailyGrowthRewards, DailyRewardResult } from "./daily-rewards";

/** What the client read from tt.onShow's options. */
export interface LaunchScene {
  launchFrom: string;
  location: string;
}

export interface SidebarDeps {
  daily: Pick<DailyGrowthRewards, "grant">;
  /** Whether the app is on Douyin here. */
  onDouyin(app: string): boolean;
  /** The player's Douyin openid on the app: "" when they have none there, null when there is no such user. */
  openidOf(app: string, userId: string): Promise<string | null>;
}

export function isSidebarLaunch(scene: LaunchScene): boolean {
  return scene.launchFrom === "homepage" && scene.location === "sidebar_card";
}

export class SidebarRewards {
  constructor(private readonly deps: SidebarDeps) {}

  async claim(app: string, userId: string, scene: LaunchScene): Promise<DailyRewardResult> {
    if (!isSidebarLaunch(scene)) throw new AppError("not_from_sidebar", { data: { launchFrom: scene.launchFrom, location: scene.location } });
    if (!this.deps.onDouyin(app)) throw new AppError("growth_unsupported", { data: { reason: "app_not_on_douyin" } });
    const openid = await this.deps.openidOf(app, userId);
    if (openid === null) throw new AppError("user_disabled", { message: "No such user" });
    if (!openid) throw new AppError("growth_unsupported", { data: { reason: "no_douyin_login" } });
    return this.deps.daily.grant(app, userId, "sidebar");
  }
}

/** The API description's growth operations: sidebar revisit, risk rank, group and game-circle data (docs/growth.md). */
import type { z } from "zod";
import * as g from "../growth-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export const GROWTH_TAG = { name: "Growth", description: "The platforms' growth surfaces: sidebar revisits, group and game-circle data, share messages (docs/growth.md)" };

export function registerGrowthComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("DailyRewardResponse", s.okEnvelope(g.dailyRewardSchema));
}

export function growthOperations(platforms: readonly { name: string }[]): OperationSpec[] {
  const ops: OperationSpec[] = [];
  if (platforms.some((p) => p.name === "douyin")) {
    ops.push({
      method: "post",
      path: "/api/growth/sidebar",
      operationId: "claimSidebarReward",
      tag: GROWTH_TAG.name,
      summary: "Report a launch from Douyin's sidebar: the catalog's sidebar reward, once per studio day",
      description:
        "The client sends what tt.onShow reported (`launch_from`, `location`). From the sidebar (`homepage`, `sidebar_card`) the " +
        "catalog's `growthRewards` entry `sidebar` is granted through the reward ledger, once per player per day of " +
        "STUDIO_TIME_ZONE: a repeat that day answers 200 with `granted: false`. Another scene → 422 `not_from_sidebar`; no " +
        "sidebar reward in the catalog → 404 `growth_reward_unconfigured`; the app is not on Douyin or the player has no Douyin " +
        "login → 404 `growth_unsupported`; a risk-rank check refusing it → 403 `risky_player`. Nothing is granted on any " +
        "failure. The server cannot verify the launch: Douyin gives no server-side proof of it (docs/growth.md). Limited per " +
        "user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      body: { schema: g.sidebarBody, examples: { sidebar: { launchFrom: "homepage", location: "sidebar_card" } } },
      success: { status: 200, component: "DailyRewardResponse", description: "`data.granted`: true the first time that day" },
      errors: [...AUTH_ERRORS, "not_from_sidebar", "growth_reward_unconfigured", "growth_unsupported", "risky_player", "rate_limited"],
    });
  }
  return ops;
}

/**
 * Once-per-day growth rewards over a controllable clock: the day is the studio's (STUDIO_TIME_ZONE),
 * so the same instants fall on different days in Shanghai and Los Angeles, and a new day grants again.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { DailyGrowthRewards, type GrowthRewardCatalog } from "../../src/services/growth/daily-rewards";
import { SidebarRewards } from "../../src/services/growth/sidebar-reward";
import { studioDay } from "../../src/services/growth/studio-day";
import { MemoryRewardGranter } from "../support/memory-reward-granter";

const catalog: GrowthRewardCatalog = {
  growthReward: async (app, rewardId) => (app === "default" && rewardId === "sidebar" ? { grants: { currencies: { gems: 3 } } } : undefined),
};
const FROM_SIDEBAR = { launchFrom: "homepage", location: "sidebar_card" };

function setUp(timeZone: string, startIso: string) {
  const clock = { now: Date.parse(startIso) };
  const granter = new MemoryRewardGranter();
  const daily = new DailyGrowthRewards({ rewards: granter, catalog, timeZone, now: () => clock.now });
  const sidebar = new SidebarRewards({ daily, onDouyin: (app) => app === "default", openidOf: async (_app, userId) => (userId === "u-wechat-only" ? "" : `openid-${userId}`) });
  return { clock, granter, sidebar };
}

async function refused(promise: Promise<unknown>, code: string) {
  await assert.rejects(promise, (err: unknown) => err instanceof AppError && err.code === code);
}

describe("growth: once-per-day rewards in the studio's time zone", () => {
  it("studioDay names the studio's calendar day of an instant", () => {
    assert.equal(studioDay(Date.parse("2026-03-01T15:59:59Z"), "Asia/Shanghai"), "2026-03-01");
    assert.equal(studioDay(Date.parse("2026-03-01T16:00:00Z"), "Asia/Shanghai"), "2026-03-02");
    assert.equal(studioDay(Date.parse("2026-03-02T07:59:59Z"), "America/Los_Angeles"), "2026-03-01");
    assert.equal(studioDay(Date.parse("2026-03-02T08:00:00Z"), "America/Los_Angeles"), "2026-03-02");
  });

  for (const { zone, lastMinute } of [
    { zone: "Asia/Shanghai", lastMinute: "2026-03-01T15:59:00Z" },
    { zone: "America/Los_Angeles", lastMinute: "2026-03-02T07:59:00Z" },
  ]) {
    it(`${zone}: granted once on the day's last minute, replays give nothing, the next day grants again`, async () => {
      const { clock, granter, sidebar } = setUp(zone, lastMinute);
      const first = await Promise.all(Array.from({ length: 10 }, () => sidebar.claim("default", "u1", FROM_SIDEBAR)));
      assert.equal(first.filter((r) => r.granted).length, 1);
      assert.ok(first.every((r) => r.day === "2026-03-01" && r.balances.gems === 3));
      clock.now += 59_000;
      assert.equal((await sidebar.claim("default", "u1", FROM_SIDEBAR)).granted, false, "still the same studio day");
      clock.now += 2_000;
      const next = await sidebar.claim("default", "u1", FROM_SIDEBAR);
      assert.deepEqual({ granted: next.granted, day: next.day, gems: next.balances.gems }, { granted: true, day: "2026-03-02", gems: 6 });
      assert.deepEqual(
        granter.grantsOf("sidebar").map((g) => g.sourceId),
        ["sidebar:2026-03-01:u1", "sidebar:2026-03-02:u1"],
      );
      // Another player the same day has their own grant.
      assert.equal((await sidebar.claim("default", "u2", FROM_SIDEBAR)).granted, true);
    });
  }

  it("the same instant is one zone's day and the other's day before", async () => {
    const instant = "2026-03-01T20:00:00Z";
    const shanghai = setUp("Asia/Shanghai", instant);
    const angeles = setUp("America/Los_Angeles", instant);
    assert.equal((await shanghai.sidebar.claim("default", "u1", FROM_SIDEBAR)).day, "2026-03-02");
    assert.equal((await angeles.sidebar.claim("default", "u1", FROM_SIDEBAR)).day, "2026-03-01");
  });

  it("refuses another scene, a player without a Douyin login, another app, a catalog without the reward: nothing granted", async () => {
    const { granter, sidebar } = setUp("Asia/Shanghai", "2026-03-01T10:00:00Z");
    await refused(sidebar.claim("default", "u1", { launchFrom: "homepage", location: "search" }), "not_from_sidebar");
    await refused(sidebar.claim("default", "u1", { launchFrom: "", location: "sidebar_card" }), "not_from_sidebar");
    await refused(sidebar.claim("default", "u-wechat-only", FROM_SIDEBAR), "growth_unsupported");
    await refused(sidebar.claim("other-app", "u1", FROM_SIDEBAR), "growth_unsupported");
    const noReward = new SidebarRewards({
      daily: new DailyGrowthRewards({ rewards: granter, catalog: { growthReward: async () => undefined }, timeZone: "Asia/Shanghai" }),
      onDouyin: () => true,
      openidOf: async () => "openid",
    });
    await refused(noReward.claim("default", "u1", FROM_SIDEBAR), "growth_reward_unconfigured");
    assert.equal(granter.calls, 0);
  });
});

/**
 * Experiment results on every store: a scripted set of players, some assigned to each variant by
 * LiveOps (its stored assignments), some not, some only active in another app or after the end.
 * Every count, rate, revenue and interval equals the script's truth.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import { AppError } from "../../src/core/errors";
import type { Experiment } from "../../src/core/liveops";
import type { AnalyticsEvent, AnalyticsStore } from "../../src/core/ports/analytics-store";
import { ExperimentResults, type ExperimentSource } from "../../src/services/analytics/experiment-results";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";
import { storeImplementations } from "../support/store-configs";

const ZONE = "Asia/Shanghai";
const FIRST = "2026-03-01";
/** An instant on day `n` of the script (hours after that day's midnight in the zone). */
const on = (n: number, hour = 10) => new Date(dayStart(addDays(FIRST, n), ZONE) + hour * 3600_000).toISOString();

const experiment: Experiment = {
  experimentId: "price_test",
  startsAt: on(0, 0),
  endsAt: on(3, 0),
  variants: [
    { variant: "control", weight: 50, flags: {} },
    { variant: "double", weight: 50, flags: {} },
  ],
};

/** LiveOps' stored assignments of the script; b3's is only on its events, n1 and x1's app has none. */
const assigned: Record<string, string> = { a1: "control", a2: "control", a3: "control", a4: "control", x1: "control", b1: "double", b2: "double" };

function ev(userId: string, day: number, name = "login", extra: Partial<AnalyticsEvent> = {}): AnalyticsEvent {
  return { id: crypto.randomUUID(), name, app: "default", platform: "wechat", userId, at: on(day), props: {}, experiments: {}, liveEvents: [], ...extra };
}
const order = (userId: string, day: number, revenue: number) => ev(userId, day, "order_delivered", { props: { kind: "coin_spend", revenue, unit: "wechat_coins", coins: revenue } });

const script: AnalyticsEvent[] = [
  ev("a1", 0), order("a1", 0, 100), ev("a1", 1), // paid, back the next day
  ev("a2", 1), // not back on day 2
  ev("a3", 2), ev("a3", 3), order("a3", 3, 999), // back on day 3 (after the end: counts as return, its order does not)
  ev("a4", 0, "login", { app: "other" }), // another app's only
  ev("x1", -1), ev("x1", 4), // active before and after, never while it ran
  ev("b1", 0), order("b1", 1, 300), order("b1", 1, 100), ev("b1", 1),
  ev("b2", 2),
  ev("b3", 0, "login", { experiments: { price_test: "double" } }), // assigned on its own events
  ev("n1", 0), ev("n1", 1), // never assigned
  ev("a1", 7), ev("b2", 9), ev("b1", 8), // a1 and b2 back on their 7th day; b1 on its 8th (not retained)
];

for (const impl of storeImplementations("analytics-experiment")) {
  describe(`analytics: experiment results — ${impl.name}`, function () {
    this.timeout(30_000);
    let store: AnalyticsStore;
    let release: () => Promise<void>;
    const asked: string[] = [];
    const source: ExperimentSource = {
      find: (id, app) => (id === experiment.experimentId && (app ?? "default") === "default" ? { app: "default", experiment } : undefined),
      assignments: async (app, userId) => {
        asked.push(userId);
        return app === "default" && assigned[userId] ? { [experiment.experimentId]: assigned[userId]! } : {};
      },
    };
    const now = () => dayStart(addDays(FIRST, 5), ZONE) + 12 * 3600_000;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createAnalyticsStore(prepared.config);
      await store.append(script);
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    it("counts each variant's exposed players, payers, revenue and next-day retention as scripted", async () => {
      const report = await new ExperimentResults(store, source, { timeZone: ZONE, now, pageSize: 4, minPlayersPerVariant: 3 }).results("price_test");
      assert.deepEqual([report.app, report.from, report.to, report.enoughData], ["default", on(0, 0), on(3, 0), true]);
      const [control, double] = report.variants;
      assert.deepEqual(control, {
        variant: "control",
        players: 3,
        payers: 1,
        conversion: 0.3333,
        interval: { low: 0.0615, high: 0.7923 },
        retention: { d1: { players: 3, retained: 2, rate: 0.6667, interval: { low: 0.2077, high: 0.9385 } }, d7: null },
        revenue: { wechat_coins: 100 },
        revenuePerPlayer: { wechat_coins: { mean: 33.33, interval: { low: 0, high: 98.67 } } },
      });
      assert.deepEqual(double, {
        variant: "double",
        players: 3,
        payers: 1,
        conversion: 0.3333,
        interval: { low: 0.0615, high: 0.7923 },
        retention: { d1: { players: 3, retained: 1, rate: 0.3333, interval: { low: 0.0615, high: 0.7923 } }, d7: null },
        revenue: { wechat_coins: 400 },
        revenuePerPlayer: { wechat_coins: { mean: 133.33, interval: { low: 0, high: 394.66 } } },
      });
      assert.ok(!asked.includes("b3"), "a variant on the player's own events needs no lookup");
      assert.ok(!asked.includes("x1") && !asked.includes("a4"), "only players active in the app while it ran are looked up");
    });

    it("counts day-7 retention once each player's 7th day has come, from their first day in the window", async () => {
      const later = () => dayStart(addDays(FIRST, 12), ZONE) + 12 * 3600_000;
      const report = await new ExperimentResults(store, source, { timeZone: ZONE, now: later, pageSize: 4, minPlayersPerVariant: 3 }).results("price_test");
      const d7 = { players: 3, retained: 1, rate: 0.3333, interval: { low: 0.0615, high: 0.7923 } };
      assert.deepEqual(report.variants.map((v) => [v.variant, v.retention.d7]), [["control", d7], ["double", d7]]);
      assert.deepEqual(report.variants.map((v) => v.retention.d1?.retained), [2, 1], "day 1 as before");
      const midway = () => dayStart(addDays(FIRST, 8), ZONE) + 12 * 3600_000;
      const partial = await new ExperimentResults(store, source, { timeZone: ZONE, now: midway }).results("price_test");
      // On day 8 only the players first seen on days 0 and 1 have had their 7th day: a1, a2 (control), b1, b3 (double).
      assert.deepEqual(partial.variants.map((v) => [v.retention.d7?.players, v.retention.d7?.retained]), [[2, 1], [2, 0]]);
    });

    it("says when there is not enough data, and that a next day has not come", async () => {
      const early = () => dayStart(FIRST, ZONE) + 12 * 3600_000;
      const report = await new ExperimentResults(store, source, { timeZone: ZONE, now: early }).results("price_test", "default");
      assert.equal(report.enoughData, false);
      assert.equal(report.minPlayersPerVariant, 100);
      assert.deepEqual(report.variants.map((v) => [v.variant, v.players, v.retention.d1]), [["control", 1, null], ["double", 2, null]]);
    });

    it("an unknown experiment, or one of another app, is experiment_not_found", async () => {
      const results = new ExperimentResults(store, source, { timeZone: ZONE, now });
      for (const [id, app] of [["nope", undefined], ["price_test", "other"]] as const) {
        await assert.rejects(results.results(id, app), (err: unknown) => err instanceof AppError && err.code === "experiment_not_found");
      }
    });
  });
}

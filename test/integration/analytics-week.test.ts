/**
 * A scripted week, on every store and in two time zones: players created on given days, logins on
 * later days, paid orders, ad views, room sessions. Every daily and retention number the rollup
 * writes equals the script's truth, with events arriving late and out of order, and with two
 * rollups (two connections) running at once.
 */
import assert from "node:assert/strict";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import { ALL, type AnalyticsStore } from "../../src/core/ports/analytics-store";
import { AnalyticsReports } from "../../src/services/analytics/analytics-reports";
import { RollupService } from "../../src/services/analytics/rollup-service";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";
import { eventsIn, shuffled, TODAY, truth } from "../support/analytics-week";
import { storeImplementations } from "../support/store-configs";

const FIRST = "2026-03-01";

for (const impl of storeImplementations("analytics-week")) {
  for (const timeZone of ["Asia/Shanghai", "America/Los_Angeles"]) {
    describe(`analytics: a scripted week — ${impl.name}, ${timeZone}`, function () {
      this.timeout(60_000);
      let stores: AnalyticsStore[] = [];
      let release: () => Promise<void>;
      const now = () => dayStart(addDays(FIRST, TODAY), timeZone) + 12 * 3600_000;

      before(async () => {
        const prepared = await impl.prepare();
        release = prepared.release;
        stores = [await createAnalyticsStore(prepared.config), await createAnalyticsStore(prepared.config)];
      });
      after(async () => {
        for (const store of stores) await store.close();
        await release?.();
      });

      it("every daily and retention number equals the script's, with late events and two rollups at once", async () => {
        const [first, second] = stores as [AnalyticsStore, AnalyticsStore];
        const events = shuffled(eventsIn(FIRST, timeZone));
        const onTime = events.slice(0, 12);
        const late = events.slice(12);
        const rollups = [new RollupService(first, { timeZone, now, pageSize: 5 }), new RollupService(second, { timeZone, now, pageSize: 7 })];
        await first.append(onTime);
        await rollups[0]!.rollup(FIRST, addDays(FIRST, TODAY));
        // The rest arrives late (and a retry brings some of the first part again), then two processes roll up at once.
        await second.append([...late, ...onTime.slice(0, 3)]);
        await Promise.all([rollups[0]!.rollup(FIRST, addDays(FIRST, TODAY)), rollups[1]!.rollup(FIRST, addDays(FIRST, TODAY))]);

        for (const [app, platform] of [[ALL, ALL], ["default", ALL], ["default", "wechat"], [ALL, "douyin"]] as const) {
          const expected = truth(FIRST, app, platform);
          const range = { app, platform, from: FIRST, to: addDays(FIRST, TODAY) };
          assert.deepEqual(await first.daily(range), expected.daily, `daily ${app}/${platform}`);
          assert.deepEqual(await second.retention(range), expected.retention, `retention ${app}/${platform}`);
        }
      });

      it("matches numbers worked out by hand, as the console reads them", async () => {
        const reports = new AnalyticsReports(stores[0]!);
        const days = await reports.daily({ from: FIRST, to: addDays(FIRST, TODAY) });
        assert.deepEqual(days.map((d) => d.dau), [3, 3, 2, 1, 1, 1, 0, 2, 1]);
        assert.deepEqual(days.map((d) => d.newPlayers), [2, 1, 1, 0, 0, 0, 0, 0, 0]);
        assert.deepEqual(days[7], {
          date: "2026-03-08", dau: 2, wau: 5, mau: 5, newPlayers: 0, payingPlayers: 2, revenue: { wechat_coins: 36 }, revenueCoins: 36,
          arpdau: { wechat_coins: 18 }, arppu: { wechat_coins: 18 }, payerConversion: 1, adViews: 0, adViewsPerDau: 0, sessions: 0, avgSessionSeconds: 0, softPurchases: 0,
          softSources: {}, softSinks: { gems: 3 },
        });
        assert.equal(days[5]!.avgSessionSeconds, 201); // (300 + 101) / 2, rounded
        // Day 2: c claimed mail with 7 gems and 100 gold; day 3: a bought a potion for 10 gems and was gifted 5.
        assert.deepEqual([days[2]!.softSources, days[2]!.softSinks], [{ gems: 7, gold: 100 }, {}]);
        assert.deepEqual([days[3]!.softPurchases, days[3]!.softSources, days[3]!.softSinks], [1, { gems: 7 }, { gems: 10 }], "the gift's 5 and the rewarded ad's 2");
        const cohorts = await reports.retention({ from: FIRST, to: addDays(FIRST, TODAY) });
        assert.deepEqual(cohorts, [
          { date: "2026-03-01", size: 2, retained: { d1: 2, d3: 1, d7: 2, d14: null, d30: null } },
          { date: "2026-03-02", size: 1, retained: { d1: 1, d3: 1, d7: 1, d14: null, d30: null } },
          { date: "2026-03-03", size: 1, retained: { d1: 0, d3: 0, d7: null, d14: null, d30: null } },
        ]);
      });
    });
  }
}

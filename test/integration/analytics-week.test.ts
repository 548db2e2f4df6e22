/**
 * A scripted week, on every store and in two time zones: players created on given days, logins on
 * later days, paid orders, ad views, room sessions. Every daily and retention number the rollup
 * writes equals the script's truth, with events arriving late and out of order, and with two
 * rollups (two connections) running at once.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import { ALL, RETENTION_DAYS, type AnalyticsEvent, type AnalyticsStore, type DailyRow, type RetentionRow } from "../../src/core/ports/analytics-store";
import { AnalyticsReports } from "../../src/services/analytics/analytics-reports";
import { RollupService } from "../../src/services/analytics/rollup-service";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";
import { storeImplementations } from "../support/store-configs";

const FIRST = "2026-03-01";
const TODAY = 8; // the clock stands on day 8 of the script

interface Step {
  day: number;
  /** Seconds after the local midnight: 0 and 86399 test the day's edges. */
  second: number;
  user: string;
  platform: string;
  name: string;
  props?: AnalyticsEvent["props"];
}

const login = (day: number, user: string, platform: string, isNew = false, second = 3600): Step => ({ day, second, user, platform, name: "login", props: { new: isNew } });
const paid = (day: number, user: string, platform: string, unit: string, revenue: number): Step => ({ day, second: 7200, user, platform, name: "order_delivered", props: { kind: "coin_spend", revenue, unit, coins: revenue } });
const ad = (day: number, user: string, platform: string, second = 9000): Step => ({ day, second, user, platform, name: "ad_reward", props: { adUnitId: "u1", granted: true } });
const session = (day: number, user: string, platform: string, seconds: number): Step => ({ day, second: 10_000, user, platform, name: "session_end", props: { room: "match", seconds } });

/** The week. a, b, d on wechat; c on douyin; e was a player before the week began. */
const SCRIPT: Step[] = [
  login(0, "a", "wechat", true, 0), // the first second of day 0
  login(0, "b", "wechat", true, 86_399), // the last second of day 0
  login(0, "e", "wechat"),
  login(1, "a", "wechat"),
  paid(1, "a", "wechat", "wechat_coins", 60),
  login(1, "b", "wechat"),
  session(1, "b", "wechat", 600),
  login(1, "c", "douyin", true),
  login(2, "c", "douyin"),
  ad(2, "c", "douyin"),
  ad(2, "c", "douyin", 9100),
  login(2, "d", "wechat", true),
  login(3, "a", "wechat"),
  ad(3, "a", "wechat"),
  paid(4, "c", "douyin", "douyin_price", 600),
  login(5, "e", "wechat"),
  session(5, "e", "wechat", 300),
  session(5, "e", "wechat", 101),
  login(7, "a", "wechat"),
  paid(7, "a", "wechat", "wechat_coins", 30),
  paid(7, "b", "wechat", "wechat_coins", 6),
  login(8, "c", "douyin"),
];

/** The truth, worked out from the script's days (not from timestamps). */
function truth(app: string, platform: string) {
  const steps = SCRIPT.filter((s) => platform === ALL || s.platform === platform);
  const on = (day: number) => steps.filter((s) => s.day === day);
  const players = (list: Step[]) => new Set(list.map((s) => s.user));
  const active = (from: number, to: number) => players(steps.filter((s) => s.day >= from && s.day <= to)).size;
  const newOn = (day: number) => players(on(day).filter((s) => s.name === "login" && s.props?.new === true));
  const daily: DailyRow[] = [];
  for (let day = 0; day <= TODAY; day++) {
    const revenue: Record<string, number> = {};
    for (const s of on(day).filter((x) => x.name === "order_delivered")) revenue[s.props!.unit as string] = (revenue[s.props!.unit as string] ?? 0) + (s.props!.revenue as number);
    const sessions = on(day).filter((s) => s.name === "session_end");
    daily.push({
      app, platform, date: addDays(FIRST, day),
      dau: players(on(day)).size, wau: active(day - 6, day), mau: active(day - 29, day),
      newPlayers: newOn(day).size,
      sessions: sessions.length, sessionSeconds: sessions.reduce((n, s) => n + (s.props!.seconds as number), 0),
      payingPlayers: players(on(day).filter((s) => s.name === "order_delivered")).size,
      revenue, revenueCoins: Object.values(revenue).reduce((a, b) => a + b, 0),
      adViews: on(day).filter((s) => s.name === "ad_reward").length, softPurchases: 0,
    });
  }
  const retention: RetentionRow[] = [];
  for (let day = 0; day <= TODAY; day++) {
    const cohort = newOn(day);
    if (cohort.size === 0) continue;
    const retained = {} as RetentionRow["retained"];
    for (const n of RETENTION_DAYS) retained[`d${n}`] = day + n > TODAY ? null : [...cohort].filter((u) => players(on(day + n)).has(u)).length;
    retention.push({ app, platform, date: addDays(FIRST, day), size: cohort.size, retained });
  }
  return { daily, retention };
}

function eventsIn(timeZone: string): AnalyticsEvent[] {
  return SCRIPT.map((s) => ({
    id: crypto.randomUUID(),
    name: s.name,
    app: "default",
    platform: s.platform,
    userId: s.user,
    at: new Date(dayStart(addDays(FIRST, s.day), timeZone) + s.second * 1000).toISOString(),
    props: s.props ?? {},
    experiments: {},
    liveEvents: [],
  }));
}

/** A fixed shuffle: the events arrive out of order. */
function shuffled<T>(list: T[]): T[] {
  const out = [...list];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

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
        const events = shuffled(eventsIn(timeZone));
        const onTime = events.slice(0, 12);
        const late = events.slice(12);
        const rollups = [new RollupService(first, { timeZone, now, pageSize: 5 }), new RollupService(second, { timeZone, now, pageSize: 7 })];
        await first.append(onTime);
        await rollups[0]!.rollup(FIRST, addDays(FIRST, TODAY));
        // The rest arrives late (and a retry brings some of the first part again), then two processes roll up at once.
        await second.append([...late, ...onTime.slice(0, 3)]);
        await Promise.all([rollups[0]!.rollup(FIRST, addDays(FIRST, TODAY)), rollups[1]!.rollup(FIRST, addDays(FIRST, TODAY))]);

        for (const [app, platform] of [[ALL, ALL], ["default", ALL], ["default", "wechat"], [ALL, "douyin"]] as const) {
          const expected = truth(app, platform);
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
        });
        assert.equal(days[5]!.avgSessionSeconds, 201); // (300 + 101) / 2, rounded
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

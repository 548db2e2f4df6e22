/**
 * The events' retention period (ANALYTICS_EVENT_RETENTION_DAYS), on every store: the rollup job
 * deletes the events of the days before it and keeps the rollups; a rollup asked for days whose
 * inputs are gone leaves their rows as they were instead of rewriting them short.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import { parseConfig } from "../../src/config/config";
import { ALL, type AnalyticsEvent, type AnalyticsStore } from "../../src/core/ports/analytics-store";
import { RollupService } from "../../src/services/analytics/rollup-service";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";
import { storeImplementations } from "../support/store-configs";

const ZONE = "Asia/Shanghai";
const TODAY = "2026-06-30";
const now = () => dayStart(TODAY, ZONE) + 9 * 3600_000;

function loginOn(day: string, userId: string): AnalyticsEvent {
  return { id: crypto.randomUUID(), name: "login", app: "default", platform: "wechat", userId, at: new Date(dayStart(day, ZONE) + 3600_000).toISOString(), props: { new: false }, experiments: {}, liveEvents: [] };
}

describe("analytics: the events' retention setting", () => {
  it("is 0 (kept) by default, and refuses a period shorter than what a rollup reads", () => {
    const base = { NODE_ENV: "development", JWT_SECRET: "x".repeat(40) };
    assert.equal(parseConfig({ ...base }).analytics.eventRetentionDays, 0);
    assert.equal(parseConfig({ ...base, ANALYTICS_EVENT_RETENTION_DAYS: "90" }).analytics.eventRetentionDays, 90);
    assert.throws(() => parseConfig({ ...base, ANALYTICS_EVENT_RETENTION_DAYS: "30" }), /ANALYTICS_EVENT_RETENTION_DAYS/);
  });
});

for (const impl of storeImplementations("analytics-retention")) {
  describe(`analytics: the events' retention period — ${impl.name}`, function () {
    this.timeout(30_000);
    let store: AnalyticsStore;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createAnalyticsStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    it("the rollup job deletes the events before the period, keeps the rollups, and never rewrites a day whose inputs are gone", async () => {
      // One player active every 10 days for 100 days; a second only on the oldest day.
      const days = Array.from({ length: 11 }, (_, i) => addDays(TODAY, -100 + i * 10));
      await store.append([...days.map((d) => loginOn(d, "steady")), loginOn(days[0]!, "early")]);
      const keepAll = new RollupService(store, { timeZone: ZONE, now });
      await keepAll.rollup(days[0]!, TODAY);
      assert.equal(await keepAll.prune(), 0, "0 days: everything kept");
      const before = await store.daily({ app: ALL, platform: ALL, from: days[0]!, to: TODAY });
      assert.equal(before.find((r) => r.date === days[0])!.dau, 2);

      const rollups = new RollupService(store, { timeZone: ZONE, now, eventRetentionDays: 62 });
      assert.equal(await rollups.prune(), 5, "the four logins of days 100, 90, 80, 70 ago and the early player's");
      const left = await store.scan({ from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z", limit: 100 });
      assert.ok(left.every((e) => e.at >= new Date(dayStart(addDays(TODAY, -62), ZONE)).toISOString()));
      assert.equal(left.length, 7);

      // Asked to redo everything: the days whose 30 days before were deleted keep their rows.
      await rollups.rollup(days[0]!, TODAY);
      assert.deepEqual(await store.daily({ app: ALL, platform: ALL, from: days[0]!, to: TODAY }), before);
      assert.equal(await rollups.prune(), 0);
    });
  });
}

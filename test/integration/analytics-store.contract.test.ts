/**
 * One contract for the AnalyticsStore port over every database it speaks: events stored once by
 * id whatever the retries, scanned in (at, id) order page by page, rollup rows replaced whole, a
 * player's events erased.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import type { AnalyticsEvent, AnalyticsStore, DailyRow, RetentionRow } from "../../src/core/ports/analytics-store";
import { storeImplementations } from "../support/store-configs";

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString();

function event(minute: number, overrides: Partial<AnalyticsEvent> = {}): AnalyticsEvent {
  return { id: crypto.randomUUID(), name: "login", app: "default", platform: "wechat", userId: "u1", at: at(minute), props: { new: true, appVersion: "1.2.0", level: 3 }, experiments: {}, liveEvents: [], ...overrides };
}

for (const impl of storeImplementations("analytics")) {
  describe(`AnalyticsStore contract — ${impl.name}`, function () {
    this.timeout(30_000);
    let store: AnalyticsStore;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createAnalyticsStore(prepared.config);
      await store.migrate(); // a second run changes nothing
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    it("stores each event once by id, however often a batch is retried, and gives it back as written", async () => {
      const first = event(1, { experiments: { price_test: "b" }, liveEvents: ["spring_sale"] });
      const second = event(2, { userId: null, name: "client.tutorial_done", props: {} });
      await store.append([first, second]);
      await store.append([second, first, event(3)]); // a retry, partly new
      const found = await store.scan({ from: at(0), to: at(10), limit: 100 });
      assert.equal(found.length, 3);
      assert.deepEqual(found[0], first);
      assert.deepEqual(found[1], second);
    });

    it("scans [from, to) in (at, id) order, page after page, with nothing skipped or repeated", async () => {
      const sameMoment = Array.from({ length: 7 }, () => event(20));
      await store.append([...sameMoment, event(19), event(21), event(22)]);
      const seen: AnalyticsEvent[] = [];
      let after: { at: string; id: string } | undefined;
      for (;;) {
        const page = await store.scan({ from: at(20), to: at(22), after, limit: 3 });
        if (page.length === 0) break;
        seen.push(...page);
        after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
      }
      assert.equal(seen.length, 8);
      assert.deepEqual(seen.map((e) => e.id), [...sameMoment.map((e) => e.id).sort(), seen[7]!.id]);
      assert.equal(seen[7]!.at, at(21));
    });

    it("replaces a rollup row whole and reads rows of one app and platform by date", async () => {
      const row = (date: string, dau: number): DailyRow => ({ app: "default", platform: "all", date, dau, wau: dau, mau: dau, newPlayers: 1, sessions: 2, sessionSeconds: 90, payingPlayers: 1, revenue: { wechat_coins: 60 }, revenueCoins: 60, adViews: 3, softPurchases: 1, softSources: { gems: 50 }, softSinks: { gems: 20, gold: 5 } });
      await store.saveDaily([row("2026-03-01", 5), row("2026-03-02", 6), { ...row("2026-03-02", 9), platform: "wechat" }]);
      await store.saveDaily([row("2026-03-02", 7)]);
      const rows = await store.daily({ app: "default", platform: "all", from: "2026-03-01", to: "2026-03-03" });
      assert.deepEqual(rows, [row("2026-03-01", 5), row("2026-03-02", 7)]);
      const cohort: RetentionRow = { app: "default", platform: "all", date: "2026-03-01", size: 4, retained: { d1: 2, d3: 1, d7: null, d14: null, d30: null } };
      await store.saveRetention([cohort]);
      await store.saveRetention([{ ...cohort, retained: { ...cohort.retained, d7: 1 } }]);
      assert.deepEqual(await store.retention({ app: "default", platform: "all", from: "2026-03-01", to: "2026-03-01" }), [{ ...cohort, retained: { ...cohort.retained, d7: 1 } }]);
      assert.deepEqual(await store.retention({ app: "other", platform: "all", from: "2026-03-01", to: "2026-03-01" }), []);
    });

    it("two rollups writing the same rows at once leave one row each", async () => {
      const rows: DailyRow[] = Array.from({ length: 20 }, (_, i) => ({ app: "race", platform: "all", date: `2026-04-${String(i + 1).padStart(2, "0")}`, dau: i, wau: i, mau: i, newPlayers: 0, sessions: 0, sessionSeconds: 0, payingPlayers: 0, revenue: {}, revenueCoins: 0, adViews: 0, softPurchases: 0, softSources: {}, softSinks: {} }));
      await Promise.all([store.saveDaily(rows), store.saveDaily(rows), store.saveDaily(rows)]);
      assert.deepEqual(await store.daily({ app: "race", platform: "all", from: "2026-04-01", to: "2026-04-30" }), rows);
    });

    it("reads one player's events in (at, id) order, page by page, and no one else's", async () => {
      const player = `reader-${crypto.randomUUID()}`;
      const same = at(61);
      const mine = [event(62, { userId: player, name: "client.b" }), event(60, { userId: player, experiments: { t: "a" } }), { ...event(0, { userId: player }), at: same, id: "b" }, { ...event(0, { userId: player }), at: same, id: "a" }];
      await store.append([...mine, event(61, { userId: `${player}-other` }), event(63, { userId: null })]);
      const expected = [mine[1]!, mine[3]!, mine[2]!, mine[0]!];
      const first = await store.userEvents({ userId: player, limit: 2 });
      const second = await store.userEvents({ userId: player, after: { at: first[1]!.at, id: first[1]!.id }, limit: 2 });
      const rest = await store.userEvents({ userId: player, after: { at: second[1]!.at, id: second[1]!.id }, limit: 2 });
      assert.deepEqual([...first, ...second], expected);
      assert.deepEqual(rest, []);
      assert.deepEqual(await store.userEvents({ userId: "nobody", limit: 10 }), []);
    });

    it("deletes the events before an instant (the retention period), none at or after it", async () => {
      const old = (day: number) => event(0, { userId: "aged", at: new Date(Date.UTC(2020, 0, day)).toISOString() });
      await store.append([old(1), old(2), old(3), old(4)]);
      const cut = new Date(Date.UTC(2020, 0, 3)).toISOString();
      assert.equal(await store.deleteBefore(cut), 2);
      const left = await store.scan({ from: "2019-12-01T00:00:00.000Z", to: "2020-02-01T00:00:00.000Z", limit: 100 });
      assert.deepEqual(left.map((e) => e.at), [cut, new Date(Date.UTC(2020, 0, 4)).toISOString()]);
      assert.equal(await store.deleteBefore(cut), 0);
    });

    it("erases every event of one player and no one else's", async () => {
      await store.append([event(40, { userId: "gone" }), event(41, { userId: "gone" }), event(42, { userId: "stays" })]);
      await store.eraseUser("gone");
      const left = await store.scan({ from: at(40), to: at(50), limit: 100 });
      assert.deepEqual(left.map((e) => e.userId), ["stays"]);
    });
  });
}

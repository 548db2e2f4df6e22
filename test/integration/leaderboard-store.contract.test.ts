/**
 * One contract for the LeaderboardStore port over SQLite, PostgreSQL and MongoDB (FerretDB): the
 * operators hold under concurrent submissions of one player, rankings break ties by who reached the
 * score first, and every "once" (a period, a payout plan, a seat) is decided once however many race.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import type { LeaderboardStore, PeriodKey, Submission } from "../../src/core/ports/leaderboard-store";
import { storeImplementations } from "../support/store-configs";

const board = () => ({ app: "default", board: `b${crypto.randomBytes(4).toString("hex")}`, seq: 1 }) satisfies PeriodKey;
const entry = (userId: string, score: number, at: number, subscore = 0): Submission => ({ userId, name: `n-${userId}`, score, subscore, metadata: null, at });

for (const impl of storeImplementations("leaderboards")) {
  describe(`LeaderboardStore contract: ${impl.name}`, function () {
    this.timeout(60_000);
    let store: LeaderboardStore;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createLeaderboardStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    it("migrates again without harm", async () => {
      await store.migrate();
    });

    it("keeps the maximum of 50 concurrent best submissions of one player", async () => {
      const key = board();
      const scores = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
      const results = await Promise.all(scores.map((s, i) => store.submit(key, "desc", "best", entry("u1", s, 1000 + i))));
      const [record] = await store.find(key, ["u1"]);
      assert.equal(record.score, 49);
      assert.ok(results.some((r) => r.changed && r.record.score === 49));
      // On an ascending board the best is the minimum.
      const asc = board();
      await Promise.all(scores.map((s, i) => store.submit(asc, "asc", "best", entry("u1", s + 5, 1000 + i))));
      assert.equal((await store.find(asc, ["u1"]))[0].score, 5);
    });

    it("adds every one of 50 concurrent increments", async () => {
      const key = board();
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.submit(key, "desc", "increment", entry("u1", 2, 1000 + i))));
      const [record] = await store.find(key, ["u1"]);
      assert.equal(record.score, 100);
      assert.ok(record.version >= 50);
    });

    it("answers each of many players' submissions made at once with its own record, under every operator", async () => {
      const key = board();
      const totals = board();
      await Promise.all(Array.from({ length: 30 }, (_, i) => store.submit(key, "desc", "best", entry(`p${i}`, 100, 1000))));
      // At once: bests that beat, equal or fall short of the held 100, latest replacements, two increments of one player.
      const calls = Array.from({ length: 30 }, (_, i) => store.submit(key, "desc", "best", entry(`p${i}`, [150, 100, 50][i % 3], 2000 + i)));
      const latest = Array.from({ length: 10 }, (_, i) => store.submit(key, "desc", "latest", entry(`q${i}`, i, 2000)));
      const increments = [store.submit(totals, "desc", "increment", entry("t", 5, 2000)), store.submit(totals, "desc", "increment", entry("t", 7, 2001))];
      const results = await Promise.all(calls);
      results.forEach((r, i) => {
        assert.equal(r.record.userId, `p${i}`);
        assert.equal(r.changed, i % 3 === 0, `p${i}: changed only by a better score`);
        assert.equal(r.record.score, i % 3 === 0 ? 150 : 100);
        assert.equal(r.record.reachedAt, i % 3 === 0 ? 2000 + i : 1000);
      });
      assert.deepEqual((await Promise.all(latest)).map((r) => [r.record.userId, r.record.score, r.changed]), Array.from({ length: 10 }, (_, i) => [`q${i}`, i, true]));
      // Calls made at once have no order between them: either increment may come first.
      const answered = (await Promise.all(increments)).map((r) => r.record.score).sort((a, b) => a - b);
      assert.ok(JSON.stringify(answered) === "[5,12]" || JSON.stringify(answered) === "[7,12]", `each increment answers the total after it: ${answered}`);
      assert.equal((await store.find(totals, ["t"]))[0].score, 12);
    });

    it("tells the banned among many players checked at once", async () => {
      const { app, board: name } = board();
      await store.ban(app, name, "cheat1", 1000, "ops");
      await store.ban(app, name, "cheat2", 1000, "ops");
      const players = ["ok1", "cheat1", "ok2", "cheat2", "ok3"];
      assert.deepEqual(await Promise.all(players.map((p) => store.isBanned(app, name, p))), [false, true, false, true, false]);
      assert.equal(await store.isBanned(app, "other-board", "cheat1"), false);
    });

    it("replaces with latest, and a best that is not better changes nothing", async () => {
      const key = board();
      await store.submit(key, "desc", "latest", entry("u1", 10, 1000));
      const latest = await store.submit(key, "desc", "latest", entry("u1", 3, 2000));
      assert.equal(latest.record.score, 3);
      await store.submit(key, "desc", "best", entry("u2", 10, 1000, 5));
      const same = await store.submit(key, "desc", "best", entry("u2", 10, 3000, 5));
      assert.equal(same.changed, false);
      assert.equal(same.record.reachedAt, 1000);
      const higherSub = await store.submit(key, "desc", "best", entry("u2", 10, 4000, 6));
      assert.equal(higherSub.changed, true);
      assert.equal(higherSub.record.subscore, 6);
    });

    it("ranks by score, then subscore, then who reached it first; pages and counts agree", async () => {
      const key = board();
      await store.submit(key, "desc", "best", entry("late", 50, 3000));
      await store.submit(key, "desc", "best", entry("early", 50, 1000));
      await store.submit(key, "desc", "best", entry("sub", 50, 5000, 1));
      await store.submit(key, "desc", "best", entry("low", 10, 100));
      await store.submit(key, "desc", "best", entry("high", 90, 9000));
      const all = await store.top(key, "desc", 10);
      assert.deepEqual(all.map((r) => r.userId), ["high", "sub", "early", "late", "low"]);
      const first = await store.top(key, "desc", 2);
      const last = first[first.length - 1];
      const next = await store.top(key, "desc", 2, { score: last.score, subscore: last.subscore, reachedAt: last.reachedAt, userId: last.userId });
      assert.deepEqual(next.map((r) => r.userId), ["early", "late"]);
      const late = all[3];
      assert.equal(await store.countAhead(key, "desc", late), 3);
      assert.deepEqual((await store.before(key, "desc", late, 2)).map((r) => r.userId), ["early", "sub"]);
      assert.equal(await store.count(key), 5);
      assert.deepEqual((await store.find(key, ["low", "nobody", "high"])).map((r) => r.userId).sort(), ["high", "low"]);
      assert.equal(await store.remove(key, "low"), true);
      assert.equal(await store.remove(key, "low"), false);
      const scanned = [...(await store.scan(key, null, 2)), ...(await store.scan(key, "high", 10))];
      assert.deepEqual(scanned.map((r) => r.userId), ["early", "high", "late", "sub"]);
      const mine = await store.recordsOf("default", "early");
      assert.ok(mine.some((r) => r.board === key.board && r.record.score === 50));
    });

    it("keeps names and metadata", async () => {
      const key = board();
      const { record } = await store.submit(key, "asc", "best", { ...entry("u1", 7, 1000), name: "小明", metadata: { level: 3, tags: ["a"] } });
      assert.deepEqual({ name: record.name, metadata: record.metadata }, { name: "小明", metadata: { level: 3, tags: ["a"] } });
      assert.deepEqual((await store.find(key, ["u1"]))[0], record);
    });

    it("creates a period once however many claim it, and reads the newest", async () => {
      const { app, board: name } = board();
      assert.equal(await store.currentPeriod(app, name), null);
      const claims = await Promise.all(
        Array.from({ length: 20 }, () => store.claimPeriod(app, name, { seq: 1, startsAt: 1000, endsAt: 2000, closed: false, reason: "start", by: null })),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      await store.claimPeriod(app, name, { seq: 2, startsAt: 2000, endsAt: null, closed: true, reason: "manual", by: "ops" });
      assert.deepEqual(await store.currentPeriod(app, name), { seq: 2, startsAt: 2000, endsAt: null, closed: true, reason: "manual", by: "ops" });
      assert.equal((await store.period({ app, board: name, seq: 1 }))?.endsAt, 2000);
    });

    it("keeps the first payout plan and marks its end once", async () => {
      const key = board();
      const plans = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.claimPayoutPlan(key, { winners: [{ rank: 1, userId: `u${i}`, score: i }], createdAt: i })),
      );
      assert.equal(new Set(plans.map((p) => JSON.stringify(p))).size, 1);
      assert.equal(await store.payoutFinished(key), false);
      await Promise.all([store.finishPayout(key, 5), store.finishPayout(key, 6)]);
      assert.equal(await store.payoutFinished(key), true);
    });

    it("seats at most maxSize of many concurrent joiners, a player once", async () => {
      const key = board();
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.join(key, `p${i}`, 5, 1000)));
      assert.equal(outcomes.filter((o) => o === "joined").length, 5);
      assert.equal(await store.memberCount(key), 5);
      const member = `p${outcomes.indexOf("joined")}`;
      assert.equal(await store.join(key, member, 5, 2000), "joined");
      assert.equal(await store.isMember(key, member), true);
      assert.equal(await store.memberCount(key), 5);
      const open = board();
      await Promise.all([store.join(open, "a", null, 1), store.join(open, "a", null, 1)]);
      assert.equal(await store.memberCount(open), 1);
    });

    it("bans and unbans a player from one board", async () => {
      const { app, board: name } = board();
      await store.ban(app, name, "cheater", 1000, "ops");
      await store.ban(app, name, "cheater", 1001, "ops");
      assert.equal(await store.isBanned(app, name, "cheater"), true);
      assert.equal(await store.isBanned(app, `${name}x`, "cheater"), false);
      await store.unban(app, name, "cheater");
      assert.equal(await store.isBanned(app, name, "cheater"), false);
    });
  });
}

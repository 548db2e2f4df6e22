/**
 * Leaderboards over two processes on each store (SQLite file; PostgreSQL + Redis; MongoDB on
 * FerretDB + Redis): the operator rules hold when two processes submit at once, a period ends once
 * when both see it end, ranks 1–10 of 1,000 players are each rewarded once, and a process killed
 * (SIGKILL) in the middle of a payout leaves it to be finished after a restart, nobody paid twice.
 * Rewards are paid through the economy's ledger: a player paid twice would hold twice the gold.
 * Each paid player is told by exactly one mail per period, also when the payout was resumed.
 */
import assert from "node:assert/strict";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import type { EconomyStore } from "../../src/core/ports/economy-store";
import { createRewardStores, type RewardStores } from "../../src/adapters/store/create-reward-stores";
import { startLeaderboardWorker, type LeaderboardWorker } from "../support/leaderboard-workers";
import type { WorkerSettings } from "../support/leaderboard-worker";
import { storeImplementations } from "../support/store-configs";
import { testRedisUrl, uniquePrefix } from "../support/services";

/** A Wednesday noon in Shanghai, and just after the following Monday's midnight there. */
const WEDNESDAY = Date.parse("2026-11-25T12:00:00+08:00");
const AFTER_MONDAY = Date.parse("2026-11-30T00:00:01+08:00");
const season = (id: string) => ({ id, operator: "best", reset: "0 0 * * 1", rewards: [{ ranks: [1, 1], currencies: { gold: 100 } }, { ranks: [2, 10], currencies: { gold: 10 } }] });
const BOARDS = [{ id: "best", operator: "best" }, { id: "inc", operator: "increment" }, season("season")];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const top10 = Array.from({ length: 10 }, (_, i) => `p${String(999 - i).padStart(5, "0")}`);

for (const impl of storeImplementations("lb-processes")) {
  const withRedis = impl.name !== "SQLite" && testRedisUrl ? testRedisUrl : undefined;
  describe(`leaderboards over two processes: ${impl.name}${withRedis ? " + Redis" : ""}`, function () {
    this.timeout(180_000);
    let release: () => Promise<void>;
    let settings: Omit<WorkerSettings, "boards">;
    let a: LeaderboardWorker;
    let b: LeaderboardWorker;
    let economy: EconomyStore;
    let mailStore: RewardStores;
    const extra: LeaderboardWorker[] = [];

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      settings = { store: prepared.config, redisUrl: withRedis, prefix: uniquePrefix("lbproc"), now: WEDNESDAY, leaseMs: 1500 };
      [a, b] = await Promise.all([startLeaderboardWorker({ ...settings, boards: BOARDS }), startLeaderboardWorker({ ...settings, boards: BOARDS })]);
      economy = await createEconomyStore(prepared.config);
      mailStore = await createRewardStores(prepared.config);
    });
    after(async () => {
      await Promise.all([a, b, ...extra].map((w) => w?.kill()));
      await economy?.close();
      await mailStore?.close();
      await release?.();
    });

    it("50 concurrent best submissions from two processes keep the maximum; 50 increments add up", async () => {
      const scores = Array.from({ length: 50 }, (_, i) => (i * 31) % 50);
      await Promise.all(scores.map((score, i) => (i % 2 ? a : b).call({ op: "submit", userId: "u1", board: "best", score })));
      const kept = await b.call<{ score: number; rank: number }>({ op: "submit", userId: "u1", board: "best", score: 0 });
      assert.deepEqual([kept.score, kept.rank], [49, 1]);
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call({ op: "submit", userId: "u1", board: "inc", score: 3 })));
      const total = await a.call<{ score: number }>({ op: "submit", userId: "u1", board: "inc", score: 0 });
      assert.equal(total.score, 150);
    });

    it("a season ends once when both processes see its end; ranks 1–10 of 1,000 players are rewarded once", async () => {
      await Promise.all([a.call({ op: "seed", board: "season", from: 0, count: 500 }), b.call({ op: "seed", board: "season", from: 500, count: 500 })]);
      await Promise.all([a.call({ op: "now", value: AFTER_MONDAY }), b.call({ op: "now", value: AFTER_MONDAY })]);
      await Promise.all([a.call({ op: "tick" }), b.call({ op: "tick" }), a.call({ op: "tick" }), b.call({ op: "tick" })]);
      for (let i = 0; i < 50 && (await grantsOf("season:1:")).length < 10; i++) {
        await sleep(200);
        await Promise.all([a.call({ op: "tick" }), b.call({ op: "tick" })]);
      }
      const [pa, pb] = await Promise.all([a.call<{ seq: number; reason: string; startsAt: number }>({ op: "period", board: "season" }), b.call<{ seq: number }>({ op: "period", board: "season" })]);
      assert.deepEqual([pa.seq, pb.seq, pa.reason], [2, 2, "schedule"]);
      assert.equal(pa.startsAt, Date.parse("2026-11-30T00:00:00+08:00"));
      const grants = await grantsOf("season:1:");
      assert.deepEqual(grants.map((g) => g.userId).sort(), [...top10].sort());
      assert.deepEqual(grants.find((g) => g.userId === "p00999")?.currencies, { gold: 100 });
      assert.deepEqual(grants.find((g) => g.userId === "p00990")?.currencies, { gold: 10 });
      assert.equal(grants.filter((g) => g.source === "leaderboard").length, 10);
      assert.deepEqual(await Promise.all(["p00999", "p00995", "p00990", "p00989"].map(goldOf)), [100, 10, 10, 0]);
      assert.deepEqual(await mailCounts("season"), [...Array(10).fill(1), 0], "ranks 1–10 one mail each, rank 11 none");
      const [first] = await mailOf("p00999", "season");
      assert.deepEqual([first.title, first.attachments], ["season: rank 1", {}]);
      assert.match(first.body, /rank 1 of season \(period 1\).*100 gold/);
    });

    it("a process killed in the middle of a payout leaves it to the restarted one: each of ranks 1–10 paid once", async () => {
      const boards = [season("killed")];
      const doomed = await startLeaderboardWorker({ ...settings, boards, pauseAfterGrants: 4 });
      extra.push(doomed);
      // The 100 best of the season test's players: enough for ranks 1–11 (the 1,000-player period is the test above).
      await doomed.call({ op: "seed", board: "killed", from: 900, count: 100 });
      await doomed.call({ op: "now", value: AFTER_MONDAY });
      void doomed.call({ op: "tick" }).catch(() => undefined);
      assert.equal(await doomed.paused, 4);
      await doomed.kill();
      assert.equal((await grantsOf("killed:1:")).length, 4, "four grants were made before the kill");
      assert.deepEqual(await mailCounts("killed"), [1, 1, 1, 1, ...Array(7).fill(0)], "ranks 1–4 told before the kill");

      const restarted = await startLeaderboardWorker({ ...settings, boards, now: AFTER_MONDAY });
      extra.push(restarted);
      for (let i = 0; i < 50 && (await grantsOf("killed:1:")).length < 10; i++) {
        await restarted.call({ op: "tick" });
        await sleep(200);
      }
      const grants = await grantsOf("killed:1:");
      assert.deepEqual(grants.map((g) => g.userId).sort(), [...top10].sort());
      // The first season paid them already: each now holds exactly two seasons' gold, whoever paid.
      assert.deepEqual(await Promise.all(["p00999", "p00996", "p00990", "p00989"].map(goldOf)), [200, 20, 20, 0]);
      assert.deepEqual(await mailCounts("killed"), [...Array(10).fill(1), 0], "the resumed payout told ranks 5–10 and no one twice");
      const period = await restarted.call<{ seq: number }>({ op: "period", board: "killed" });
      assert.equal(period.seq, 2);
    });

    /** The ledger's grants of a board period among the 20 best seeded players and the worst. */
    async function grantsOf(prefix: string) {
      const candidates = [...Array.from({ length: 20 }, (_, i) => 980 + i), 0];
      const found = await Promise.all(
        candidates.map(async (n) => {
          const userId = `p${String(n).padStart(5, "0")}`;
          const entry = await economy.findBySource("default", "leaderboard", `${prefix}${userId}`);
          return entry ? { userId, source: entry.source, sourceId: entry.sourceId, currencies: entry.currencies } : null;
        }),
      );
      return found.filter((g) => g !== null);
    }
    /** The season mail of a board a player holds (sent by the payouts). */
    async function mailOf(userId: string, board: string) {
      const mail = await mailStore.listFor("default", userId, new Date(AFTER_MONDAY).toISOString(), 100);
      return mail.filter((m) => m.sender === "leaderboard" && m.title.startsWith(`${board}:`));
    }
    /** How many such mails ranks 1–11 (p00999 … p00989) hold. */
    const mailCounts = (board: string) => Promise.all(Array.from({ length: 11 }, (_, i) => mailOf(`p${String(999 - i).padStart(5, "0")}`, board).then((m) => m.length)));
    const goldOf = async (userId: string) => (await economy.state("default", userId)).balances.gold ?? 0;
  });
}

/**
 * The Redis rank index against the store it mirrors: ranks served from Redis equal the store's;
 * when Redis loses them (its keys flushed mid-period) the next read is still right (from the store)
 * and the index is rebuilt, also while players keep submitting during the rebuild.
 */
import assert from "node:assert/strict";
import Redis from "ioredis";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { MemoryRankIndex } from "../../src/adapters/cache/memory-rank-index";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import { parseBoards } from "../../src/config/settings/leaderboards";
import type { LeaderboardStore } from "../../src/core/ports/leaderboard-store";
import { LeaderboardService } from "../../src/services/leaderboards/leaderboard-service";
import { storeImplementations } from "../support/store-configs";
import { testRedisUrl, uniquePrefix } from "../support/services";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const parsed = parseBoards([{ id: "hs", operator: "best" }, { id: "low", order: "asc", operator: "latest" }], "boards");
if (!("boards" in parsed)) throw new Error("bad boards");

for (const impl of testRedisUrl ? storeImplementations("lb-index").filter((i) => i.name !== "MongoDB") : []) {
  describe(`rank index on Redis over ${impl.name}`, function () {
    this.timeout(60_000);
    const redisUrl = testRedisUrl!;
    const prefix = uniquePrefix("lbindex");
    let store: LeaderboardStore;
    let index: RedisRankIndex;
    let service: LeaderboardService;
    let redis: Redis;
    let release: () => Promise<void>;
    let now = Date.parse("2026-11-25T04:00:00Z");

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createLeaderboardStore(prepared.config);
      index = new RedisRankIndex(redisUrl, prefix);
      redis = new Redis(redisUrl);
      service = new LeaderboardService({
        boards: { default: parsed.boards },
        store,
        users: { findById: async (id: string) => ({ id, username: `user-${id}`, nickname: id === "u1" ? "小明" : null, status: 1 }) as never },
        cache: new MemoryCache(),
        index,
        logger: { info: () => undefined, warn: () => undefined },
        now: () => now++,
      });
    });
    after(async () => {
      await flush();
      redis?.disconnect();
      await index?.close();
      await store?.close();
      await release?.();
    });

    async function flush(): Promise<number> {
      let removed = 0;
      for (let cursor = "0"; ; ) {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (keys.length > 0) removed += await redis.del(...keys);
        cursor = next;
        if (cursor === "0") return removed;
      }
    }
    const key = (board: string) => ({ app: "default", board, seq: 1 });
    async function untilReady(board: string): Promise<void> {
      for (let i = 0; i < 200; i++) {
        if (await index.ready(key(board))) return;
        await service.top("default", board, { limit: 1 });
        await sleep(25);
      }
      throw new Error("the index was never rebuilt");
    }
    /** Every player's rank from Redis, and from the store, must agree. */
    async function assertAgrees(board: string, order: "asc" | "desc"): Promise<void> {
      const fromStore = await store.top(key(board), order, 1000);
      const fromIndex = await index.range(key(board), 0, 1000);
      assert.ok(fromIndex, "the index is ready");
      assert.deepEqual(fromIndex!.map((r) => [r.rank, r.record.userId, r.record.score]), fromStore.map((r, i) => [i + 1, r.userId, r.score]));
      // Around-me in one script: the same page as the store's ranking gives, at the edges too.
      const last = fromStore.length - 1;
      for (const at of [0, 1, 2, Math.floor(last / 2), last - 1, last]) {
        for (const limit of [1, 2, 5, 6]) {
          const start = Math.max(0, at - Math.floor((limit - 1) / 2));
          const expected = fromStore.slice(start, start + limit).map((r, i) => [start + i + 1, r.userId]);
          const around = await index.around(key(board), fromStore[at].userId, limit);
          assert.deepEqual(around?.map((r) => [r.rank, r.record.userId]), expected, `around rank ${at + 1}, limit ${limit}`);
        }
      }
      assert.deepEqual(await index.around(key(board), "nobody", 5), []);
    }

    it("serves the store's ranking, ties by who reached the score first", async () => {
      for (let i = 0; i < 120; i++) await service.submit("default", `p${i}`, "hs", i % 40);
      await service.submit("default", "u1", "hs", 39);
      await untilReady("hs");
      await assertAgrees("hs", "desc");
      const me = await service.me("default", "u1", "hs");
      assert.deepEqual([me.rank, me.score, me.name], [4, 39, "小明"]);
      for (let i = 0; i < 30; i++) await service.submit("default", `q${i}`, "low", 100 - i);
      await untilReady("low");
      await assertAgrees("low", "asc");
    });

    it("after Redis lost the ranks mid-period the next read is right, and the index is rebuilt while scores keep coming", async () => {
      assert.ok((await flush()) > 0);
      const me = await service.me("default", "u1", "hs");
      assert.deepEqual([me.rank, me.score], [4, 39]);
      const page = await service.top("default", "hs", { limit: 5 });
      assert.deepEqual(page.records.map((r) => r.score), [39, 39, 39, 39, 38]);
      // Submissions racing the rebuild: each is either scanned or applied after, newest version wins.
      await Promise.all(Array.from({ length: 60 }, (_, i) => service.submit("default", `p${i}`, "hs", 50 + i)));
      await untilReady("hs");
      await assertAgrees("hs", "desc");
      const top = await service.top("default", "hs", { limit: 1 });
      assert.deepEqual([top.records[0].userId, top.records[0].score], ["p59", 109]);
      const u1 = await service.me("default", "u1", "hs");
      assert.equal(u1.rank, 63, "60 raised players and the two who reached 39 first are ahead");
    });

    it("a removed record leaves the Redis ranks too", async () => {
      assert.equal(await service.removeRecord("default", "hs", "p59"), true);
      await assertAgrees("hs", "desc");
      await assert.rejects(service.me("default", "p59", "hs"), { code: "no_record" });
    });
  });
}

describe("rank index in the process's memory over SQLite (the embedded setup)", function () {
  this.timeout(60_000);
  let store: LeaderboardStore;
  let release: () => Promise<void>;
  let clock = Date.parse("2026-11-25T04:00:00Z");
  const index = new MemoryRankIndex(() => clock);
  let service: LeaderboardService;
  const key = { app: "default", board: "hs", seq: 1 };

  before(async () => {
    const prepared = await storeImplementations("lb-memindex")[0].prepare();
    release = prepared.release;
    store = await createLeaderboardStore(prepared.config);
    service = new LeaderboardService({
      boards: { default: parsed.boards },
      store,
      users: { findById: async (id: string) => ({ id, username: `user-${id}`, nickname: null, status: 1 }) as never },
      cache: new MemoryCache(),
      index,
      logger: { info: () => undefined, warn: () => undefined },
      now: () => clock++,
    });
  });
  after(async () => {
    await store?.close();
    await release?.();
  });

  it("ranks as the store does, follows this process's writes, and picks up another's at its refresh", async () => {
    for (let i = 0; i < 200; i++) await service.submit("default", `p${i}`, "hs", i % 50);
    await service.top("default", "hs", { limit: 1 });
    for (let i = 0; i < 50 && !(await index.ready(key)); i++) await sleep(10);
    const check = async () => {
      const fromStore = await store.top(key, "desc", 1000);
      const fromIndex = await index.range(key, 0, 1000);
      assert.deepEqual(fromIndex!.map((r) => [r.rank, r.record.userId]), fromStore.map((r, i) => [i + 1, r.userId]));
    };
    await check();
    await Promise.all(Array.from({ length: 40 }, (_, i) => service.submit("default", `p${i * 5}`, "hs", 100 + i)));
    await check();
    assert.equal((await service.me("default", "p195", "hs")).rank, 1);
    // Another process (the admin CLI) removes a record in the store only: seen after the refresh.
    await store.remove(key, "p195");
    assert.equal((await service.me("default", "p195", "hs")).rank, 1, "served as it was until the refresh");
    clock += 6000;
    await service.top("default", "hs", { limit: 1 });
    for (let i = 0; i < 100 && (await index.ranksOf(key, ["p195"]))!.length > 0; i++) await sleep(10);
    await assert.rejects(service.me("default", "p195", "hs"), { code: "no_record" });
    await check();
  });
});

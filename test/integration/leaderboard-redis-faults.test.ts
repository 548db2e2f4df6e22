/**
 * The leaderboards while the Redis of the rank index is unreachable (a TCP proxy this test owns
 * between the index and the shared Redis, which is never stopped): cut (connections reset), silent
 * with the bytes held, silent with the bytes lost. Top, around-me, me and submissions must answer
 * from the store, right and soon, never hang; a score submitted meanwhile must be in the index once
 * Redis answers again, and the index must answer right after the restore (never a reply meant for
 * another command).
 */
import assert from "node:assert/strict";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import { parseBoards } from "../../src/config/settings/leaderboards";
import type { LeaderboardStore } from "../../src/core/ports/leaderboard-store";
import { LeaderboardService } from "../../src/services/leaderboards/leaderboard-service";
import { storeImplementations } from "../support/store-configs";
import { testRedisUrl, uniquePrefix } from "../support/services";
import { TcpProxy } from "../support/tcp-proxy";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const parsed = parseBoards([{ id: "hs", operator: "best" }], "boards");
if (!("boards" in parsed)) throw new Error("bad boards");
const BOARDS = parsed.boards;
const key = { app: "default", board: "hs", seq: 1 };
const impl = storeImplementations("lb-redis-faults").find((i) => i.name === "PostgreSQL") ?? storeImplementations("lb-redis-faults")[0];
/** Generous for a loaded machine; a command timeout (2 s) per index call is what it must not wait. */
const SOON_MS = 1500;

(testRedisUrl ? describe : describe.skip)(`leaderboards on ${impl.name} while the index's Redis is unreachable`, function () {
  this.timeout(120_000);
  let store: LeaderboardStore;
  let proxy: TcpProxy;
  let index: RedisRankIndex;
  let direct: RedisRankIndex;
  let service: LeaderboardService;
  let release: () => Promise<void>;
  const warnings: string[] = [];

  before(async () => {
    const prepared = await impl.prepare();
    release = prepared.release;
    store = await createLeaderboardStore(prepared.config);
    const url = new URL(testRedisUrl!);
    proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379));
    const prefix = uniquePrefix("lbfaults");
    url.host = `127.0.0.1:${proxy.port}`;
    index = new RedisRankIndex(url.toString(), prefix);
    direct = new RedisRankIndex(testRedisUrl!, prefix);
    service = new LeaderboardService({
      boards: { default: BOARDS },
      store,
      users: { findById: async (id: string) => ({ id, username: id, nickname: null, status: 1 }) as never },
      cache: new MemoryCache(),
      index,
      logger: { info: () => undefined, warn: (_o, msg) => void warnings.push(msg) },
    });
    for (let i = 0; i < 40; i++) await service.submit("default", `p${String(i).padStart(2, "0")}`, "hs", i * 10);
    for (let i = 0; i < 100 && !(await index.ready(key)); i++) {
      await service.top("default", "hs", { limit: 1 });
      await sleep(20);
    }
    assert.ok(await index.ready(key));
  });
  after(async () => {
    await index?.close();
    await direct?.close();
    await proxy?.close();
    await store?.close();
    await release?.();
  });

  async function soon<T>(what: string, call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const answer = await call();
    const took = Date.now() - started;
    assert.ok(took < SOON_MS, `${what} took ${took} ms`);
    return answer;
  }

  /** The store's ranking: [rank, userId] of every record. */
  async function truth(): Promise<Array<[number, string]>> {
    return (await store.top(key, "desc", 100)).map((r, i) => [i + 1, r.userId]);
  }

  /** Every read right (from the store) and a new best accepted, each soon; then Redis is back. */
  async function duringFault(fault: () => void, newBest: number): Promise<void> {
    const ranking = await truth();
    fault();
    await sleep(50);
    const top = await soon("top", () => service.top("default", "hs", { limit: 3 }));
    assert.deepEqual(top.records.map((r) => [r.rank, r.userId]), ranking.slice(0, 3));
    const around = await soon("around-me", () => service.aroundMe("default", "p20", "hs", { limit: 3 }));
    const at = ranking.findIndex(([, id]) => id === "p20");
    assert.deepEqual(around.records.map((r) => [r.rank, r.userId]), ranking.slice(at - 1, at + 2));
    const submitted = await soon("submit", () => service.submit("default", "p00", "hs", newBest));
    assert.equal(submitted.rank, 1);
    const me = await soon("me", () => service.me("default", "p00", "hs"));
    assert.deepEqual([me.rank, me.score], [1, newBest]);
    proxy.restore();
  }

  /** After the restore: the index holds the score submitted during the fault and answers right. */
  async function afterRestore(newBest: number): Promise<void> {
    let held: number | undefined;
    for (let i = 0; i < 100; i++) {
      await service.me("default", "p00", "hs").catch(() => undefined);
      await service.tick();
      held = (await direct.ranksOf(key, ["p00"]))?.[0]?.record.score;
      if (held === newBest) break;
      await sleep(50);
    }
    assert.equal(held, newBest, "the score submitted while Redis was away reached the index");
    assert.ok(await direct.ready(key));
    // The service's own connection answers again (not left failing over to the store for good).
    const range = await soon("the index's first read", () => index.range(key, 0, 1));
    assert.deepEqual(range?.map((r) => [r.rank, r.record.userId]), [[1, "p00"]]);
    // Served from the index again, and right: each answer is its own command's.
    for (let i = 0; i < 5; i++) {
      const [top, me, around] = await Promise.all([
        service.top("default", "hs", { limit: 2 }),
        service.me("default", "p20", "hs"),
        service.aroundMe("default", "p30", "hs", { limit: 1 }),
      ]);
      assert.deepEqual(top.records.map((r) => [r.rank, r.userId, r.score]), [[1, "p00", newBest], [2, "p39", 390]]);
      assert.deepEqual([me.rank, me.score], [21, 200]);
      assert.deepEqual(around.records.map((r) => [r.rank, r.userId]), [[11, "p30"]]);
    }
  }

  it("connections reset: answers from the store, and catches up when Redis is back", async () => {
    await duringFault(() => proxy.cut(), 1000);
    await afterRestore(1000);
  });

  it("Redis silent, bytes held: answers from the store soon, and catches up", async () => {
    await duringFault(() => proxy.silence("hold"), 1001);
    await afterRestore(1001);
  });

  it("Redis silent, bytes lost: answers from the store soon, and the index answers right afterwards", async () => {
    await duringFault(() => proxy.silence("drop"), 1002);
    await afterRestore(1002);
  });

  it("a record removed while Redis is away is gone from the index once it is back", async () => {
    proxy.cut();
    assert.equal(await soon("remove", () => service.removeRecord("default", "hs", "p01")), true);
    await assert.rejects(service.me("default", "p01", "hs"), { code: "no_record" });
    proxy.restore();
    let ranks: Array<{ record: { userId: string } }> | null = null;
    for (let i = 0; i < 100; i++) {
      await service.tick();
      await service.top("default", "hs", { limit: 1 });
      ranks = await direct.range(key, 0, 100);
      if (ranks && !ranks.some((r) => r.record.userId === "p01")) break;
      await sleep(50);
    }
    assert.ok(ranks, "the index is ready again");
    assert.deepEqual(ranks.map((r) => r.record.userId), (await truth()).map(([, id]) => id), "rebuilt from the store, without p01");
  });
});

/**
 * Old periods in the Redis rank index (real Redis, the service's clock set by hand): once a period
 * has ended and its rewards are paid, its keys get an expiry counted from the period's end plus the
 * retention, also when they are rebuilt later; the current period's keys never expire; past the
 * retention, reads of the old period answer from the store and index nothing again; the payout
 * reads the store, so an index that is gone changes no reward.
 */
import assert from "node:assert/strict";
import Redis from "ioredis";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { MemoryRankIndex } from "../../src/adapters/cache/memory-rank-index";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import { parseBoards } from "../../src/config/settings/leaderboards";
import type { LeaderboardStore } from "../../src/core/ports/leaderboard-store";
import type { RewardGrant } from "../../src/core/ports/reward-grants";
import { LeaderboardService } from "../../src/services/leaderboards/leaderboard-service";
import { storeImplementations } from "../support/store-configs";
import { testRedisUrl, uniquePrefix } from "../support/services";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DAY = 24 * 3600_000;
const RETENTION = 3 * DAY;
/** A Wednesday in Shanghai; the Monday midnight that ends its week; the Monday after. */
const WEDNESDAY = Date.parse("2026-11-25T12:00:00+08:00");
const MONDAY = Date.parse("2026-11-30T00:00:00+08:00");
const NEXT_MONDAY = MONDAY + 7 * DAY;
const parsed = parseBoards(
  [
    { id: "season", operator: "best", reset: "0 0 * * 1", rewards: [{ ranks: [1, 3], currencies: { gems: 5 } }] },
    { id: "plain", operator: "best" },
  ],
  "boards",
);
if (!("boards" in parsed)) throw new Error("bad boards");
const BOARDS = parsed.boards;
const impl = storeImplementations("lb-retention").find((i) => i.name === "PostgreSQL") ?? storeImplementations("lb-retention")[0];

(testRedisUrl ? describe : describe.skip)(`rank index retention of ended periods on Redis over ${impl.name}`, function () {
  this.timeout(60_000);
  const prefix = uniquePrefix("lbretain");
  let store: LeaderboardStore;
  let redis: Redis;
  let release: () => Promise<void>;
  let now = WEDNESDAY;
  const grants: RewardGrant[] = [];
  const services: Array<{ index: RedisRankIndex; service: LeaderboardService }> = [];

  /** A process: its own index connection, the shared clock. */
  function start(): { index: RedisRankIndex; service: LeaderboardService } {
    const index = new RedisRankIndex(testRedisUrl!, prefix);
    const service = new LeaderboardService({
      boards: { default: BOARDS },
      store,
      users: { findById: async (id: string) => ({ id, username: id, nickname: null, status: 1 }) as never },
      cache: new MemoryCache(),
      index,
      granter: { grant: async (g) => (grants.push(g), { granted: true, balances: {}, items: [] }) },
      logger: { info: () => undefined, warn: () => undefined },
      now: () => now,
      periodRetentionMs: RETENTION,
    });
    services.push({ index, service });
    return { index, service };
  }

  before(async () => {
    const prepared = await impl.prepare();
    release = prepared.release;
    store = await createLeaderboardStore(prepared.config);
    redis = new Redis(testRedisUrl!);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
    for (const s of services) await s.index.close();
    await store?.close();
    await release?.();
  });

  const keysOf = (board: string, seq: number) => ["z", "h", "ready"].map((k) => `${prefix}lb:{default:${board}:${seq}}:${k}`);
  const ttls = (board: string, seq: number) => Promise.all(keysOf(board, seq).map((k) => redis.pttl(k)));
  async function untilReady(index: RedisRankIndex, service: LeaderboardService, board: string, seq: number, period: "current" | "previous"): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await index.ready({ app: "default", board, seq })) return;
      await service.top("default", board, { limit: 1, period });
      await sleep(20);
    }
    throw new Error(`the index of ${board} ${seq} was never built`);
  }
  const scores = (records: Array<{ userId: string; score: number }>) => records.map((r) => `${r.userId}=${r.score}`);

  it("gives an ended, paid period's keys the retention from its end, and the current period's none", async () => {
    const { index, service } = start();
    for (let i = 0; i < 30; i++) await service.submit("default", `p${i}`, "season", i);
    await untilReady(index, service, "season", 1, "current");
    assert.deepEqual(await ttls("season", 1), [-1, -1, -1], "a running period's keys stay");

    now = MONDAY + 1000;
    await service.tick();
    assert.deepEqual(grants.map((g) => g.userId), ["p29", "p28", "p27"], "period 1 paid from the store");
    for (const ttl of await ttls("season", 1)) assert.ok(ttl > RETENTION - 2000 && ttl <= RETENTION - 1000, `expires 3 days after the period's end, not ${ttl} ms from now`);
    await service.submit("default", "q1", "season", 5);
    await untilReady(index, service, "season", 2, "current");
    assert.deepEqual(await ttls("season", 2), [-1, -1, -1]);

    // Read for display within the retention: from the index, as the store ranks it.
    const previous = await service.top("default", "season", { limit: 5, period: "previous" });
    assert.deepEqual(scores(previous.records), ["p29=29", "p28=28", "p27=27", "p26=26", "p25=25"]);
  });

  it("an ended period's index rebuilt within its retention expires too", async () => {
    const { index, service } = services[0];
    await redis.del(...keysOf("season", 1));
    now = MONDAY + DAY;
    assert.deepEqual(scores((await service.top("default", "season", { limit: 2, period: "previous" })).records), ["p29=29", "p28=28"]);
    await untilReady(index, service, "season", 1, "previous");
    for (const ttl of await ttls("season", 1)) assert.ok(ttl > RETENTION - DAY - 2000 && ttl <= RETENTION - DAY, `rebuilt keys expire at the same time (${ttl})`);
  });

  it("past the retention, reads of the old period answer from the store and index nothing again", async () => {
    // A process that first sees the ended period just before its retention ends: Redis lets it go soon.
    now = MONDAY + RETENTION - 300;
    const late = start();
    await late.service.tick();
    const left = await ttls("season", 1);
    assert.ok(left.every((ttl) => ttl > 0 && ttl <= 300), `a short expiry: ${left}`);
    await sleep(600);
    assert.deepEqual(await ttls("season", 1), [-2, -2, -2], "the old period's keys are gone");

    now = MONDAY + RETENTION + 1000;
    for (const { service } of services) {
      const page = await service.top("default", "season", { limit: 3, period: "previous" });
      assert.deepEqual(scores(page.records), ["p29=29", "p28=28", "p27=27"]);
      assert.equal((await service.me("default", "p0", "season", { period: "previous" })).rank, 30);
      assert.deepEqual((await service.aroundMe("default", "p10", "season", { limit: 3, period: "previous" })).records.map((r) => r.rank), [19, 20, 21]);
    }
    await sleep(300);
    assert.deepEqual(await ttls("season", 1), [-2, -2, -2], "not rebuilt");

    // A process past the retention that sees keys without an expiry (left by an older version) removes them.
    await redis.set(keysOf("season", 1)[2], "1");
    await start().service.tick();
    assert.deepEqual(await ttls("season", 1), [-2, -2, -2]);
  });

  it("pays a period whose index is gone from the store's ranking", async () => {
    const { service } = services[0];
    for (let i = 0; i < 5; i++) await service.submit("default", `r${i}`, "season", 100 + i);
    await redis.del(...keysOf("season", 2));
    grants.length = 0;
    now = NEXT_MONDAY + 1000;
    await service.tick();
    assert.deepEqual(grants.map((g) => [g.userId, g.sourceId]), [["r4", "season:2:r4"], ["r3", "season:2:r3"], ["r2", "season:2:r2"]]);
  });

  it("a board that neither resets nor pays: a manual reset gives the ended period its expiry", async () => {
    const { index, service } = services[0];
    await service.submit("default", "p1", "plain", 1);
    await untilReady(index, service, "plain", 1, "current");
    await service.reset("default", "plain", "test");
    for (const ttl of await ttls("plain", 1)) assert.ok(ttl > RETENTION - 1000 && ttl <= RETENTION, `${ttl}`);
  });
});

describe("rank index retention in the process's memory", () => {
  it("forgets an expired period", async () => {
    let clock = WEDNESDAY;
    const index = new MemoryRankIndex(() => clock);
    const key = { app: "default", board: "b", seq: 1 };
    const token = (await index.startBuild(key))!;
    await index.apply(key, "desc", [{ userId: "u", score: 1, subscore: 0, name: "u", metadata: null, reachedAt: clock, updatedAt: clock, version: 1 }]);
    await index.finishBuild(key, token, 1000);
    assert.equal((await index.range(key, 0, 10))?.length, 1);
    clock += 1001;
    assert.equal(await index.range(key, 0, 10), null);
    assert.equal(await index.ready(key), false);
  });
});

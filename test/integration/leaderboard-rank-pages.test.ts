/**
 * The pages of ranks a process keeps (rank-page-cache.ts): a read answered "same version" serves
 * the page held, and every write through any process's index — a new record, a removal, a rebuild
 * after the keys were lost, an expiry — makes every other process read the page out again.
 * Two RedisRankIndex instances stand for two processes on one Redis.
 */
import assert from "node:assert/strict";
import Redis from "ioredis";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import type { LeaderboardRecord } from "../../src/core/ports/leaderboard-store";
import { testRedisUrl, uniquePrefix } from "../support/services";

const describeRedis = testRedisUrl ? describe : describe.skip;

describeRedis("rank pages kept per process on Redis", function () {
  this.timeout(20_000);
  const prefix = uniquePrefix("lbpages");
  const key = { app: "default", board: "hs", seq: 1 };
  const tag = `${prefix}lb:{default:hs:1}`;
  let a: RedisRankIndex;
  let b: RedisRankIndex;
  let redis: Redis;
  let version = 1;

  const record = (userId: string, score: number, name = userId): LeaderboardRecord => ({
    userId,
    name,
    score,
    subscore: 0,
    metadata: null,
    reachedAt: 1_000 + score,
    updatedAt: 1_000 + score,
    version: version++,
  });
  const names = async (index: RedisRankIndex) => (await index.range(key, 0, 3))?.map((r) => `${r.rank}:${r.record.name}:${r.record.score}`) ?? null;

  async function build(index: RedisRankIndex, records: LeaderboardRecord[]): Promise<void> {
    const token = await index.startBuild(key, 10_000);
    assert.ok(token, "the build was claimed");
    await index.apply(key, "desc", records);
    assert.equal(await index.finishBuild(key, token), true);
  }

  before(async () => {
    redis = new Redis(testRedisUrl!);
    a = new RedisRankIndex(testRedisUrl!, prefix);
    b = new RedisRankIndex(testRedisUrl!, prefix);
    await build(b, [record("p1", 30), record("p2", 20), record("p3", 10)]);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await a.close();
    await b.close();
  });

  it("serves the page it holds while the index's version is the same", async () => {
    assert.deepEqual(await names(a), ["1:p1:30", "2:p2:20", "3:p3:10"]);
    // Changed behind the index's back (no write through it): the held page is what answers.
    const held = JSON.parse((await redis.hget(`${tag}:h`, "p1"))!) as LeaderboardRecord;
    await redis.hset(`${tag}:h`, "p1", JSON.stringify({ ...held, name: "renamed-unseen" }));
    assert.deepEqual(await names(a), ["1:p1:30", "2:p2:20", "3:p3:10"]);
    await redis.hset(`${tag}:h`, "p1", JSON.stringify(held));
  });

  it("reads the page again after another process's new record", async () => {
    assert.deepEqual(await names(a), ["1:p1:30", "2:p2:20", "3:p3:10"]);
    await b.apply(key, "desc", [record("p4", 25)]);
    assert.deepEqual(await names(a), ["1:p1:30", "2:p4:25", "3:p2:20"]);
  });

  it("keeps the page when a write changed nothing (an older version)", async () => {
    const before = await redis.get(`${tag}:v`);
    await b.apply(key, "desc", [{ ...record("p4", 99), version: 1 }]);
    assert.equal(await redis.get(`${tag}:v`), before, "no record changed: the version stays");
    assert.deepEqual(await names(a), ["1:p1:30", "2:p4:25", "3:p2:20"]);
  });

  it("reads the page again after another process's removal", async () => {
    await b.remove(key, "p1");
    assert.deepEqual(await names(a), ["1:p4:25", "2:p2:20", "3:p3:10"]);
  });

  it("reads nothing while the keys are lost, and the rebuilt index after, even with the same ranks", async () => {
    assert.ok(await names(a));
    await redis.del(...(await redis.keys(`${prefix}*`)));
    assert.equal(await names(a), null, "not ready: the caller reads the store");
    await build(b, [record("p4", 25, "after-flush"), record("p2", 20), record("p3", 10)]);
    assert.deepEqual(await names(a), ["1:after-flush:25", "2:p2:20", "3:p3:10"]);
  });

  it("gives the version the period's expiry, and takes it with the period", async () => {
    await a.expire(key, 60_000);
    const ttl = await redis.pttl(`${tag}:v`);
    assert.ok(ttl > 0 && ttl <= 60_000, `the version expires with the period (pttl ${ttl})`);
    await b.apply(key, "desc", [record("p5", 40)]);
    assert.ok((await redis.pttl(`${tag}:v`)) > 0, "a write into an expiring period keeps the version expiring");
    assert.deepEqual(await names(a), ["1:p5:40", "2:after-flush:25", "3:p2:20"]);
    await b.expire(key, 0);
    assert.equal(await redis.exists(`${tag}:v`), 0);
    assert.equal(await names(a), null);
  });
});

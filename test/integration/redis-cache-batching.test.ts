/**
 * The Redis cache sends the commands its callers issue in one event-loop turn as one write: under
 * load, a process's logins, session checks and room joins share system calls instead of paying
 * one each. Order, results and errors stay per command.
 */
import assert from "node:assert/strict";
import type net from "node:net";
import { RedisCache } from "../../src/adapters/cache/redis-cache";
import { testRedisUrl, uniquePrefix } from "../support/services";

const describeRedis = testRedisUrl ? describe : describe.skip;

describeRedis("RedisCache: one write per turn (Redis)", function () {
  this.timeout(10_000);
  let cache: RedisCache;

  beforeEach(async () => {
    cache = new RedisCache(testRedisUrl!, { keyPrefix: uniquePrefix("batching") });
    await cache.waitUntilReady(5000);
  });
  afterEach(async () => {
    await cache.close();
  });

  /** Counts the writes on the cache's socket while `fn` runs. */
  async function writesDuring(fn: () => Promise<void>): Promise<number> {
    const stream = (cache as unknown as { redis: { stream: net.Socket } }).redis.stream;
    let writes = 0;
    const write = stream.write;
    stream.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
      writes++;
      return write.apply(this, args);
    } as net.Socket["write"];
    try {
      await fn();
    } finally {
      stream.write = write;
    }
    return writes;
  }

  it("sends the commands of one turn in one write, each with its own result, in order", async () => {
    const writes = await writesDuring(async () => {
      const results = await Promise.all([
        cache.set("a", "1", 60),
        cache.setMany([
          { key: "b", value: "2", ttlSec: 60 },
          { key: "c", value: "3", ttlSec: 60 },
        ]),
        cache.get("a"),
        cache.increment("n", 60),
        cache.get("missing"),
      ]);
      assert.equal(results[2], "1", "a read issued after a write in the same turn sees it");
      assert.equal(results[3].count, 1);
      assert.equal(results[4], null);
    });
    assert.equal(writes, 1);
    assert.deepEqual(await Promise.all([cache.get("b"), cache.get("c")]), ["2", "3"]);
  });

  it("sends a command awaited on its own at the end of its turn, as one write", async () => {
    const writes = await writesDuring(async () => {
      await cache.set("x", "1", 60);
      assert.equal(await cache.get("x"), "1");
    });
    assert.equal(writes, 2);
  });
});

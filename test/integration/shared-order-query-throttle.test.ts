/**
 * The item-order query throttle in the shared cache: two processes (two throttles over one cache)
 * count together, on the in-memory cache and on Redis. The limits are the in-process throttle's.
 */
import assert from "node:assert/strict";
import type { Cache } from "../../src/core/ports/cache";
import { createCache } from "../../src/adapters/cache/create-cache";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { SharedOrderQueryThrottle } from "../../src/services/payments/order-query-throttle";
import { testRedisUrl, uniquePrefix } from "../support/services";

const caches: Array<{ name: string; open(): Promise<{ cache: Cache; close(): Promise<void> }>; skip?: string }> = [
  { name: "in-memory cache", open: async () => ({ cache: new MemoryCache(), close: async () => undefined }) },
  {
    name: "Redis",
    skip: testRedisUrl ? undefined : "TEST_REDIS_URL is not set",
    open: async () => {
      const cache = await createCache({ kind: "redis", url: testRedisUrl! }, uniquePrefix("oqt"));
      return { cache, close: () => cache.close() };
    },
  },
];

for (const backend of caches) {
  (backend.skip ? describe.skip : describe)(`shared item-order query throttle: ${backend.name}`, () => {
    let opened: { cache: Cache; close(): Promise<void> };
    before(async () => {
      opened = await backend.open();
    });
    after(() => opened?.close());

    it("lets one query per player and orderId through, whichever process asks", async () => {
      const a = new SharedOrderQueryThrottle(opened.cache, { perOrderMs: 5_000 });
      const b = new SharedOrderQueryThrottle(opened.cache, { perOrderMs: 5_000 });
      const answers = await Promise.all([a.allow("u1", "ord"), b.allow("u1", "ord"), a.allow("u1", "ord"), b.allow("u1", "ord")]);
      assert.equal(answers.filter(Boolean).length, 1, String(answers));
      assert.equal(await b.allow("u1", "other"), true, "another orderId has its own window");
      assert.equal(await a.allow("u2", "ord"), true, "another player has their own");
    });

    it("caps a player's queries over every orderId and process; polling one order spends none of it", async () => {
      const a = new SharedOrderQueryThrottle(opened.cache, { perPlayerMax: 3, perPlayerMs: 60_000 });
      const b = new SharedOrderQueryThrottle(opened.cache, { perPlayerMax: 3, perPlayerMs: 60_000 });
      assert.equal(await a.allow("cap", "x"), true);
      for (let i = 0; i < 10; i++) assert.equal(await b.allow("cap", "x"), false);
      assert.deepEqual([await b.allow("cap", "y"), await a.allow("cap", "z"), await b.allow("cap", "w")], [true, true, false]);
    });
  });
}

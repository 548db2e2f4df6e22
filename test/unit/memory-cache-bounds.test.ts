/**
 * The in-memory cache holds at most maxEntries keys, so a flood of distinct keys (spoofed
 * addresses, made-up user names) costs bounded memory: expired keys go first, then the oldest.
 */
import assert from "node:assert/strict";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";

describe("MemoryCache bounds", () => {
  let clock = 1_700_000_000_000;
  let cache: MemoryCache;
  beforeEach(() => {
    clock = 1_700_000_000_000;
    cache = new MemoryCache({ now: () => clock, maxEntries: 3 });
  });
  afterEach(() => cache.close());

  it("never holds more than maxEntries keys, whatever is written", async () => {
    for (let i = 0; i < 1000; i++) await cache.increment(`rate:ip:login:10.0.${i >> 8}.${i & 255}`, 60);
    const held = (cache as unknown as { slots: Map<string, unknown> }).slots.size;
    assert.equal(held, 3);
  });

  it("evicts expired keys before live ones", async () => {
    await cache.set("short", "1", 1);
    await cache.set("a", "1", 60);
    await cache.set("b", "1", 60);
    clock += 2000;
    await cache.set("c", "1", 60);
    assert.deepEqual(await Promise.all(["a", "b", "c"].map((k) => cache.get(k))), ["1", "1", "1"]);
  });

  it("evicts the oldest-written key when every key is live, and a rewrite makes a key young", async () => {
    await cache.set("session", "s1", 60);
    await cache.set("flood1", "1", 60);
    await cache.set("flood2", "1", 60);
    await cache.set("session", "s2", 60); // a refresh rewrites the player's key
    await cache.set("flood3", "1", 60);
    assert.equal(await cache.get("flood1"), null);
    assert.equal(await cache.get("session"), "s2");
  });
});

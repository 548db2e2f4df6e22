/**
 * The in-memory cache bounds what it holds, in two kinds apart: counters and locks (what a client
 * can multiply at will: spoofed addresses, made-up user names) and values (sessions, session keys,
 * platform tokens: written only after something succeeded). Each kind drops expired keys first,
 * then its own oldest; a flood of one kind never evicts the other.
 */
import assert from "node:assert/strict";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";

describe("MemoryCache bounds", () => {
  let clock = 1_700_000_000_000;
  let cache: MemoryCache;
  const warnings: { obj: object; msg: string }[] = [];
  const held = (c: MemoryCache) => {
    const inside = c as unknown as { values: { slots: Map<string, unknown> }; counters: { slots: Map<string, unknown> } };
    return { values: inside.values.slots.size, counters: inside.counters.slots.size };
  };
  beforeEach(() => {
    clock = 1_700_000_000_000;
    warnings.length = 0;
    cache = new MemoryCache({ now: () => clock, maxValues: 3, maxCounters: 3, logger: { warn: (obj, msg) => void warnings.push({ obj, msg }) } });
  });
  afterEach(() => cache.close());

  it("never holds more counters than its bound, whatever is written", async () => {
    for (let i = 0; i < 1000; i++) await cache.increment(`rate:ip:login:10.0.${i >> 8}.${i & 255}`, 60);
    for (let i = 0; i < 1000; i++) await cache.setIfAbsent(`lock:${i}`, "owner", 60_000);
    assert.deepEqual(held(cache), { values: 0, counters: 3 });
  });

  it("a flood of counters never evicts a session, and a flood of values never evicts a counter", async () => {
    await cache.setMany([
      { key: "access_token:u1", value: "a1", ttlSec: 7200 },
      { key: "refresh_token:u1", value: "r1", ttlSec: 86_400 },
    ]);
    await cache.increment("login_attempts:u1", 300);
    for (let i = 0; i < 1000; i++) await cache.increment(`login_attempts:made-up-${i}`, 300);
    assert.equal(await cache.get("access_token:u1"), "a1");
    assert.equal(await cache.get("refresh_token:u1"), "r1");

    await cache.increment("rate:ip:login:10.0.0.1", 60);
    for (let i = 0; i < 10; i++) await cache.set(`platform_access_token:p${i}`, "t", 60);
    assert.deepEqual(await cache.increment("rate:ip:login:10.0.0.1", 60).then((r) => r.count), 2);
    assert.deepEqual(held(cache), { values: 3, counters: 3 });
  });

  it("evicts expired keys before live ones", async () => {
    await cache.set("short", "1", 1);
    await cache.set("a", "1", 60);
    await cache.set("b", "1", 60);
    clock += 2000;
    await cache.set("c", "1", 60);
    assert.deepEqual(await Promise.all(["a", "b", "c"].map((k) => cache.get(k))), ["1", "1", "1"]);
    assert.equal(warnings.length, 0, "nothing live was dropped");
  });

  it("evicts the oldest-written value when every value is live, a rewrite makes a key young, and says so", async () => {
    await cache.set("session", "s1", 600);
    await cache.set("old1", "1", 600);
    await cache.set("old2", "1", 600);
    await cache.set("session", "s2", 600); // a refresh rewrites the player's key
    await cache.set("new1", "1", 600);
    assert.equal(await cache.get("old1"), null);
    assert.equal(await cache.get("session"), "s2");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].msg, /live sessions are being dropped.*REDIS_URL/);

    await cache.set("new2", "1", 600);
    assert.equal(warnings.length, 1, "at most one warning a minute");
    clock += 60_000;
    await cache.set("new3", "1", 600);
    assert.equal(warnings.length, 2);
    assert.deepEqual(warnings[1].obj, { maxValues: 3, evicted: 2 }, "counts the evictions it did not report");
  });

  it("a key moves between kinds when rewritten by the other kind of write, and is held once", async () => {
    await cache.increment("k", 60);
    await cache.set("k", "v", 60);
    assert.equal(await cache.get("k"), "v");
    assert.deepEqual(held(cache), { values: 1, counters: 0 });
    await cache.delete("k");
    assert.equal(await cache.get("k"), null);
    assert.deepEqual(held(cache), { values: 0, counters: 0 });
  });
});

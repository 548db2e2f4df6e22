/**
 * The memory of WeChat pushes' (timestamp, nonce) pairs: a pair carries the body it first came with
 * while its timestamp is accepted (the same body again: admitted; another: refused), pairs are kept
 * apart per route and app, and a pair is forgotten only once its timestamp would be refused as stale.
 */
import assert from "node:assert/strict";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import type { Cache } from "../../src/core/ports/cache";
import { PushNonces } from "../../src/services/push-nonces";

describe("push nonces", () => {
  let nowMs = 1_800_000_000_000;
  const nowSec = () => Math.floor(nowMs / 1000);
  const cache = new MemoryCache({ now: () => nowMs });
  const nonces = new PushNonces(cache, 300, nowSec);
  after(() => cache.close());

  it("admits a new pair and the same body again; refuses another body under it", async () => {
    const ts = String(nowSec());
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "n1", "body-a"), true);
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "n1", "body-a"), true);
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "n1", "body-b"), false);
    // Another nonce, route or app is another pair.
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "n2", "body-b"), true);
    assert.equal(await nonces.admit("wechat_gift", "wx1", ts, "n1", "body-b"), true);
    assert.equal(await nonces.admit("wechat_push", "wx2", ts, "n1", "body-b"), true);
  });

  it("remembers a pair until its timestamp is more than the skew in the past", async () => {
    // A timestamp 200 s ahead of our clock is accepted for 500 s from now.
    const ts = String(nowSec() + 200);
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "ahead", "body-a"), true);
    nowMs += 499_000;
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "ahead", "body-b"), false);
    nowMs += 2_000;
    // Past that the route refuses the timestamp as stale before asking.
    assert.equal(await nonces.admit("wechat_push", "wx1", ts, "ahead", "body-b"), true);
  });

  it("throws when the cache cannot answer (the route answers a failure and WeChat pushes again)", async () => {
    const down = { setIfAbsent: async () => Promise.reject(new Error("cache down")), get: async () => null } as unknown as Cache;
    await assert.rejects(new PushNonces(down, 300).admit("wechat_push", "wx1", "1", "n", "b"), /cache down/);
  });
});

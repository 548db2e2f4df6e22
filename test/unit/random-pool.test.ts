import assert from "node:assert/strict";
import { pooledRandomBytes, randomId, uuidV7 } from "../../src/core/random-pool";

describe("pooled random bytes", () => {
  it("hands out each byte once: draws across several refills never repeat a 16-byte value", () => {
    const seen = new Set<string>();
    // 4 KiB pool: 2,000 draws of 16 bytes cross seven refills, and the odd sizes misalign them.
    for (let i = 0; i < 2000; i++) {
      const hex = pooledRandomBytes(16).toString("hex");
      assert.ok(!seen.has(hex), `draw ${i} repeated an earlier one`);
      seen.add(hex);
      pooledRandomBytes(1 + (i % 7));
    }
  });

  it("returns a copy: changing what was handed out changes no later draw", () => {
    const first = pooledRandomBytes(32);
    first.fill(0);
    const next = pooledRandomBytes(32);
    assert.notDeepEqual(next, Buffer.alloc(32));
  });

  it("serves a request larger than the pool straight from the CSPRNG", () => {
    const big = pooledRandomBytes(10_000);
    assert.equal(big.length, 10_000);
    assert.ok(new Set(big).size > 200, "looks random");
  });

  it("makes 128-bit base64url ids", () => {
    const ids = new Set(Array.from({ length: 1000 }, randomId));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{22}$/);
  });

  it("makes version 7 UUIDs: the time first, then random bits, sorting by time", () => {
    const at = Date.UTC(2026, 10, 24, 6, 30, 0, 123);
    const id = uuidV7(at);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(parseInt(id.replace(/-/g, "").slice(0, 12), 16), at);
    const ids = Array.from({ length: 5000 }, (_, i) => uuidV7(at + i * 7));
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids, "later ids sort after earlier ones");
    const sameMs = new Set(Array.from({ length: 5000 }, () => uuidV7(at)));
    assert.equal(sameMs.size, 5000, "ids made in the same millisecond differ by their random bits");
  });
});

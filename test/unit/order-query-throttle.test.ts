/** The throttle between a player's reads of unknown orders and the platform's order query. */
import assert from "node:assert/strict";
import { OrderQueryThrottle } from "../../src/services/payments/order-query-throttle";

describe("order query throttle", () => {
  let clock = 1_000_000;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it("allows one query per player and orderId per window, then one again once it has passed", () => {
    const throttle = new OrderQueryThrottle({ perOrderMs: 5_000 }, now);
    assert.equal(throttle.allow("u1", "ord"), true);
    for (let i = 0; i < 4; i++) {
      clock += 1_000; // a client polling every second
      assert.equal(throttle.allow("u1", "ord"), false);
    }
    clock += 999;
    assert.equal(throttle.allow("u1", "ord"), false);
    clock += 1;
    assert.equal(throttle.allow("u1", "ord"), true);
  });

  it("keeps players and orders apart: another orderId or another player is its own window", () => {
    const throttle = new OrderQueryThrottle({ perOrderMs: 5_000 }, now);
    assert.equal(throttle.allow("u1", "a"), true);
    assert.equal(throttle.allow("u1", "b"), true);
    assert.equal(throttle.allow("u2", "a"), true);
    assert.equal(throttle.allow("u1", "a"), false);
  });

  it("caps a player's queries over all orderIds, and lifts the cap when the player's window ends", () => {
    const throttle = new OrderQueryThrottle({ perOrderMs: 5_000, perPlayerMax: 3, perPlayerMs: 60_000 }, now);
    assert.deepEqual(["a", "b", "c", "d", "e"].map((id) => throttle.allow("u1", id)), [true, true, true, false, false]);
    assert.equal(throttle.allow("u2", "a"), true, "another player has a cap of their own");
    clock += 30_000;
    assert.equal(throttle.allow("u1", "f"), false);
    clock += 30_000;
    assert.equal(throttle.allow("u1", "f"), true);
  });

  it("refuses new entries past its bound instead of growing, and frees them as they expire", () => {
    const throttle = new OrderQueryThrottle({ perOrderMs: 1_000, perPlayerMs: 1_000, maxEntries: 4 }, now);
    assert.equal(throttle.allow("u1", "a"), true);
    assert.equal(throttle.allow("u2", "a"), true);
    assert.equal(throttle.allow("u3", "a"), false, "full: two orders and two players remembered");
    clock += 1_000;
    assert.equal(throttle.allow("u3", "a"), true);
  });
});

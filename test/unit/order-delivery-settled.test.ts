/**
 * A replay waiting on an order (OrderDelivery.settled) that sees it `paid` with no delivery claim:
 * the process that paid it is a moment from claiming it, or gone. The replay claims it itself, so it
 * answers `delivered` instead of `paid`, and the hook still runs once (one claim wins). CI caught the
 * `paid` answer once in the 100-replays-over-two-processes test; this pins the moment it happens in.
 */
import assert from "node:assert/strict";
import type { Order, OrderLedger } from "../../src/core/ports/order-ledger";
import { OrderDelivery } from "../../src/services/payments/order-delivery";

const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

function order(fields: Partial<Order>): Order {
  return {
    id: "o1", platform: "wechat", appId: "wx1", userId: "u1", openid: "op1", orderId: "ord1", kind: "coin_spend", itemId: "sword",
    coins: 30, platformOrderId: "bill1", env: 1, state: "pending", attempts: 0, leaseUntil: null, failure: null,
    createdAt: "2026-11-25T00:00:00.000Z", updatedAt: "2026-11-25T00:00:00.000Z", ...fields,
  };
}

/** The order's life as the other process drives it: read pending, then paid and not yet claimed. */
function ledgerSeenFromAReplay() {
  let current = order({ state: "pending" });
  let reads = 0;
  const ledger = {
    async findById() {
      reads++;
      if (reads === 2 && current.state === "pending") current = order({ state: "paid" }); // paid between two polls
      return current;
    },
    async claimDelivery(_id: string, expectedAttempts: number, _now: string, leaseUntil: string) {
      if (current.state !== "paid" || current.attempts !== expectedAttempts) return null;
      current = { ...current, attempts: expectedAttempts + 1, leaseUntil };
      return current;
    },
    async transition(_id: string, from: string, to: Order["state"]) {
      if (current.state !== from) return null;
      current = { ...current, state: to, leaseUntil: null };
      return current;
    },
  };
  return ledger as unknown as OrderLedger;
}

describe("OrderDelivery.settled: a paid order no one has claimed", () => {
  it("is claimed and delivered by the waiting replay, with the hook run once", async () => {
    const delivered: string[] = [];
    const delivery = new OrderDelivery({ ledger: ledgerSeenFromAReplay(), notifyPlayer: () => undefined, logger: silent }, { deliveryLeaseMs: 30_000, replayWaitMs: 2_000 });
    delivery.onDeliver(async (o) => void delivered.push(o.id));
    const answered = await delivery.settled("o1");
    assert.equal(answered?.state, "delivered");
    assert.deepEqual(delivered, ["o1"]);
  });

  it("leaves an order under another deliverer's live claim to that deliverer", async () => {
    const leaseUntil = new Date(Date.now() + 60_000).toISOString();
    const claimed = order({ state: "paid", attempts: 1, leaseUntil });
    const ledger = { findById: async () => claimed, claimDelivery: async () => assert.fail("must not claim a leased order") } as unknown as OrderLedger;
    const delivery = new OrderDelivery({ ledger, notifyPlayer: () => undefined, logger: silent }, { deliveryLeaseMs: 30_000, replayWaitMs: 120 });
    delivery.onDeliver(async () => assert.fail("must not run the hook"));
    assert.equal((await delivery.settled("o1"))?.state, "paid");
  });
});

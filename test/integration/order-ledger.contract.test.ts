/**
 * One contract for the OrderLedger port, run over every database it speaks: the payment service's
 * "never deduct twice, never deliver twice" rests on these claims. Each suite gets its own empty
 * database; each test its own users, so tests never depend on one another.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import type { NewOrder, OrderLedger } from "../../src/core/ports/order-ledger";
import { createOrderLedger } from "../../src/adapters/store/create-order-ledger";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

interface Implementation {
  name: string;
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}

const implementations: Implementation[] = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-order-ledger-"));
      const file = path.join(dir, "data", "users.sqlite");
      return { config: { kind: "sqlite", path: file, synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];

if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => db.drop() };
    },
  });
}

if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const suffix = () => crypto.randomBytes(5).toString("hex");
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

function draft(overrides: Partial<NewOrder> = {}): NewOrder {
  const id = crypto.randomUUID();
  return {
    id,
    platform: "wechat",
    appId: "wx_app",
    userId: crypto.randomUUID(),
    openid: `open-${suffix()}`,
    orderId: `order-${suffix()}`,
    kind: "coin_spend",
    itemId: "sword",
    coins: 30,
    platformOrderId: id.replace(/-/g, ""),
    env: 1,
    createdAt: at(0),
    ...overrides,
  };
}

for (const impl of implementations) {
  describe(`OrderLedger contract: ${impl.name}`, () => {
    let ledger: OrderLedger;
    let release: () => Promise<void>;
    let config: AppConfig["store"];

    before(async () => {
      ({ config, release } = await impl.prepare());
      ledger = await createOrderLedger(config);
    });
    after(async () => {
      await ledger?.close();
      await release?.();
    });

    it("migrates again without harm, from another connection too", async () => {
      await ledger.migrate();
      const second = await createOrderLedger(config);
      await second.close();
    });

    it("keeps an operator grant's reason as its reason", async () => {
      const input = { ...draft(), kind: "coin_grant" as const, itemId: "", reason: "server outage" };
      const { order } = await ledger.create(input);
      assert.deepEqual([order.reason, order.itemId], ["server outage", ""]);
      assert.equal((await ledger.findById(input.id))?.reason, "server outage");
    });

    it("creates a pending order with every field as given", async () => {
      const input = draft();
      const { order, created } = await ledger.create(input);
      assert.equal(created, true);
      assert.deepEqual(order, {
        ...input,
        state: "pending",
        attempts: 0,
        leaseUntil: null,
        failure: null,
        reason: null,
        quantity: null,
        unitPrice: null,
        catalogVersion: null,
        liveEvent: null,
        createdAt: input.createdAt,
        updatedAt: input.createdAt,
      });
      assert.match(order.createdAt, ISO_MS);
      assert.deepEqual(await ledger.findById(input.id), order);
      assert.deepEqual(await ledger.findByOrderId(input.userId, input.orderId), order);
      assert.deepEqual(await ledger.findByPlatformOrderId("wechat", "wx_app", input.platformOrderId), order);
    });

    it("keeps a coin spend's terms as priced: quantity, unit price, catalog version", async () => {
      const input = draft({ coins: 90, quantity: 3, unitPrice: 30, catalogVersion: 7 });
      const { order } = await ledger.create(input);
      assert.deepEqual([order.quantity, order.unitPrice, order.catalogVersion], [3, 30, 7]);
      const read = await ledger.findByOrderId(input.userId, input.orderId);
      assert.deepEqual([read?.quantity, read?.unitPrice, read?.catalogVersion, read?.coins], [3, 30, 7, 90]);
    });

    it("keeps the live event whose sale priced a coin spend", async () => {
      const input = draft({ coins: 20, quantity: 1, unitPrice: 20, catalogVersion: 0, liveEvent: "weekend-sale" });
      assert.equal((await ledger.create(input)).order.liveEvent, "weekend-sale");
      assert.equal((await ledger.findByOrderId(input.userId, input.orderId))?.liveEvent, "weekend-sale");
      assert.equal((await ledger.findById(input.id))?.liveEvent, "weekend-sale");
    });

    it("holds a coin spend at the bound (2,000,000,000 coins), and a pushed price above 2^31 − 1", async () => {
      const bound = await ledger.create(draft({ coins: 2_000_000_000 }));
      assert.equal(bound.order.coins, 2_000_000_000);
      const pushed = draft({ kind: "item_purchase", state: "paid", coins: 3_000_000_000 });
      await ledger.create(pushed);
      assert.equal((await ledger.findById(pushed.id))?.coins, 3_000_000_000);
    });

    it("creates an item purchase already paid", async () => {
      const { order } = await ledger.create(draft({ kind: "item_purchase", state: "paid", env: 0 }));
      assert.equal(order.state, "paid");
      assert.equal(order.env, 0);
    });

    it("returns the existing order, unchanged, for a used (user, orderId) whatever the new body", async () => {
      const first = await ledger.create(draft());
      const again = await ledger.create(draft({ userId: first.order.userId, orderId: first.order.orderId, coins: 99, itemId: "shield" }));
      assert.equal(again.created, false);
      assert.deepEqual(again.order, first.order);
    });

    it("lets two users use the same orderId", async () => {
      const a = await ledger.create(draft({ orderId: "shared-key" }));
      const b = await ledger.create(draft({ orderId: "shared-key" }));
      assert.equal(a.created && b.created, true);
    });

    it("returns the existing coin order for a used bill number of the same app only", async () => {
      const first = await ledger.create(draft());
      const again = await ledger.create(draft({ platformOrderId: first.order.platformOrderId }));
      assert.equal(again.created, false);
      assert.equal(again.order.id, first.order.id);
      const otherApp = await ledger.create(draft({ appId: "wx_other", platformOrderId: first.order.platformOrderId }));
      assert.equal(otherApp.created, true);
    });

    /** An item purchase as a push records it: its trade number is both its orderId and its platform number. */
    const itemPurchase = (userId: string, tradeNo: string, overrides: Partial<NewOrder> = {}) =>
      draft({ userId, kind: "item_purchase", state: "paid", orderId: tradeNo, platformOrderId: tradeNo, ...overrides });

    it("returns the existing item purchase for the same player's trade number again, in the same app only", async () => {
      const userId = crypto.randomUUID();
      const tradeNo = `trade-${suffix()}`;
      const first = await ledger.create(itemPurchase(userId, tradeNo));
      const again = await ledger.create(itemPurchase(userId, tradeNo, { itemId: "other" }));
      assert.equal(again.created, false);
      assert.deepEqual(again.order, first.order);
      assert.deepEqual(await ledger.findItemPurchase("wechat", "wx_app", userId, tradeNo), first.order);
      const otherApp = await ledger.create(itemPurchase(userId, tradeNo, { appId: "wx_other" }));
      assert.equal(otherApp.created, true, "the same player's trade number in another game is another purchase");
    });

    it("records an item purchase whose trade number the same player used as a coin orderId, as its own order", async () => {
      const userId = crypto.randomUUID();
      const shared = `shared-${suffix()}`;
      const spend = await ledger.create(draft({ userId, orderId: shared }));
      const bought = await ledger.create(itemPurchase(userId, shared));
      assert.equal(bought.created, true);
      assert.equal(bought.order.kind, "item_purchase");
      assert.notEqual(bought.order.id, spend.order.id);
      assert.deepEqual(await ledger.findByOrderId(userId, shared), spend.order, "the orderId still names the coin spend");
      assert.deepEqual(await ledger.findItemPurchase("wechat", "wx_app", userId, shared), bought.order);
      // And the other way round: a coin spend after an item purchase of that number.
      const later = `later-${suffix()}`;
      await ledger.create(itemPurchase(userId, later));
      const spendAfter = await ledger.create(draft({ userId, orderId: later }));
      assert.equal(spendAfter.created, true);
      assert.equal(spendAfter.order.kind, "coin_spend");
    });

    it("records an item purchase whose trade number equals a coin order's bill number", async () => {
      const spend = await ledger.create(draft());
      const bought = await ledger.create(itemPurchase(spend.order.userId, spend.order.platformOrderId));
      assert.equal(bought.created, true);
      assert.deepEqual(await ledger.findByPlatformOrderId("wechat", "wx_app", spend.order.platformOrderId), spend.order);
    });

    it("records two players' item purchases under one trade number as two orders", async () => {
      const tradeNo = `trade-${suffix()}`;
      const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
      const first = await ledger.create(itemPurchase(a, tradeNo));
      const second = await ledger.create(itemPurchase(b, tradeNo));
      assert.equal(first.created && second.created, true);
      assert.equal(second.order.userId, b);
      assert.equal((await ledger.findItemPurchase("wechat", "wx_app", a, tradeNo))!.id, first.order.id);
      assert.equal((await ledger.findItemPurchase("wechat", "wx_app", b, tradeNo))!.id, second.order.id);
    });

    it("creates one item purchase from 30 concurrent pushes of the same trade number", async () => {
      const base = itemPurchase(crypto.randomUUID(), `trade-${suffix()}`);
      const results = await Promise.all(Array.from({ length: 30 }, () => ledger.create({ ...base, id: crypto.randomUUID() })));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.order.id)).size, 1);
    });

    it("creates one order from 30 concurrent creations of the same orderId", async () => {
      const base = draft();
      const results = await Promise.all(Array.from({ length: 30 }, () => ledger.create({ ...base, id: crypto.randomUUID(), platformOrderId: suffix() })));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.order.id)).size, 1);
    });

    it("moves an order from the expected state once, among 30 concurrent callers", async () => {
      const { order } = await ledger.create(draft());
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => ledger.transition(order.id, "pending", i % 2 ? "paid" : "failed", { at: at(5) })));
      const winners = results.filter((r) => r !== null);
      assert.equal(winners.length, 1);
      assert.equal(winners[0]!.updatedAt, at(5));
      assert.equal((await ledger.findById(order.id))!.state, winners[0]!.state);
    });

    it("refuses a transition from a state the order is not in", async () => {
      const { order } = await ledger.create(draft());
      assert.equal(await ledger.transition(order.id, "paid", "delivered", { at: at(1) }), null);
      assert.equal(await ledger.transition(crypto.randomUUID(), "pending", "paid", { at: at(1) }), null);
      assert.equal((await ledger.findById(order.id))!.state, "pending");
    });

    it("records a failure code with the state, and keeps it when a later change names none", async () => {
      const { order } = await ledger.create(draft());
      const failed = await ledger.transition(order.id, "pending", "failed", { at: at(1), failure: "insufficient_balance" });
      assert.equal(failed!.failure, "insufficient_balance");
      const paid = await ledger.create(draft());
      await ledger.transition(paid.order.id, "pending", "paid", { at: at(1) });
      const refunded = await ledger.transition(paid.order.id, "paid", "refunded", { at: at(2), failure: "operator_refund" });
      assert.equal(refunded!.failure, "operator_refund");
    });

    it("grants one delivery claim at a time, and the next only after the lease lapsed", async () => {
      const { order } = await ledger.create(draft());
      assert.equal(await ledger.claimDelivery(order.id, 0, at(0), at(1000)), null, "a pending order is not deliverable");
      await ledger.transition(order.id, "pending", "paid", { at: at(0) });
      const claims = await Promise.all(Array.from({ length: 20 }, () => ledger.claimDelivery(order.id, 0, at(10), at(1000))));
      const won = claims.filter((c) => c !== null);
      assert.equal(won.length, 1);
      assert.equal(won[0]!.attempts, 1);
      assert.equal(won[0]!.leaseUntil, at(1000));
      assert.equal(await ledger.claimDelivery(order.id, 1, at(999), at(2000)), null, "the lease still holds");
      assert.equal(await ledger.claimDelivery(order.id, 0, at(1000), at(2000)), null, "a stale attempt count loses");
      const second = await ledger.claimDelivery(order.id, 1, at(1000), at(2000));
      assert.equal(second!.attempts, 2);
      const delivered = await ledger.transition(order.id, "paid", "delivered", { at: at(1500) });
      assert.equal(delivered!.leaseUntil, null);
      assert.equal(await ledger.claimDelivery(order.id, 2, at(5000), at(6000)), null, "a delivered order is not claimed again");
    });

    it("lists a user's orders newest first, by state, up to a limit", async () => {
      const userId = crypto.randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { order } = await ledger.create(draft({ userId, createdAt: at(i * 1000) }));
        ids.push(order.id);
      }
      await ledger.transition(ids[1], "pending", "paid", { at: at(9000) });
      assert.deepEqual((await ledger.listByUser(userId)).map((o) => o.id), [...ids].reverse());
      assert.deepEqual((await ledger.listByUser(userId, { limit: 2 })).map((o) => o.id), [ids[3], ids[2]]);
      assert.deepEqual((await ledger.listByUser(userId, { state: "paid" })).map((o) => o.id), [ids[1]]);
      assert.deepEqual(await ledger.listByUser(crypto.randomUUID()), []);
    });

    it("lists unsettled orders changed before a time, oldest first", async () => {
      const appId = `app-${suffix()}`;
      const old = await ledger.create(draft({ appId, createdAt: at(-3_000_000) }));
      const paid = await ledger.create(draft({ appId, createdAt: at(-4_000_000) }));
      await ledger.transition(paid.order.id, "pending", "paid", { at: at(-2_000_000) });
      const settled = await ledger.create(draft({ appId, createdAt: at(-5_000_000) }));
      await ledger.transition(settled.order.id, "pending", "failed", { at: at(-5_000_000) });
      await ledger.create(draft({ appId, createdAt: at(0) }));
      const unsettled = (await ledger.listUnsettled(at(-1_000_000), 1000)).filter((o) => o.appId === appId);
      assert.deepEqual(unsettled.map((o) => o.id), [old.order.id, paid.order.id]);
      const nextPage = (await ledger.listUnsettled(at(-1_000_000), 1000, old.order)).filter((o) => o.appId === appId);
      assert.deepEqual(nextPage.map((o) => o.id), [paid.order.id], "after an order");
      // Orders of the same time are paged by id.
      const tied = await Promise.all([0, 1, 2].map(() => ledger.create(draft({ appId: `${appId}-tied`, createdAt: at(-7_000_000) }))));
      const ids = tied.map((t) => t.order.id).sort();
      const firstTwo = (await ledger.listUnsettled(at(-6_000_000), 1000)).filter((o) => o.appId === `${appId}-tied`).slice(0, 2);
      assert.deepEqual(firstTwo.map((o) => o.id), ids.slice(0, 2));
      const rest = (await ledger.listUnsettled(at(-6_000_000), 1000, firstTwo[1])).filter((o) => o.appId === `${appId}-tied`);
      assert.deepEqual(rest.map((o) => o.id), ids.slice(2));
    });

    it("lists the orders needing a person: unsettled past the cutoff and refused item purchases, newest change first", async () => {
      const appId = `app-${suffix()}`;
      const mine = async () => (await ledger.listNeedingAttention(at(-1_000_000), 10_000)).filter((o) => o.appId === appId).map((o) => o.id);
      const pending = await ledger.create(draft({ appId, createdAt: at(-3_000_000) }));
      const paid = await ledger.create(draft({ appId, createdAt: at(-4_000_000) }));
      await ledger.transition(paid.order.id, "pending", "paid", { at: at(-2_000_000) });
      const refusedSpend = await ledger.create(draft({ appId, createdAt: at(-5_000_000) }));
      await ledger.transition(refusedSpend.order.id, "pending", "failed", { at: at(-5_000_000), failure: "insufficient_balance" });
      const delivered = await ledger.create(draft({ appId, createdAt: at(-5_000_000), state: "paid", kind: "item_purchase" }));
      await ledger.transition(delivered.order.id, "paid", "delivered", { at: at(-5_000_000) });
      await ledger.create(draft({ appId, createdAt: at(0) }));
      // A push the catalog refused, long ago and just now: the platform took the money, so either needs a person.
      const refusedPush = await ledger.create(draft({ appId, kind: "item_purchase", createdAt: at(-9_000_000) }));
      await ledger.transition(refusedPush.order.id, "pending", "failed", { at: at(-8_000_000), failure: "item_not_found" });
      const freshPush = await ledger.create(draft({ appId, kind: "item_purchase", createdAt: at(0) }));
      await ledger.transition(freshPush.order.id, "pending", "failed", { at: at(1000), failure: "price_below_catalog" });
      assert.deepEqual(await mine(), [freshPush.order.id, paid.order.id, pending.order.id, refusedPush.order.id]);
      const listed = (await ledger.listNeedingAttention(at(-1_000_000), 10_000)).find((o) => o.id === refusedPush.order.id);
      assert.equal(listed?.failure, "item_not_found", "with its reason");
      // Handled: delivered after all, or recorded refunded: off the list.
      await ledger.transition(refusedPush.order.id, "failed", "refunded", { at: at(-500_000) });
      await ledger.transition(paid.order.id, "paid", "delivered", { at: at(-500_000) });
      assert.deepEqual(await mine(), [freshPush.order.id, pending.order.id]);
      assert.equal((await ledger.listNeedingAttention(at(-1_000_000), 1)).length, 1, "up to the limit");
    });

    it("gives a refused push an operator delivers after all (failed → paid) back to the reconciler", async () => {
      const appId = `app-${suffix()}`;
      const { order } = await ledger.create(draft({ appId, kind: "item_purchase", createdAt: at(-9_000_000) }));
      await ledger.transition(order.id, "pending", "failed", { at: at(-8_000_000), failure: "item_not_found" });
      const reopened = await ledger.transition(order.id, "failed", "paid", { at: at(-2_000_000), failure: null });
      assert.deepEqual([reopened?.state, reopened?.failure], ["paid", null]);
      assert.deepEqual((await ledger.listUnsettled(at(-1_000_000), 10_000)).filter((o) => o.appId === appId).map((o) => o.id), [order.id]);
      assert.deepEqual((await ledger.listNeedingAttention(at(-1_000_000), 10_000)).filter((o) => o.appId === appId).map((o) => o.state), ["paid"]);
      await ledger.transition(order.id, "paid", "delivered", { at: at(-1_500_000) });
      assert.deepEqual((await ledger.listNeedingAttention(at(-1_000_000), 10_000)).filter((o) => o.appId === appId), []);
    });

    it("counts orders per platform, kind and state", async () => {
      const platform = `p${suffix()}`;
      await ledger.create(draft({ platform }));
      await ledger.create(draft({ platform }));
      await ledger.create(draft({ platform, kind: "coin_grant" }));
      const counts = (await ledger.countByState()).filter((c) => c.platform === platform);
      assert.deepEqual(
        counts.sort((a, b) => a.kind.localeCompare(b.kind)),
        [
          { platform, kind: "coin_grant", state: "pending", count: 1 },
          { platform, kind: "coin_spend", state: "pending", count: 2 },
        ],
      );
    });
  });
}

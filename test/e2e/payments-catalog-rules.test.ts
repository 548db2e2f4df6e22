/**
 * Coin orders under the catalog's rules, end to end on every store backend (issue 48): a durable
 * ordered 20 times at once is charged and granted once; an item's `limit` holds for coin orders,
 * concurrent and sequential, and together with soft-currency purchases; an order records its terms
 * (item, quantity, unit price, catalog version) and is delivered by them whatever the catalog says
 * at delivery; a price × quantity above what an order may cost is 422 with nothing recorded; a
 * replay of an orderId or purchaseId with another quantity or item is 409.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { exampleCatalog, type Catalog } from "../../src/core/catalog";
import type { Order } from "../../src/core/ports/order-ledger";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

/** The example catalog and items with rules: a limit of 2, a coin and a gem price with a limit of 1, a price near the bound. */
function rulesCatalog(): Catalog {
  const catalog = exampleCatalog();
  catalog.items.push(
    { itemId: "ticket", name: "Ticket", kind: "consumable", prices: { coins: 5 }, grants: { items: [{ itemId: "ticket", count: 1 }] }, limit: 2 },
    { itemId: "crown", name: "Crown", kind: "consumable", prices: { coins: 50, gems: 10 }, grants: { items: [{ itemId: "crown", count: 1 }] }, limit: 1 },
    { itemId: "relic", name: "Relic", kind: "consumable", prices: { coins: 1_000_000_000 }, grants: { items: [{ itemId: "relic", count: 1 }] } },
  );
  return catalog;
}

for (const backend of backends) {
  describe(`coin orders under the catalog's rules: ${backend.name}`, function () {
    this.timeout(120_000);
    const server = paymentServerPerSuite(backend);
    let h: Harness;
    before(async () => {
      h = server.h;
      await h.services.economy.catalogs.replace("default", rulesCatalog(), "test");
    });

    async function player(coins: number) {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("rules")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const openid = login.body.data.openid as string;
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: coins }) });
      return { openid, userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const wallet = async (p: { openid: string }) =>
      (await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${p.openid}`)).json()) as { balance: number; deductions: number };
    const inventory = async (p: { headers: Record<string, string> }) =>
      Object.fromEntries(((await h.get("/api/economy/inventory", p.headers)).body.data.items as Array<{ itemId: string; count: number }>).map((i) => [i.itemId, i.count]));
    const order = (p: { headers: Record<string, string> }, body: Record<string, unknown>) => h.request("POST", "/api/payments/orders", { orderId: unique("o"), ...body }, p.headers);
    const codes = (results: Array<{ status: number; body: any }>) => results.map((r) => (r.status < 300 ? r.status : `${r.status} ${r.body.data.code}`)).sort();

    it("20 concurrent coin orders for a durable, distinct orderIds: one item, one charge; the others 409 already_owned with nothing deducted", async () => {
      const p = await player(10_000);
      const results = await Promise.all(Array.from({ length: 20 }, () => order(p, { itemId: "golden-skin" })));
      assert.deepEqual(codes(results), [201, ...Array(19).fill("409 already_owned")], JSON.stringify(results.filter((r) => r.status >= 500).map((r) => r.body)));
      assert.deepEqual(await inventory(p), { "golden-skin": 1 });
      assert.deepEqual(await wallet(p).then((w) => [w.balance, w.deductions]), [10_000 - 60, 1]);
      const failed = results.find((r) => r.status === 409)!.body.data.order;
      if (failed) assert.equal(failed.state, "failed");
    });

    it("limit 2: 20 concurrent coin orders → two; a later one, sequentially, 409 purchase_limit", async () => {
      const p = await player(10_000);
      const results = await Promise.all(Array.from({ length: 20 }, () => order(p, { itemId: "ticket" })));
      assert.deepEqual(codes(results), [201, 201, ...Array(18).fill("409 purchase_limit")]);
      const later = await order(p, { itemId: "ticket" });
      assert.deepEqual([later.status, later.body.data.code], [409, "purchase_limit"]);
      assert.deepEqual(await inventory(p), { ticket: 2 });
      assert.deepEqual(await wallet(p).then((w) => w.deductions), 2);

      // Sequentially, one at a time, and a quantity that would pass the limit.
      const q = await player(10_000);
      assert.equal((await order(q, { itemId: "ticket" })).status, 201);
      const two = await order(q, { itemId: "ticket", quantity: 2 });
      assert.deepEqual([two.status, two.body.data.code], [409, "purchase_limit"]);
      assert.equal((await order(q, { itemId: "ticket" })).status, 201);
      assert.equal((await order(q, { itemId: "ticket" })).status, 409);
      assert.deepEqual(await inventory(q), { ticket: 2 });
      assert.deepEqual(await wallet(q).then((w) => w.deductions), 2);
    });

    it("an item with a coin and a gem price and limit 1 is bought once, whichever currency comes first", async () => {
      const gems = (userId: string) => h.services.economy.rewards.grant({ appId: "default", userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 100 } });
      const coinsFirst = await player(1_000);
      await gems(coinsFirst.userId);
      assert.equal((await order(coinsFirst, { itemId: "crown" })).status, 201);
      const soft = await h.request("POST", "/api/economy/purchases", { purchaseId: unique("b"), itemId: "crown" }, coinsFirst.headers);
      assert.deepEqual([soft.status, soft.body.data.code], [409, "purchase_limit"]);
      assert.deepEqual(await inventory(coinsFirst), { crown: 1 });

      const gemsFirst = await player(1_000);
      await gems(gemsFirst.userId);
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId: unique("b"), itemId: "crown" }, gemsFirst.headers)).status, 201);
      const coin = await order(gemsFirst, { itemId: "crown" });
      assert.deepEqual([coin.status, coin.body.data.code], [409, "purchase_limit"]);
      assert.deepEqual(await inventory(gemsFirst), { crown: 1 });
      assert.equal((await wallet(gemsFirst)).deductions, 0);
    });

    it("an item bought through the platform (pushed) counts towards its limit: a coin order and a gem purchase after it are refused", async () => {
      const p = await player(1_000);
      await h.services.economy.rewards.grant({ appId: "default", userId: p.userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 100 } });
      const pushed = await fetch(`${h.simulator.url}/__simulator/item-purchase`, {
        method: "POST",
        body: JSON.stringify({ platform: "wechat", openid: p.openid, itemId: "crown", price: 50, notifyUrl: `${h.baseUrl}/api/minigame/wechat/push` }),
      });
      assert.equal(pushed.status, 200);
      for (let i = 0; i < 200 && (await inventory(p)).crown !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.deepEqual(await inventory(p), { crown: 1 });
      const coin = await order(p, { itemId: "crown" });
      assert.deepEqual([coin.status, coin.body.data.code], [409, "purchase_limit"]);
      const soft = await h.request("POST", "/api/economy/purchases", { purchaseId: unique("b"), itemId: "crown" }, p.headers);
      assert.deepEqual([soft.status, soft.body.data.code], [409, "purchase_limit"]);
      assert.deepEqual(await inventory(p), { crown: 1 });
      assert.equal((await wallet(p)).deductions, 0);
    });

    it("an order the platform refuses (too few coins) gives its hold back: the durable can be bought after a top-up", async () => {
      const p = await player(10);
      const poor = await order(p, { itemId: "golden-skin" });
      assert.deepEqual([poor.status, poor.body.data.code], [402, "insufficient_balance"]);
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: p.openid, balance: 100 }) });
      const rich = await order(p, { itemId: "golden-skin" });
      assert.equal(rich.status, 201, JSON.stringify(rich.body));
      assert.deepEqual(await inventory(p), { "golden-skin": 1 });
    });

    it("an order is delivered by its recorded terms, whatever the catalog is at delivery (a changed price, a removed item)", async () => {
      const p = await player(0);
      const { version } = h.services.economy.catalogs.get("default");
      const paid = async (itemId: string, quantity: number, unitPrice: number): Promise<Order> => {
        const id = crypto.randomUUID();
        const { order: recorded } = await h.services.payments.ledger.create({
          ...{ id, platform: "wechat", appId: h.services.payments.itemPurchaseApps("default")[0].appId, userId: p.userId, openid: p.openid },
          ...{ orderId: unique("o"), kind: "coin_spend", itemId, coins: unitPrice * quantity, quantity, unitPrice, catalogVersion: version },
          ...{ platformOrderId: id.replace(/-/g, ""), env: 1, state: "paid", createdAt: new Date().toISOString() },
        });
        return recorded;
      };
      // Paid under the current catalog: 2 swords at 30, 1 shield at 20, 1 ticket at 5.
      const swords = await paid("sword", 2, 30);
      const shield = await paid("shield", 1, 20);
      const tickets = await paid("ticket", 1, 5);
      // Then the catalog changes before delivery: the sword costs 60, the shield 10, the ticket is gone.
      const changed = rulesCatalog();
      changed.items = changed.items.filter((i) => i.itemId !== "ticket");
      changed.items.find((i) => i.itemId === "sword")!.prices = { coins: 60 };
      changed.items.find((i) => i.itemId === "shield")!.prices = { coins: 10 };
      await h.services.economy.catalogs.replace("default", changed, "test");
      try {
        for (const o of [swords, shield, tickets]) {
          const delivered = await h.services.payments.payments.delivery.deliver(o);
          assert.equal(delivered.state, "delivered", o.itemId);
        }
        assert.deepEqual(await inventory(p), { sword: 2, shield: 1, ticket: 1 });
      } finally {
        await h.services.economy.catalogs.replace("default", rulesCatalog(), "test");
      }
    });

    it("a catalog change in the middle of a stream of coin orders never changes what a paid order delivers", async () => {
      const p = await player(1_000_000);
      const sent: Array<Promise<{ status: number; body: any }>> = [];
      for (let i = 0; i < 30; i++) {
        sent.push(order(p, { itemId: i % 2 ? "sword" : "shield", quantity: 1 + (i % 3) }));
        if (i === 15) {
          const changed = rulesCatalog();
          changed.items.find((item) => item.itemId === "sword")!.prices = { coins: 45 };
          changed.items = changed.items.filter((item) => item.itemId !== "shield" && item.itemId !== "starter-chest");
          await h.services.economy.catalogs.replace("default", changed, "test");
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      try {
        const results = await Promise.all(sent);
        const made = results.filter((r) => r.status === 201).map((r) => r.body.data);
        assert.ok(results.every((r) => r.status === 201 || (r.status === 404 && r.body.data.code === "item_not_found")), JSON.stringify(codes(results)));
        const expected: Record<string, number> = {};
        for (const o of made) {
          assert.equal(o.state, "delivered");
          assert.equal(o.coins, o.unitPrice * o.quantity);
          expected[o.itemId] = (expected[o.itemId] ?? 0) + o.quantity;
          const entry = await h.services.economy.store.findBySource("default", "coin_order", (await h.services.payments.ledger.findByOrderId(p.userId, o.orderId))!.id);
          assert.deepEqual(entry?.items, [{ itemId: o.itemId, count: o.quantity }]);
        }
        assert.ok(made.some((o) => o.itemId === "sword" && o.unitPrice === 45), "some orders priced after the change");
        assert.deepEqual(await inventory(p), expected);
        assert.equal((await wallet(p)).balance, 1_000_000 - made.reduce((sum, o) => sum + o.coins, 0));
      } finally {
        await h.services.economy.catalogs.replace("default", rulesCatalog(), "test");
      }
    });

    it("a price × quantity above 2,000,000,000 coins is 422 order_too_large naming the bound, nothing recorded or deducted", async () => {
      const p = await player(2_000_000_000);
      const orderId = unique("big");
      const big = await h.request("POST", "/api/payments/orders", { orderId, itemId: "relic", quantity: 3 }, p.headers);
      assert.deepEqual([big.status, big.body.data.code, big.body.data.maxCoins, big.body.data.unitPrice, big.body.data.quantity], [422, "order_too_large", 2_000_000_000, 1_000_000_000, 3]);
      assert.equal((await h.get(`/api/payments/orders/${orderId}`, p.headers)).status, 404);
      // At the bound: recorded and charged (a `coins` field up to the bound is accepted, as the order's own `coins` is).
      const atBound = await order(p, { itemId: "relic", quantity: 2, coins: 2_000_000_000 });
      assert.equal(atBound.status, 201, JSON.stringify(atBound.body));
      assert.equal(atBound.body.data.coins, 2_000_000_000);
      assert.deepEqual(await wallet(p).then((w) => [w.balance, w.deductions]), [0, 1]);
    });

    it("a replay of an orderId with another quantity is 409 order_conflict; a purchaseId with another quantity or item too", async () => {
      const p = await player(1_000);
      const orderId = unique("o");
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword" }, p.headers)).status, 201);
      for (const body of [{ quantity: 2 }, { quantity: 2, coins: 60 }, { itemId: "shield" }]) {
        const replay = await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", ...body }, p.headers);
        assert.deepEqual([replay.status, replay.body.data.code], [409, "order_conflict"], JSON.stringify(body));
      }
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", quantity: 1 }, p.headers)).status, 200);
      assert.deepEqual(await wallet(p).then((w) => w.deductions), 1);

      await h.services.economy.rewards.grant({ appId: "default", userId: p.userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 100 } });
      const purchaseId = unique("b");
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion" }, p.headers)).status, 201);
      for (const body of [{ quantity: 2 }, { itemId: "crown" }]) {
        const replay = await h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion", ...body }, p.headers);
        assert.equal(replay.status, 409, JSON.stringify([body, replay.body]));
      }
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion", quantity: 1 }, p.headers)).status, 200);
      assert.deepEqual((await h.get("/api/economy/wallet", p.headers)).body.data.balances, { gems: 90 });
    });
  });
}

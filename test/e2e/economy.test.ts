/**
 * The economy end to end on every store backend, with the simulator's wallets and pushes: the
 * example catalog, soft-currency purchases (100 concurrent by a player who can afford 10; 100
 * concurrent replays), orders priced by the server (a client's price refused with nothing
 * deducted), paid orders landing in the inventory with a `reward` message, and pushed purchases
 * below the catalog's price or of unknown items recorded failed and not delivered, on each platform.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { untilAnswered } from "../support/until-answered";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`economy end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    // 100 new purchaseIds from one player at once: above the per-player limit of new purchases (economy-purchase-limit.test.ts).
    const server = paymentServerPerSuite(backend, { RATE_LIMIT_USER_MAX: "1000" });
    let h: Harness;
    before(() => (h = server.h));

    async function player(platform: "wechat" | "douyin" = "wechat", coins = 0) {
      const login =
        platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("p")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const openid = login.body.data.openid as string;
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform, openid, balance: coins }) });
      return { openid, userId: login.body.data.user.id as string, token: login.body.data.token as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const wallet = async (headers: Record<string, string>) => (await h.get("/api/economy/wallet", headers)).body.data.balances;
    const inventory = async (headers: Record<string, string>) => (await h.get("/api/economy/inventory", headers)).body.data.items;
    const deductions = async (platform: string, openid: string) =>
      ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=${platform}&openid=${openid}`)).json()) as { deductions: number }).deductions;
    const gems = (userId: string, amount: number) => h.services.economy.rewards.grant({ appId: "default", userId, source: "operator", sourceId: unique("seed"), currencies: { gems: amount } });

    it("lists the token's app's catalog: the example shop", async () => {
      const p = await player();
      const res = await h.get("/api/catalog", p.headers);
      assert.equal(res.status, 200);
      const { version, items, ads, currencies } = res.body.data;
      assert.equal(version, 0);
      assert.deepEqual(currencies.map((c: any) => c.currencyId), ["gems"]);
      const byId = Object.fromEntries(items.map((i: any) => [i.itemId, i]));
      assert.deepEqual(byId.sword.prices, { coins: 30 });
      assert.equal(byId["golden-skin"].kind, "durable");
      assert.deepEqual(byId.gem_pack.grants, { currencies: { gems: 60 } });
      assert.deepEqual(byId.potion.prices, { gems: 10 });
      assert.equal(ads[0].adUnitId, "adunit-example");
      assert.equal((await h.get("/api/catalog")).status, 401);
    });

    it("100 concurrent soft purchases by a player who can afford 10: exactly 10 succeed, balance 0, 10 items, 90 × 402", async () => {
      const p = await player();
      await gems(p.userId, 100);
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => untilAnswered(() => h.request("POST", "/api/economy/purchases", { purchaseId: `buy-${i}`, itemId: "potion" }, p.headers))));
      // A retried purchase that had happened is answered 200 (the same purchase), not 201.
      assert.equal(results.filter((r) => r.status === 201 || r.status === 200).length, 10);
      const refused = results.filter((r) => r.status === 402);
      assert.equal(refused.length, 90);
      assert.ok(refused.every((r) => r.body.data.code === "insufficient_funds"));
      assert.deepEqual(await wallet(p.headers), { gems: 0 });
      assert.deepEqual(await inventory(p.headers), [{ itemId: "potion", count: 10 }]);
      // A refused purchaseId stays refused: the same answer again, even with funds.
      await gems(p.userId, 10);
      const again = await h.request("POST", "/api/economy/purchases", { purchaseId: refused[0].body.data.purchaseId, itemId: "potion" }, p.headers);
      assert.equal(again.status, 402);
      assert.deepEqual(await wallet(p.headers), { gems: 10 });
    });

    it("100 concurrent replays of one purchaseId: one purchase, 201 once and 200 with the same result after", async () => {
      const p = await player();
      await gems(p.userId, 50);
      const body = { purchaseId: unique("chest"), itemId: "starter-chest" };
      // A replay answered 503 (MongoDB: the first still holds the claim past the wait) is sent again, as a game does.
      const results = await Promise.all(Array.from({ length: 100 }, () => untilAnswered(() => h.request("POST", "/api/economy/purchases", body, p.headers))));
      assert.equal(results.filter((r) => r.status === 201).length, 1);
      assert.equal(results.filter((r) => r.status === 200).length, 99, JSON.stringify(results.filter((r) => r.status !== 200 && r.status !== 201).slice(0, 3)));
      assert.ok(results.every((r) => r.body.data.balances.gems === 20));
      assert.deepEqual(results[0].body.data.paid, { gems: 30 });
      assert.deepEqual(await wallet(p.headers), { gems: 20 });
      const items = Object.fromEntries((await inventory(p.headers)).map((i: any) => [i.itemId, i.count]));
      assert.deepEqual(items, { potion: 3, shield: 1 });
      // The chest's limit is 1 per player.
      const again = await h.request("POST", "/api/economy/purchases", { purchaseId: unique("chest"), itemId: "starter-chest" }, p.headers);
      assert.equal(again.status, 409);
      assert.equal(again.body.data.code, "purchase_limit");
      // The same purchaseId for another item is not a replay.
      assert.equal((await h.request("POST", "/api/economy/purchases", { ...body, itemId: "potion" }, p.headers)).status, 409);
    });

    it("refuses unknown items, coin-only items, bad bodies and a missing token, with nothing recorded", async () => {
      const p = await player();
      await gems(p.userId, 100);
      for (const itemId of ["nope", "sword"]) {
        const res = await h.request("POST", "/api/economy/purchases", { purchaseId: unique("x"), itemId }, p.headers);
        assert.equal(res.status, 404);
        assert.equal(res.body.data.code, "item_not_found");
      }
      for (const body of [{ itemId: "potion" }, { purchaseId: "bad id!", itemId: "potion" }, { purchaseId: "q", itemId: "potion", quantity: 0 }, { purchaseId: "q", itemId: "potion", quantity: 1.5 }]) {
        assert.equal((await h.request("POST", "/api/economy/purchases", body, p.headers)).status, 400, JSON.stringify(body));
      }
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId: "a", itemId: "potion" })).status, 401);
      assert.deepEqual(await wallet(p.headers), { gems: 100 });
      assert.equal((await h.services.economy.store.entries("default", p.userId)).length, 1);
    });

    it("a player deleting their account erases their wallet, inventory and ledger", async () => {
      const p = await player();
      await gems(p.userId, 30);
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId: unique("b"), itemId: "potion" }, p.headers)).status, 201);
      const deleted = await h.request("DELETE", "/api/users/me", undefined, p.headers);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.deepEqual(await h.services.economy.store.appsOf(p.userId), []);
      assert.deepEqual(await h.services.economy.store.entries("default", p.userId), []);
      assert.deepEqual((await h.services.economy.store.state("default", p.userId)).balances, {});
    });

    for (const platform of ["wechat", "douyin"] as const) {
      it(`${platform}: prices coin orders from the catalog; a client's own price is 409 with nothing deducted; delivery lands in the inventory with one reward message`, async () => {
        const p = await player(platform, 200);
        const mismatch = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "sword", coins: 1 }, p.headers);
        assert.equal(mismatch.status, 409);
        assert.equal(mismatch.body.data.code, "price_mismatch");
        const unknown = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "nope" }, p.headers);
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.data.code, "item_not_found");
        assert.equal(await deductions(platform, p.openid), 0);

        const ws = new Client(h.baseUrl.replace("http", "ws"));
        const room: Room = await ws.joinOrCreate("lobby", { accessToken: p.token });
        const rewards: any[] = [];
        room.onMessage("reward", (m) => rewards.push(m));
        const pack = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "gem_pack" }, p.headers);
        assert.equal(pack.status, 201, JSON.stringify(pack.body));
        assert.equal(pack.body.data.coins, 60);
        const skin = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "golden-skin" }, p.headers);
        assert.equal(skin.status, 201);
        assert.equal(skin.body.data.state, "delivered");
        const twice = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "golden-skin" }, p.headers);
        assert.equal(twice.status, 409);
        assert.equal(twice.body.data.code, "already_owned");
        const shields = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "shield", quantity: 3, coins: 60 }, p.headers);
        assert.equal(shields.status, 201);
        assert.deepEqual(await wallet(p.headers), { gems: 60 });
        assert.deepEqual(Object.fromEntries((await inventory(p.headers)).map((i: any) => [i.itemId, i.count])), { "golden-skin": 1, shield: 3 });
        assert.equal(await deductions(platform, p.openid), 3);
        for (let i = 0; i < 50 && rewards.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        await room.leave();
        assert.deepEqual(rewards.map((r) => r.source), ["coin_order", "coin_order", "coin_order"]);
        assert.deepEqual(rewards[0].balances, { gems: 60 });
      });

      it(`${platform}: a pushed purchase below the catalog's price, or of an unknown item, is recorded failed and not delivered`, async () => {
        const p = await player(platform);
        const buy = async (itemId: string, price: number) => {
          const res = await fetch(`${h.simulator.url}/__simulator/item-purchase`, {
            method: "POST",
            body: JSON.stringify({ platform, openid: p.openid, itemId, price, notifyUrl: `${h.baseUrl}/api/minigame/${platform}/push` }),
          });
          assert.equal(res.status, 200);
          return ((await res.json()) as { outTradeNo: string }).outTradeNo;
        };
        const cheap = await buy("gem_pack", 100);
        const unknown = await buy("not-in-catalog", 600);
        const fair = await buy("gem_pack", 600);
        const states = async () => Object.fromEntries(((await h.get("/api/payments/orders", p.headers)).body.data.orders as any[]).map((o) => [o.orderId, [o.state, o.failure]]));
        let seen: Record<string, unknown> = {};
        for (let i = 0; i < 200 && Object.keys(seen).length < 3; i++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          seen = await states();
          if ((seen[fair] as string[] | undefined)?.[0] !== "delivered") seen = Object.fromEntries(Object.entries(seen).filter(([k]) => k !== fair));
        }
        assert.deepEqual(seen[cheap], ["failed", "price_below_catalog"]);
        assert.deepEqual(seen[unknown], ["failed", "item_not_found"]);
        assert.deepEqual(seen[fair], ["delivered", undefined]);
        assert.deepEqual(await wallet(p.headers), { gems: 60 }, "only the fair purchase granted");
        assert.ok(h.logs.some((line) => line.includes('"event":"item_purchase_refused"') && line.includes(cheap)));
        assert.equal(h.logs.filter((line) => line.includes('"event":"item_delivered"') && (line.includes(cheap) || line.includes(unknown))).length, 0);
        const metrics = await h.services.metrics.registry.getSingleMetricAsString("economy_item_purchases_refused_total");
        assert.match(metrics, new RegExp(`economy_item_purchases_refused_total\\{platform="${platform}",reason="price_below_catalog"\\} [1-9]`));
        const granted = await h.services.metrics.registry.getSingleMetricAsString("economy_grants_total");
        assert.match(granted, /economy_grants_total\{app="default",source="item_push"\} [1-9]/);
      });
    }
  });
}

/**
 * LiveOps end to end on every store backend: GET /api/config (the example definitions, ETag and
 * 304), a published sale charged to coin orders (the order's unit price is the sale's, the ledger
 * names the event), analytics events stamped with the served variant and the active events, the
 * example experiment's ad reward multiplier applied by the server, and the player's variant kept
 * when the weights change.
 */
import assert from "node:assert/strict";
import type { LiveOpsStore } from "../../src/core/ports/liveops-store";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`LiveOps end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    const server = paymentServerPerSuite(backend);
    let h: Harness;
    before(() => (h = server.h));

    async function player(coins = 0) {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("lo")}`);
      const openid = login.body.data.openid as string;
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: coins }) });
      return { openid, userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const base = () => structuredClone(h.services.liveops.current("default").definitions);

    it("GET /api/config: the example's flags, experiment and scheduled-later sale; ETag and If-None-Match → 304", async () => {
      const p = await player();
      const first = (await h.get("/api/config", p.headers)).body.data;
      assert.deepEqual([first.flags.welcome_text, first.experiments], ["Welcome to the arena!", []]);
      const defs = base();
      delete defs.experiments[0].startsAt;
      await h.services.liveops.publish("default", defs, "test");
      const res = await h.get("/api/config", p.headers);
      assert.equal(res.status, 200);
      const data = res.body.data;
      assert.deepEqual(data.experiments.map((e: { experimentId: string }) => e.experimentId), ["example-reward"]);
      assert.ok(["control", "double"].includes(data.experiments[0].variant));
      assert.deepEqual(data.events.map((e: { eventId: string; active: boolean }) => [e.eventId, e.active]), [["example-sale", false]]);
      const etag = res.headers.get("etag")!;
      assert.ok(etag);
      const again = await fetch(`${h.baseUrl}/api/config`, { headers: { ...p.headers, "if-none-match": etag } });
      assert.equal(again.status, 304);
      assert.equal((await h.get("/api/config?appVersion=one", p.headers)).status, 400);
      assert.equal((await h.get("/api/config")).status, 401);
    });

    it("a sale: the catalog shows the price paid now and the regular one; a coin order is priced and charged the sale's; the ledger names the event", async () => {
      const defs = base();
      const sale = defs.events.find((e) => e.eventId === "example-sale")!;
      sale.startsAt = new Date(Date.now() - 60_000).toISOString();
      sale.endsAt = new Date(Date.now() + 3_600_000).toISOString();
      await h.services.liveops.publish("default", defs, "test");
      const p = await player(100);
      const sword = (await h.get("/api/catalog", p.headers)).body.data.items.find((i: { itemId: string }) => i.itemId === "sword");
      assert.deepEqual([sword.prices, sword.regularPrices, sword.saleEventId], [{ coins: 20 }, { coins: 30 }, "example-sale"]);
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "sword", coins: 30 }, p.headers)).status, 409);
      const order = await h.request("POST", "/api/payments/orders", { orderId: unique("o"), itemId: "sword", coins: 20 }, p.headers);
      assert.equal(order.status, 201, JSON.stringify(order.body));
      assert.deepEqual([order.body.data.unitPrice, order.body.data.liveEvent, order.body.data.state], [20, "example-sale", "delivered"]);
      const atRegular = (await h.services.payments.ledger.listByUser(p.userId, { limit: 10 })).filter((o) => o.liveEvent === null || o.liveEvent === undefined);
      assert.ok(atRegular.every((o) => o.state === "failed"), "only the refused order at the regular price has no event");
      const potion = await h.services.economy.rewards.grant({ appId: "default", userId: p.userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 20 } });
      assert.ok(potion.granted);
      const bought = await h.request("POST", "/api/economy/purchases", { purchaseId: unique("b"), itemId: "potion" }, p.headers);
      assert.deepEqual(bought.body.data.paid, { gems: 5 });
      const entries = await h.services.economy.store.entries("default", p.userId);
      assert.equal(entries.find((e) => e.source === "purchase")?.liveEvent, "example-sale");
      assert.equal(entries.find((e) => e.source === "coin_order")?.liveEvent, "example-sale", "the coin order's delivery names the event");
    });

    it("analytics events carry the player's variant and active live events: none before the config is served, the served variant after", async () => {
      const defs = base();
      delete defs.experiments[0].startsAt;
      const sale = defs.events.find((e) => e.eventId === "example-sale")!;
      sale.startsAt = new Date(Date.now() - 60_000).toISOString();
      sale.endsAt = new Date(Date.now() + 3_600_000).toISOString();
      await h.services.liveops.publish("default", defs, "test");
      const p = await player();
      const eventsOf = async (name: string) => {
        await h.services.analytics.writer.flush();
        const all = await h.services.analytics.store.userEvents({ userId: p.userId, limit: 100 });
        return all.filter((e) => e.name === name).map((e) => [e.experiments, e.liveEvents]);
      };
      // Counting a player never assigns them: the login came before any config was served.
      assert.deepEqual(await eventsOf("login"), [[{}, ["example-sale"]]]);
      const variant = (await h.get("/api/config", p.headers)).body.data.experiments[0].variant as string;
      assert.equal((await h.request("POST", "/api/events", { events: [{ name: "level_start" }] }, p.headers)).status, 202);
      assert.deepEqual(await eventsOf("client.level_start"), [[{ "example-reward": variant }, ["example-sale"]]]);
      assert.deepEqual(await (h.services.liveops as unknown as { store: LiveOpsStore }).store.assignments("default", p.userId), { "example-reward": variant });
    });

    it("an audience on a leaderboard best: a player whose best on the board is in range gets the audience's value", async () => {
      const defs = base();
      defs.audiences.push({ audienceId: "champions", rule: { leaderboardBest: { leaderboardId: "highscores", gte: 500 } } });
      defs.flags.find((f) => f.key === "welcome_text")!.audiences = [{ audienceId: "champions", value: "Hail, champion!" }];
      await h.services.liveops.publish("default", defs, "test");
      const [champion, other] = [await player(), await player()];
      await h.services.leaderboards.submit("default", champion.userId, "highscores", 700);
      await h.services.leaderboards.submit("default", other.userId, "highscores", 100);
      const welcome = async (p: { headers: Record<string, string> }) => (await h.get("/api/config", p.headers)).body.data.flags.welcome_text;
      assert.deepEqual([await welcome(champion), await welcome(other)], ["Hail, champion!", "Welcome to the arena!"]);
    });

    it("the ad reward: the experiment's variant multiplies it on the server; a player's variant stays when the weights change", async () => {
      const running = base();
      delete running.experiments[0].startsAt;
      await h.services.liveops.publish("default", running, "test");
      const p = await player();
      const variant = (await h.get("/api/config", p.headers)).body.data.experiments[0].variant as string;
      const reward = { transactionId: unique("t"), userId: p.openid, rewardItem: "", rewardAmount: 0, customData: JSON.stringify({ adUnitId: "adunit-example" }) };
      const outcome = await h.services.rewardSources.ads.verified("wechat", "default", reward, Date.now());
      assert.ok(outcome.valid);
      assert.deepEqual(outcome.result.balances, { gems: variant === "double" ? 10 : 5 });
      const defs = base();
      defs.experiments[0].variants = defs.experiments[0].variants.map((v) => ({ ...v, weight: v.variant === variant ? 0 : 100 }));
      await h.services.liveops.publish("default", defs, "test");
      assert.equal((await h.get("/api/config", p.headers)).body.data.experiments[0].variant, variant);
    });

    it("an audience on a property server code set: the flag's targeted value follows it", async () => {
      const defs = base();
      defs.audiences.push({ audienceId: "vips", rule: { property: { key: "vip", gte: 2 } } });
      defs.flags[0].audiences = [{ audienceId: "vips", value: "Welcome, VIP!" }];
      await h.services.liveops.publish("default", defs, "test");
      const p = await player();
      assert.equal((await h.get("/api/config", p.headers)).body.data.flags.welcome_text, "Welcome to the arena!");
      await h.services.liveops.setProperty("default", p.userId, "vip", 3);
      assert.equal((await h.get("/api/config", p.headers)).body.data.flags.welcome_text, "Welcome, VIP!");
    });

    it("erasing the account (DELETE /api/users/me) forgets the player's experiment assignments and properties", async () => {
      const running = base();
      delete running.experiments[0].startsAt;
      await h.services.liveops.publish("default", running, "test");
      const p = await player();
      await h.get("/api/config", p.headers);
      await h.services.liveops.setProperty("default", p.userId, "vip", 3);
      // The service's own store (private): what the erase must have emptied.
      const store = (h.services.liveops as unknown as { store: LiveOpsStore }).store;
      assert.equal(Object.keys(await store.assignments("default", p.userId)).length, 1, "assigned when first served");
      const erased = await fetch(`${h.baseUrl}/api/users/me`, { method: "DELETE", headers: p.headers });
      assert.equal(erased.status, 200, await erased.text());
      assert.deepEqual(await store.assignments("default", p.userId), {});
      assert.deepEqual(await store.properties("default", p.userId), {});
    });
  });
}

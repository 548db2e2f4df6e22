/**
 * New soft-currency purchases are limited per player (each writes a claim and a ledger entry, even
 * one refused for too few gems); replays of a recorded purchaseId never are. With
 * RATE_LIMIT_USER_MAX=3: three new purchaseIds pass, the fourth is 429 with nothing written, while
 * 30 replays of an earlier purchaseId still answer 200 with the same purchase.
 */
import assert from "node:assert/strict";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`economy: new purchases limited per player, replays never: ${backend.name}`, function () {
    this.timeout(60_000);
    const server = paymentServerPerSuite(backend, { RATE_LIMIT_USER_MAX: "3", RATE_LIMIT_WINDOW_SEC: "600" });

    it("answers the 4th new purchaseId 429 with nothing written, and every replay 200", async () => {
      const { h } = server;
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("limited")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const userId = login.body.data.user.id as string;
      const headers = { authorization: `Bearer ${login.body.data.token}` };
      await h.services.economy.rewards.grant({ appId: "default", userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 20 } });
      const entries = async () => (await h.services.economy.store.entries("default", userId)).length;
      const buy = (purchaseId: string, quantity = 1) => h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion", quantity }, headers);

      const first = unique("buy");
      assert.equal((await buy(first)).status, 201);
      assert.equal((await buy(unique("buy"))).status, 201);
      // Too few gems (10 potions at 10 gems) is still written (a refused entry): it counts.
      assert.equal((await buy(unique("buy"), 10)).status, 402);
      assert.equal(await entries(), 4);

      const limited = await buy(unique("buy"));
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.data.code, "rate_limited");
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal(await entries(), 4, "nothing written");

      const replays = await Promise.all(Array.from({ length: 30 }, () => buy(first)));
      assert.deepEqual(new Set(replays.map((r) => r.status)), new Set([200]));
      assert.equal(await entries(), 4);
    });
  });
}

/**
 * The playground's simulator controls (`/playground/simulator/*`): with the embedded simulator they
 * act for the Bearer token's player (the openid the login kept, the token's app); without it, or
 * with the playground off, they do not exist.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function login(h: Harness, platform: "wechat" | "qq") {
  const res = await h.get(platform === "wechat" ? `/api/minigame/wechat/login?jsCode=${unique("pg")}` : `/api/minigame/${platform}/login?code=${unique("pg")}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { token: res.body.data.token as string, openid: res.body.data.openid as string, userId: res.body.data.user.id as string };
}

describe("playground simulator routes", function () {
  this.timeout(30_000);

  describe("with the embedded simulator", () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin,qq", PLAYGROUND_ENABLED: "true" } });
    });
    after(async () => h?.close());

    it("refuse a request without a valid token with the 401 envelope", async () => {
      for (const route of ["coins", "item-purchase"]) {
        const missing = await h.request("POST", `/playground/simulator/${route}`, { balance: 5 });
        assert.equal(missing.status, 401);
        assert.deepEqual(missing.body, { success: false, message: "An access token is required", data: { code: "token_missing" } });
        const forged = await h.request("POST", `/playground/simulator/${route}`, { balance: 5 }, bearer("ey.not.a-token"));
        assert.equal(forged.status, 401);
        assert.equal(forged.body.data.code, "token_invalid");
      }
    });

    it("set the token's player's balance in the simulator, which the payment routes then read", async () => {
      const p = await login(h, "wechat");
      const set = await h.request("POST", "/playground/simulator/coins", { balance: 250 }, bearer(p.token));
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body.data, { platform: "wechat", appId: set.body.data.appId, balance: 250 });
      const book = (await (await fetch(`${h.services.simulator!.url}/__simulator/coins?platform=wechat&openid=${p.openid}`)).json()) as { balance: number };
      assert.equal(book.balance, 250, "the login's openid is the one topped up");
      assert.deepEqual((await h.get("/api/payments/balance", bearer(p.token))).body.data, { balance: 250 });

      const bad = await h.request("POST", "/playground/simulator/coins", { balance: -1 }, bearer(p.token));
      assert.equal(bad.status, 400);
      assert.equal(bad.body.data.code, "invalid_request");
    });

    it("buy an item for the player: the simulator pushes it and the server delivers the order under the given trade number", async () => {
      const p = await login(h, "wechat");
      const outTradeNo = unique("trade");
      const bought = await h.request("POST", "/playground/simulator/item-purchase", { itemId: "gem_pack", price: 600, outTradeNo }, bearer(p.token));
      assert.equal(bought.status, 200, JSON.stringify(bought.body));
      assert.equal(bought.body.data.outTradeNo, outTradeNo);
      const deadline = Date.now() + 10_000;
      let order;
      do {
        order = await h.get(`/api/payments/orders/${outTradeNo}`, bearer(p.token));
        if (order.body.data?.state === "delivered") break;
        await new Promise((r) => setTimeout(r, 100));
      } while (Date.now() < deadline);
      assert.equal(order.status, 200, JSON.stringify(order.body));
      assert.deepEqual([order.body.data.kind, order.body.data.itemId, order.body.data.coins, order.body.data.state], ["item_purchase", "gem_pack", 600, "delivered"]);
    });

    it("pass the simulator's refusal on (it simulates no QQ item purchases)", async () => {
      const p = await login(h, "qq");
      const refused = await h.request("POST", "/playground/simulator/item-purchase", { itemId: "gem_pack", price: 600 }, bearer(p.token));
      assert.equal(refused.status, 400);
      assert.equal(refused.body.data.code, "invalid_request");
      assert.match(refused.body.message, /^The simulator refused: item purchases are simulated for /);
    });
  });

  for (const [name, env] of [
    ["with a standalone simulator (as in production: no simulator in the process)", { PLAYGROUND_ENABLED: "true" }],
    ["with the embedded simulator but the playground off", { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", PLAYGROUND_ENABLED: "false" }],
  ] as const) {
    describe(name, () => {
      let h: Harness;
      before(async () => {
        h = await startHarness({ env });
      });
      after(async () => h?.close());

      it("do not exist, even for a logged-in player", async () => {
        assert.equal(h.config.simulator === "embedded", name.includes("embedded"));
        const p = await login(h, "wechat");
        for (const route of ["coins", "item-purchase"]) {
          const res = await h.request("POST", `/playground/simulator/${route}`, { balance: 5, itemId: "x", price: 1 }, bearer(p.token));
          assert.equal(res.status, 404);
          assert.equal(res.body.data.code, "route_not_found");
        }
      });
    });
  }
});

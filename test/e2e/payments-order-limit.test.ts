/**
 * New orders are limited per player (each is a platform call, even one refused for too few coins);
 * replays of a recorded orderId never are. With RATE_LIMIT_USER_MAX=3: three new orderIds pass, the
 * fourth is 429 with nothing recorded and nothing asked of the platform, while 30 replays of an
 * earlier orderId still answer 200 with the same order.
 */
import assert from "node:assert/strict";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`payments: new orders limited per player, replays never: ${backend.name}`, function () {
    this.timeout(60_000);
    const server = paymentServerPerSuite(backend, { RATE_LIMIT_USER_MAX: "3", RATE_LIMIT_WINDOW_SEC: "600" });

    it("answers the 4th new orderId 429 with nothing recorded or deducted, and every replay 200", async () => {
      const { h } = server;
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("limited")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const openid = login.body.data.openid as string;
      const headers = { authorization: `Bearer ${login.body.data.token}` };
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
      const deductions = async () => ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { deductions: number }).deductions;

      const spend = (orderId: string, quantity = 1) => h.request("POST", "/api/payments/orders", { orderId, itemId: "gem", quantity }, headers);
      const first = unique("ord");
      assert.equal((await spend(first)).status, 201);
      assert.equal((await spend(unique("ord"))).status, 201);
      // Too few coins (100 gems at 10 coins) still asked the platform: it counts.
      assert.equal((await spend(unique("ord"), 100)).status, 402);
      assert.equal(await deductions(), 2);

      const refused = unique("ord");
      const limited = await spend(refused);
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.data.code, "rate_limited");
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal((await h.get(`/api/payments/orders/${refused}`, headers)).status, 404, "nothing recorded");
      assert.equal(await deductions(), 2, "nothing asked of the platform");

      const replays = await Promise.all(Array.from({ length: 30 }, () => spend(first)));
      assert.deepEqual(new Set(replays.map((r) => r.status)), new Set([200]));
      assert.equal(await deductions(), 2);
    });
  });
}

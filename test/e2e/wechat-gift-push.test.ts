/**
 * WeChat's gift push on the real server, every store: only safe mode grants (the plain-mode query
 * signature does not cover the body, so a captured URL with another body is refused and grants
 * nothing), and an OrderId already granted to another player is answered as handled (ErrCode 0:
 * WeChat stops pushing it), logged and counted, granting nothing more.
 */
import assert from "node:assert/strict";
import { platformDefinitions } from "../../src/platforms/registry";
import { pushSignature } from "../../src/platforms/wechat/wechat-push";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { giftEvent, sealedGiftPush } from "../support/wechat-gift-pushes";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const WECHAT_APP = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;

for (const backend of backends) {
  describe(`WeChat gift push on the server: ${backend.name}`, function () {
    this.timeout(60_000);
    const server = paymentServerPerSuite(backend, simulatorRewardEnv());

    async function player() {
      const login = await server.h.get(`/api/minigame/wechat/login?jsCode=${unique("gift")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { openid: login.body.data.openid as string, userId: login.body.data.user.id as string };
    }
    const gems = async (userId: string) => (await server.h.services.economy.store.state("default", userId)).balances.gems ?? 0;
    const giftEntries = async (userId: string) => (await server.h.services.economy.store.entries("default", userId)).filter((e) => e.source === "gift_pack");
    const post = async (query: string, body: string) => {
      const res = await fetch(`${server.h.baseUrl}/api/minigame/wechat/gift-push?${query}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      return (await res.json()) as { ErrCode: number; ErrMsg: string };
    };

    it("grants a safe-mode push once; a captured plain-mode URL with another body is refused and grants nothing", async () => {
      const alice = await player();
      const mallory = await player();
      const sealed = sealedGiftPush(WECHAT_APP, { orderId: unique("order"), openid: alice.openid, giftId: "gift-example" });
      assert.deepEqual(await post(sealed.query, sealed.body), { ErrCode: 0, ErrMsg: "Success" });
      assert.deepEqual(await post(sealed.query, sealed.body), { ErrCode: 0, ErrMsg: "Success" });
      assert.equal(await gems(alice.userId), 20);

      // A genuine plain-mode URL (its signature covers Token, timestamp and nonce only) replayed with bodies of the attacker's choosing.
      const k = simulatorRewardKeys("wechat", WECHAT_APP);
      const ts = String(Math.floor(Date.now() / 1000));
      const url = new URLSearchParams({ signature: pushSignature(k.giftPushToken, ts, "captured"), timestamp: ts, nonce: "captured" }).toString();
      for (const orderId of [unique("forged"), unique("forged")]) {
        assert.deepEqual(await post(url, giftEvent({ orderId, openid: mallory.openid, giftId: "gift-example" })), { ErrCode: 40011, ErrMsg: "plain_mode" });
      }
      assert.equal(await gems(mallory.userId), 0);
      assert.deepEqual(await giftEntries(mallory.userId), []);
    });

    it("the simulator's plain-mode push is never acknowledged; its safe-mode push is granted", async () => {
      const bob = await player();
      const send = (safeMode: boolean) =>
        fetch(`${server.h.simulator.url}/__simulator/gift`, {
          method: "POST",
          body: JSON.stringify({ platform: "wechat", openid: bob.openid, giftId: "gift-example", safeMode, notifyUrl: `${server.h.baseUrl}/api/minigame/wechat/gift-push` }),
        }).then(async (r) => ((await r.json()) as { orderId: string }).orderId);
      const plain = await send(false);
      const safe = await send(true);
      for (let i = 0; i < 100 && (await giftEntries(bob.userId)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual((await giftEntries(bob.userId)).map((e) => e.sourceId), [safe]);
      assert.notEqual(plain, safe);
      assert.equal(await gems(bob.userId), 20);
    });

    it("an OrderId already granted to another player is answered as handled: ErrCode 0, nothing granted, logged and counted", async () => {
      const [first, second] = [await player(), await player()];
      const orderId = unique("shared");
      const pushFor = (openid: string) => sealedGiftPush(WECHAT_APP, { orderId, openid, giftId: "gift-example" });
      const granted = pushFor(first.openid);
      assert.deepEqual(await post(granted.query, granted.body), { ErrCode: 0, ErrMsg: "Success" });
      const other = pushFor(second.openid);
      assert.deepEqual(await post(other.query, other.body), { ErrCode: 0, ErrMsg: "Success" });
      assert.equal(await gems(second.userId), 0);
      assert.deepEqual(await giftEntries(second.userId), []);
      assert.equal((await giftEntries(first.userId)).length, 1);
      assert.ok(server.h.logs.some((line) => line.includes('"event":"gift_push_refused"') && line.includes("granted_to_another_player") && line.includes(orderId)));
      const metrics = await server.h.services.metrics.registry.getSingleMetricAsString("platform_pushes_refused_total");
      assert.match(metrics, /platform_pushes_refused_total\{platform="wechat",push="gift",reason="granted_to_another_player"\} 1/);
    });
  });
}

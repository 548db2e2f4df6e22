/**
 * Douyin item purchases end to end, with the standalone simulator and with the embedded one: the
 * console's URL verification; a purchase the simulator calls back is delivered once and listed with
 * platformOrderId = its trade number; the same callback 5 times is one delivery; forged, stale,
 * other-app and malformed callbacks are refused with nothing recorded; a callback that cannot be
 * recorded is answered non-200 and the simulator calls again.
 */
import assert from "node:assert/strict";
import { platformDefinitions } from "../../src/platforms/registry";
import { callbackSignature, signCallback } from "../../src/platforms/douyin/douyin-push";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const DOUYIN_APP = platformDefinitions.find((p) => p.name === "douyin")!.simulatorApp.appId;
const keys = simulatorPaymentKeys("douyin", DOUYIN_APP);
const nowSec = () => Math.floor(Date.now() / 1000);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const backend of backends) {
  for (const mode of ["standalone", "embedded"] as const) {
    describe(`Douyin item purchases at /api/minigame/douyin/push: ${backend.name}, ${mode} simulator`, function () {
      this.timeout(60_000);
      let h: Harness;
      let release: () => Promise<void>;
      /** The simulator whose controls the tests use: the standalone one, or the one inside the server. */
      let simulatorUrl: string;

      before(async () => {
        const prepared = await backend.prepare();
        release = prepared.release;
        if (mode === "standalone") {
          // Retries compressed (10 s → 5 ms) so the not-recorded case sees several calls.
          const simulator = await startSimulator({ port: 0, payments: { pushRetryScale: 0.0005 } });
          h = await startHarness({ simulator, env: { ...prepared.env, ...simulatorPaymentEnv(simulator.url) } });
          simulatorUrl = simulator.url;
        } else {
          // No payment settings: the embedded simulator's keys, and its default notify URL (this server's route).
          h = await startHarness({ env: { ...prepared.env, PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin" } });
          simulatorUrl = h.services.simulator!.url;
        }
      });
      after(async () => {
        await h?.close();
        if (mode === "standalone") await h?.simulator.close();
        await release?.();
      });

      const pushUrl = () => `${h.baseUrl}/api/minigame/douyin/push`;
      const delivered = (tradeNo: string) => h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(tradeNo)).length;

      async function player() {
        const login = await h.get(`/api/minigame/douyin/login?code=${unique("buyer")}`);
        assert.equal(login.status, 200, JSON.stringify(login.body));
        return { openid: login.body.data.openid as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
      }
      const orders = async (headers: Record<string, string>) => (await h.get("/api/payments/orders", headers)).body.data.orders as Array<Record<string, unknown>>;
      const buy = async (body: Record<string, unknown>) => {
        const res = await fetch(`${simulatorUrl}/__simulator/item-purchase`, { method: "POST", body: JSON.stringify({ platform: "douyin", ...body }) });
        assert.equal(res.status, 200);
        return ((await res.json()) as { outTradeNo: string }).outTradeNo;
      };

      /** A callback as Douyin signs it, with parts a test may spoil. */
      function callback(openid: string, tradeNo: string, spoil: { token?: string; appid?: string; timestamp?: number; body?: string } = {}) {
        const msg = { appid: spoil.appid ?? DOUYIN_APP, cp_orderno: tradeNo, cp_extra: JSON.stringify({ openid, itemId: "gem_pack" }), order_no_channel: `dy${tradeNo}`, amount_cent: 600, amount_coin: 0, currency: "CNY" };
        const body = spoil.body ?? signCallback(spoil.token ?? keys.pushToken, msg, String(spoil.timestamp ?? nowSec()), "1234");
        return fetch(pushUrl(), { method: "POST", headers: { "content-type": "application/json" }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as { err_no: number; err_tips: string } }));
      }

      it("answers the console's URL verification with the echo, and refuses another Token", async () => {
        const q = (token: string) => {
          const timestamp = String(nowSec());
          return new URLSearchParams({ signature: callbackSignature(token, timestamp, "77", ""), timestamp, nonce: "77", msg: "", echostr: "echo-dy" });
        };
        const ok = await fetch(`${pushUrl()}?${q(keys.pushToken)}`);
        assert.equal(ok.status, 200);
        assert.equal(await ok.text(), "echo-dy");
        assert.equal((await fetch(`${pushUrl()}?${q("forged")}`)).status, 401);
      });

      it("delivers a purchase the simulator calls back, once, listed under the trade number", async () => {
        const p = await player();
        const tradeNo = await buy({ openid: p.openid, itemId: "gem_pack", price: 600, ...(mode === "standalone" ? { notifyUrl: pushUrl() } : {}) });
        const listed = await until(() => orders(p.headers), (list) => list[0]?.state === "delivered");
        assert.equal(listed.length, 1);
        assert.deepEqual(
          { orderId: listed[0].orderId, platformOrderId: listed[0].platformOrderId, kind: listed[0].kind, itemId: listed[0].itemId, coins: listed[0].coins, platform: listed[0].platform, state: listed[0].state },
          { orderId: tradeNo, platformOrderId: tradeNo, kind: "item_purchase", itemId: "gem_pack", coins: 600, platform: "douyin", state: "delivered" },
        );
        assert.equal(delivered(tradeNo), 1);
      });

      it("records and delivers a callback whose cp_orderno the player used for a coin spend, and two players' under one cp_orderno", async () => {
        const p = await player();
        await fetch(`${simulatorUrl}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid: p.openid, balance: 100 }) });
        const shared = unique("shared");
        const spent = await h.request("POST", "/api/payments/orders", { orderId: shared, itemId: "sword", coins: 30 }, p.headers);
        assert.equal(spent.status, 201, JSON.stringify(spent.body));
        assert.deepEqual(await callback(p.openid, shared), { status: 200, body: { err_no: 0, err_tips: "success" } });
        const both = await until(() => orders(p.headers), (list) => list.length === 2 && list.every((o) => o.state === "delivered"));
        assert.deepEqual(both.map((o) => `${o.kind}:${o.state}`).sort(), ["coin_spend:delivered", "item_purchase:delivered"]);
        assert.equal(delivered(shared), 2, "the coin spend and the item purchase, each once");

        const other = await player();
        assert.deepEqual(await callback(other.openid, shared), { status: 200, body: { err_no: 0, err_tips: "success" } });
        const theirs = await until(() => orders(other.headers), (list) => list[0]?.state === "delivered");
        assert.deepEqual(theirs.map((o) => `${o.kind}:${o.platformOrderId}`), [`item_purchase:${shared}`]);
      });

      it("records the same callback sent 5 times once; refuses forged, stale, other-app and malformed ones, recording nothing", async () => {
        const p = await player();
        const tradeNo = unique("dytrade");
        const replies = await Promise.all(Array.from({ length: 5 }, () => callback(p.openid, tradeNo)));
        for (const r of replies) assert.deepEqual(r, { status: 200, body: { err_no: 0, err_tips: "success" } });
        await until(async () => delivered(tradeNo), (n) => n > 0);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(delivered(tradeNo), 1);

        const other = simulatorPaymentKeys("douyin", "tt_other_app");
        const refused = [
          await callback(p.openid, unique("forged"), { token: "forged-token" }),
          await callback(p.openid, unique("stale"), { timestamp: nowSec() - 3600 }),
          await callback(p.openid, unique("otherapp"), { token: other.pushToken, appid: "tt_other_app" }),
          await callback(p.openid, unique("wrongapp"), { appid: "tt_other_app" }),
          await callback(p.openid, unique("malformed"), { body: "{not json" }),
        ];
        assert.deepEqual(
          refused.map((r) => [r.status, r.body.err_tips]),
          [[401, "bad_signature"], [400, "stale_timestamp"], [401, "bad_signature"], [400, "wrong_app"], [400, "malformed"]],
        );
        assert.deepEqual((await orders(p.headers)).map((o) => o.orderId), [tradeNo]);
      });

      if (mode === "standalone") {
        it("answers non-200 when the purchase cannot be recorded, and the simulator calls again", async () => {
          const tradeNo = await buy({ openid: unique("nobody"), itemId: "gem_pack", price: 600, notifyUrl: pushUrl() });
          const trade = () => h.simulator.payments.itemPurchases.trade(tradeNo)!;
          await until(async () => trade().attempts, (n) => n >= 3);
          assert.ok(trade().attempts >= 3, `called ${trade().attempts} times`);
          assert.equal(trade().acknowledged, false);
          assert.equal(delivered(tradeNo), 0);
          assert.ok(h.logs.some((line) => line.includes('"event":"push_not_recorded"') && line.includes(tradeNo)));
        });
      }
    });
  }
}

/**
 * An item purchase whose push never reached the server, end to end on the simulator: the player's read
 * of the order makes the server ask WeChat (`/xpay/query_order`), records it as the push would, delivers
 * it once, and the push arriving late changes nothing. Another player's read of the same order, an
 * unknown order and a Douyin player's read record nothing; reads become platform queries only through
 * the throttle; the simulator refuses a query signed with the wrong key.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { platformDefinitions } from "../../src/platforms/registry";
import { wechatPaySig } from "../../src/platforms/wechat/wechat-coins";
import { payEventSig, pushSignature } from "../../src/platforms/wechat/wechat-push";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { freePort, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}i${seq++}`;
const WECHAT = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp;
const keys = simulatorPaymentKeys("wechat", WECHAT.appId);

for (const backend of backends) {
  describe(`item purchases the push did not bring: ${backend.name}`, function () {
    this.timeout(60_000);
    const server = paymentServerPerSuite(backend);
    let h: Harness;
    let lostPushUrl: string;

    before(async () => {
      h = server.h;
      // Nothing listens there: each push fails and is retried 15 s later, long after these tests.
      lostPushUrl = `http://127.0.0.1:${await freePort()}/push`;
    });

    async function player(platform: "wechat" | "douyin" = "wechat") {
      const login = platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("p")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { openid: login.body.data.openid as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    /** A purchase the player paid in WeChat whose push cannot reach the server. */
    async function buyWithLostPush(openid: string, outTradeNo: string) {
      const res = await fetch(`${h.simulator.url}/__simulator/item-purchase`, {
        method: "POST",
        body: JSON.stringify({ platform: "wechat", openid, itemId: "gem_pack", price: 600, outTradeNo, notifyUrl: lostPushUrl }),
      });
      assert.equal(res.status, 200);
    }
    const deliveries = (orderId: string) => h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(`"orderId":"${orderId}"`)).length;
    const queries = (orderId: string) => h.simulator.payments.orderQueries(orderId);
    const orderIds = async (headers: Record<string, string>) => (await h.get("/api/payments/orders", headers)).body.data.orders.map((o: { orderId: string }) => o.orderId);

    /** The push WeChat would have sent for that trade, arriving late. */
    async function latePush(openid: string, outTradeNo: string) {
      const payload = JSON.stringify({ OpenId: openid, Env: 1, OutTradeNo: outTradeNo, GoodsInfo: { ProductId: "gem_pack", Quantity: 1, OrigPrice: 600, ActualPrice: 600, Attach: "gem_pack" } });
      const event = { ToUserName: "gh_x", FromUserName: openid, CreateTime: 1, MsgType: "event", Event: "minigame_game_pay_goods_deliver_notify", MiniGame: { Payload: payload, PayEventSig: payEventSig(keys.sandboxAppKey, payload) } };
      const timestamp = String(Math.floor(Date.now() / 1000));
      const query = new URLSearchParams({ signature: pushSignature(keys.pushToken, timestamp, "n1"), timestamp, nonce: "n1" });
      const res = await fetch(`${h.baseUrl}/api/minigame/wechat/push?${query}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(event) });
      return res.json();
    }

    it("delivers once, at the player's first read, a purchase whose push was lost; the late push changes nothing", async () => {
      const p = await player();
      const orderId = unique("lost");
      await buyWithLostPush(p.openid, orderId);
      const read = await h.get(`/api/payments/orders/${orderId}`, p.headers);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual([read.body.data.kind, read.body.data.itemId, read.body.data.coins, read.body.data.state, read.body.data.platformOrderId], ["item_purchase", "gem_pack", 600, "delivered", orderId]);
      assert.equal(deliveries(orderId), 1);
      assert.equal(queries(orderId), 1);

      // Reads now come from the ledger: no second query.
      assert.equal((await h.get(`/api/payments/orders/${orderId}`, p.headers)).body.data.state, "delivered");
      assert.equal(queries(orderId), 1);

      assert.deepEqual(await latePush(p.openid, orderId), { ErrCode: 0, ErrMsg: "Success" });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(deliveries(orderId), 1, "the late push delivers nothing more");
      assert.deepEqual(await orderIds(p.headers), [orderId]);
    });

    it("answers another player's read of the order 404 and records nothing; the buyer's read still finds it", async () => {
      const buyer = await player();
      const other = await player();
      const orderId = unique("theirs");
      await buyWithLostPush(buyer.openid, orderId);
      const foreign = await h.get(`/api/payments/orders/${orderId}`, other.headers);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.data.code, "order_not_found");
      assert.equal(queries(orderId), 1, "WeChat was asked for the other player's openid and said no");
      assert.deepEqual(await orderIds(other.headers), []);
      assert.deepEqual(await orderIds(buyer.headers), []);
      assert.equal(deliveries(orderId), 0);

      assert.equal((await h.get(`/api/payments/orders/${orderId}`, buyer.headers)).body.data.state, "delivered");
      assert.deepEqual(await orderIds(other.headers), []);
    });

    it("answers an unknown orderId 404 with one platform query however fast the player polls, and asks nothing for Douyin", async () => {
      const p = await player();
      const orderId = unique("nosuch");
      for (let i = 0; i < 5; i++) {
        const read = await h.get(`/api/payments/orders/${orderId}`, p.headers);
        assert.deepEqual([read.status, read.body.data.code], [404, "order_not_found"]);
      }
      const burst = await Promise.all(Array.from({ length: 10 }, () => h.get(`/api/payments/orders/${orderId}`, p.headers)));
      assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([404]));
      assert.equal(queries(orderId), 1);

      const douyin = await player("douyin");
      const dyOrder = unique("dy");
      assert.equal((await h.get(`/api/payments/orders/${dyOrder}`, douyin.headers)).status, 404);
      assert.equal(queries(dyOrder), 0);
    });

    it("the simulator's order query refuses a pay_sig made with another key (268490003) and answers the right one", async () => {
      const p = await player();
      const orderId = unique("sig");
      await buyWithLostPush(p.openid, orderId);
      const tokenRes = await fetch(`${h.simulator.url}/cgi-bin/stable_token`, { method: "POST", body: JSON.stringify({ grant_type: "client_credential", appid: WECHAT.appId, secret: WECHAT.appSecret }) });
      const { access_token: token } = (await tokenRes.json()) as { access_token: string };
      const body = JSON.stringify({ openid: p.openid, env: 1, order_id: orderId });
      const ask = async (appKey: string) => {
        const query = new URLSearchParams({ access_token: token, pay_sig: wechatPaySig(appKey, "/xpay/query_order", body) });
        return (await fetch(`${h.simulator.url}/xpay/query_order?${query}`, { method: "POST", body })).json() as Promise<any>;
      };
      const forged = await ask(crypto.randomBytes(16).toString("hex"));
      assert.equal(forged.errcode, 268490003);
      assert.equal(forged.order, undefined);
      assert.equal((await ask(keys.appKey)).errcode, 268490003, "the live key does not sign a sandbox query");
      const answered = await ask(keys.sandboxAppKey);
      assert.deepEqual([answered.errcode, answered.order.order_id, answered.order.status, answered.order.paid_fee], [0, orderId, 2, 600]);
    });
  });
}

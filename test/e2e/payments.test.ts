/**
 * Payments end to end on the simulator, for WeChat and Douyin, on every store backend: balance, a
 * coin purchase delivered once (and told to the player's room), 100 concurrent replays of one orderId
 * (one deduction, one delivery), conflicts, insufficient balance, another player's order, a refund and
 * a grant; WeChat item purchases pushed (and pushed again, forged, stale, for another app, malformed).
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { Client, type Room } from "@colyseus/sdk";
import { platformDefinitions } from "../../src/platforms/registry";
import { payEventSig, pushSignature } from "../../src/platforms/wechat/wechat-push";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const WECHAT_APP = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;

for (const backend of backends) {
  describe(`payments end to end: ${backend.name}`, function () {
    this.timeout(60_000);
    // The standalone simulator's wallets and pushes, with the simulator's keys.
    const server = paymentServerPerSuite(backend);
    let h: Harness;
    before(() => (h = server.h));

    async function player(platform: "wechat" | "douyin", balance: number) {
      const login =
        platform === "wechat"
          ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("buyer")}`)
          : await h.get(`/api/minigame/douyin/login?code=${unique("buyer")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const openid = login.body.data.openid as string;
      const set = await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform, openid, balance }) });
      assert.equal(set.status, 200);
      return { token: login.body.data.token as string, openid, userId: login.body.data.user.id as string, headers: bearer(login.body.data.token) };
    }
    const coins = async (platform: string, openid: string) =>
      (await (await fetch(`${h.simulator.url}/__simulator/coins?platform=${platform}&openid=${openid}`)).json()) as { balance: number; deductions: number };

    for (const platform of ["wechat", "douyin"] as const) {
      it(`${platform}: balance, a purchase delivered once and told to the player's room, 100 concurrent replays`, async () => {
        const p = await player(platform, 100);
        assert.deepEqual((await h.get("/api/payments/balance", p.headers)).body.data, { balance: 100 });

        const ws = new Client(h.baseUrl.replace("http", "ws"));
        const room: Room = await ws.joinOrCreate("lobby", { accessToken: p.token });
        const told = new Promise<any>((resolve) => room.onMessage("purchase", resolve));
        const orderId = unique("ord");
        const first = await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, p.headers);
        assert.equal(first.status, 201, JSON.stringify(first.body));
        assert.equal(first.body.data.state, "delivered");
        assert.equal(first.body.data.platform, platform);
        assert.deepEqual(Object.keys(first.body.data).sort(), ["catalogVersion", "coins", "createdAt", "itemId", "kind", "orderId", "platform", "platformOrderId", "quantity", "state", "unitPrice", "updatedAt"]);
        assert.deepEqual([first.body.data.quantity, first.body.data.unitPrice, first.body.data.catalogVersion], [1, 30, 0]);
        assert.equal((await told).orderId, orderId);
        await room.leave();

        const again = await Promise.all(Array.from({ length: 100 }, () => h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, p.headers)));
        assert.deepEqual(new Set(again.map((r) => r.status)), new Set([200]));
        assert.deepEqual(new Set(again.map((r) => r.body.data.platformOrderId)), new Set([first.body.data.platformOrderId]));

        const fresh = unique("ord");
        const burst = await Promise.all(Array.from({ length: 100 }, () => h.request("POST", "/api/payments/orders", { orderId: fresh, itemId: "shield", coins: 20 }, p.headers)));
        assert.equal(burst.filter((r) => r.status === 201).length, 1);
        assert.equal(burst.filter((r) => r.status === 200).length, 99);
        assert.deepEqual(new Set(burst.map((r) => r.body.data.state)), new Set(["delivered"]));
        assert.deepEqual(await coins(platform, p.openid).then((c) => [c.balance, c.deductions]), [50, 2]);
        const delivered = h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(fresh));
        assert.equal(delivered.length, 1, "one delivery");
        assert.deepEqual((await h.get("/api/payments/balance", p.headers)).body.data, { balance: 50 });
      });
    }

    it("refuses a used orderId with another body (409), too few coins (402), and shows a player only their own orders", async () => {
      const p = await player("wechat", 10);
      const orderId = unique("ord");
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "gem", coins: 10 }, p.headers)).status, 201);
      const conflict = await h.request("POST", "/api/payments/orders", { orderId, itemId: "gem", coins: 11 }, p.headers);
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.data.code, "order_conflict");
      // The price is the catalog's: a client's own price is refused before the platform is asked.
      const cheap = await h.request("POST", "/api/payments/orders", { orderId: unique("ord"), itemId: "gem", coins: 1 }, p.headers);
      assert.equal(cheap.status, 409);
      assert.equal(cheap.body.data.code, "price_mismatch");
      const poor = await h.request("POST", "/api/payments/orders", { orderId: unique("ord"), itemId: "gem" }, p.headers);
      assert.equal(poor.status, 402);
      assert.equal(poor.body.data.code, "insufficient_balance");
      assert.equal(poor.body.data.order.state, "failed");
      assert.equal((await coins("wechat", p.openid)).deductions, 1);

      const list = await h.get("/api/payments/orders?state=delivered", p.headers);
      assert.deepEqual(list.body.data.orders.map((o: any) => o.orderId), [orderId]);
      assert.equal((await h.get(`/api/payments/orders/${orderId}`, p.headers)).body.data.state, "delivered");
      const other = await player("wechat", 0);
      const foreign = await h.get(`/api/payments/orders/${orderId}`, other.headers);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.data.code, "order_not_found");
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId: "bad id!", itemId: "gem", coins: 1 }, p.headers)).status, 400);
      assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "gem", coins: 0 }, p.headers)).status, 400);
      assert.equal((await h.get("/api/payments/balance")).status, 401);
    });

    it("after 502 payment_login_required: logging in again and retrying the same orderId charges once and delivers", async () => {
      const name = unique("relogin");
      const login = async (n: number) => {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=${name}.${n}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data;
      };
      const first = await login(1);
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
      // The player logs in to WeChat elsewhere (another device): WeChat retires the key this server kept.
      const { appId, appSecret } = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp;
      const elsewhere = await fetch(`${h.simulator.url}/sns/jscode2session?appid=${appId}&secret=${appSecret}&js_code=${name}.2&grant_type=authorization_code`);
      assert.equal(((await elsewhere.json()) as { openid: string }).openid, first.openid);

      const request = { orderId: unique("ord"), itemId: "sword", coins: 30 };
      const refused = await h.request("POST", "/api/payments/orders", request, bearer(first.token));
      assert.equal(refused.status, 502, JSON.stringify(refused.body));
      assert.equal(refused.body.data.code, "payment_login_required");
      assert.match(refused.body.message, /log in again and retry the same orderId/);
      assert.equal(refused.body.data.order.state, "pending");
      // Asked again before logging in: the same answer, never "no answer in time".
      const again = await h.request("POST", "/api/payments/orders", request, bearer(first.token));
      assert.equal(again.body.data.code, "payment_login_required", JSON.stringify(again.body));

      const second = await login(3);
      const retried = await h.request("POST", "/api/payments/orders", request, bearer(second.token));
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      assert.equal(retried.body.data.state, "delivered");
      assert.deepEqual(await coins("wechat", first.openid).then((c) => [c.balance, c.deductions]), [70, 1]);
    });

    it("answers 415 to an order whose body is not JSON", async () => {
      const p = await player("wechat", 100);
      const body = JSON.stringify({ orderId: unique("ord"), itemId: "sword", coins: 30 });
      const res = await fetch(`${h.baseUrl}/api/payments/orders`, { method: "POST", headers: { ...p.headers, "content-type": "text/plain" }, body });
      assert.equal(res.status, 415);
      assert.equal(((await res.json()) as { data: { code: string } }).data.code, "unsupported_media_type");
      assert.equal((await coins("wechat", p.openid)).deductions, 0);
    });

    it("refunds a coin order and grants coins through the operator's service, each once", async () => {
      const p = await player("wechat", 100);
      const orderId = unique("ord");
      await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, p.headers);
      const ops = h.services.payments.operations;
      assert.equal((await ops.refund(p.userId, orderId)).state, "refunded");
      assert.equal((await ops.refund(p.userId, orderId)).state, "refunded");
      assert.equal((await coins("wechat", p.openid)).balance, 100);
      const player_ = { userId: p.userId, platform: "wechat", appId: WECHAT_APP };
      const grantId = unique("grant");
      assert.equal((await ops.grant(player_, grantId, 25, "apology")).state, "delivered");
      assert.equal((await ops.grant(player_, grantId, 25, "apology")).state, "delivered");
      assert.equal((await coins("wechat", p.openid)).balance, 125);
      assert.equal((await h.get(`/api/payments/orders/${orderId}`, p.headers)).body.data.state, "refunded");
    });

    describe("WeChat item purchases pushed to /api/minigame/wechat/push", () => {
      const keys = simulatorPaymentKeys("wechat", WECHAT_APP);
      const pushUrl = () => `${h.baseUrl}/api/minigame/wechat/push`;

      /** A push as WeChat signs it, with parts a test may spoil. */
      function push(openid: string, tradeNo: string, spoil: { token?: string; appKey?: string; timestamp?: number; nonce?: string; body?: string; contentType?: string } = {}) {
        const payload = JSON.stringify({ OpenId: openid, Env: 1, OutTradeNo: tradeNo, GoodsInfo: { ProductId: "gem_pack", Quantity: 1, OrigPrice: 600, ActualPrice: 600, Attach: "" } });
        const event = { ToUserName: "gh_x", FromUserName: openid, CreateTime: 1, MsgType: "event", Event: "minigame_game_pay_goods_deliver_notify", MiniGame: { Payload: payload, PayEventSig: payEventSig(spoil.appKey ?? keys.sandboxAppKey, payload) } };
        const timestamp = String(spoil.timestamp ?? Math.floor(Date.now() / 1000));
        const nonce = spoil.nonce ?? crypto.randomBytes(4).toString("hex");
        const query = new URLSearchParams({ signature: pushSignature(spoil.token ?? keys.pushToken, timestamp, nonce), timestamp, nonce });
        return fetch(`${pushUrl()}?${query}`, { method: "POST", headers: { "content-type": spoil.contentType ?? "application/json" }, body: spoil.body ?? JSON.stringify(event) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { ErrCode: number; ErrMsg: string } }));
      }
      const itemOrder = async (headers: Record<string, string>, tradeNo: string) => {
        let order: any;
        for (let i = 0; i < 100 && order?.state !== "delivered"; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20));
          order = (await h.get(`/api/payments/orders/${tradeNo}?kind=item_purchase`, headers)).body.data;
        }
        return order;
      };

      it("records and delivers a push whose trade number the player already used for a coin spend", async () => {
        const p = await player("wechat", 100);
        const shared = unique("shared");
        assert.equal((await h.request("POST", "/api/payments/orders", { orderId: shared, itemId: "sword", coins: 30 }, p.headers)).status, 201);
        assert.deepEqual(await push(p.openid, shared), { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        const bought = await itemOrder(p.headers, shared);
        assert.deepEqual([bought.kind, bought.state, bought.itemId, bought.coins], ["item_purchase", "delivered", "gem_pack", 600]);
        assert.equal((await h.get(`/api/payments/orders/${shared}`, p.headers)).body.data.kind, "coin_spend");
        const orders = (await h.get("/api/payments/orders", p.headers)).body.data.orders;
        assert.deepEqual(orders.map((o: any) => o.kind).sort(), ["coin_spend", "item_purchase"]);
        assert.equal(h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(shared)).length, 2, "both delivered");
      });

      it("records and delivers two players' pushes under one trade number", async () => {
        const [a, b] = [await player("wechat", 0), await player("wechat", 0)];
        const tradeNo = unique("trade");
        for (const p of [a, b]) assert.deepEqual(await push(p.openid, tradeNo), { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        for (const p of [a, b]) {
          const order = await itemOrder(p.headers, tradeNo);
          assert.equal(order.state, "delivered");
          assert.equal((await h.get("/api/payments/orders", p.headers)).body.data.orders.length, 1);
        }
      });

      it("refuses a captured push URL carrying another body (40009 replayed, nothing recorded); the same push again is answered success", async () => {
        const p = await player("wechat", 0);
        const [tradeNo, other] = [unique("first"), unique("other")];
        const timestamp = Math.floor(Date.now() / 1000);
        const nonce = unique("nonce");
        assert.deepEqual(await push(p.openid, tradeNo, { timestamp, nonce }), { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        // WeChat's retry of the same push (same query, same body): not a replay, recorded once.
        assert.deepEqual(await push(p.openid, tradeNo, { timestamp, nonce }), { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        // The same (timestamp, nonce) with another body, even one whose PayEventSig verifies: refused.
        assert.deepEqual(await push(p.openid, other, { timestamp, nonce }), { status: 200, body: { ErrCode: 40009, ErrMsg: "replayed" } });
        assert.equal((await itemOrder(p.headers, tradeNo)).state, "delivered");
        assert.deepEqual((await h.get("/api/payments/orders", p.headers)).body.data.orders.map((o: any) => o.orderId), [tradeNo]);
      });

      it("answers a push body over 64 KiB in WeChat's shape (HTTP 200, non-zero ErrCode), recording nothing", async () => {
        const p = await player("wechat", 0);
        const tradeNo = unique("big");
        const res = await push(p.openid, tradeNo, { body: JSON.stringify({ padding: "x".repeat(70 * 1024) }) });
        assert.deepEqual(res, { status: 200, body: { ErrCode: 40007, ErrMsg: "body_too_large" } });
        assert.deepEqual((await h.get("/api/payments/orders", p.headers)).body.data.orders, []);
      });

      it("accepts a signed push sent as text/plain like one sent as JSON (the signatures decide, not the Content-Type)", async () => {
        const p = await player("wechat", 0);
        const tradeNo = unique("plain");
        assert.deepEqual(await push(p.openid, tradeNo, { contentType: "text/plain" }), { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        assert.equal((await itemOrder(p.headers, tradeNo)).state, "delivered");
      });

      it("answers the console's URL verification with the echo, and refuses another Token", async () => {
        const q = (token: string) => {
          const timestamp = String(Math.floor(Date.now() / 1000));
          return new URLSearchParams({ signature: pushSignature(token, timestamp, "n1"), timestamp, nonce: "n1", echostr: "echo-123" });
        };
        const ok = await fetch(`${pushUrl()}?${q(keys.pushToken)}`);
        assert.equal(ok.status, 200);
        assert.equal(await ok.text(), "echo-123");
        assert.equal((await fetch(`${pushUrl()}?${q("forged")}`)).status, 401);
      });

      it("delivers a purchase the simulator pushes, once", async () => {
        const p = await player("wechat", 0);
        const bought = await fetch(`${h.simulator.url}/__simulator/item-purchase`, {
          method: "POST",
          body: JSON.stringify({ platform: "wechat", openid: p.openid, itemId: "gem_pack", price: 600, notifyUrl: pushUrl() }),
        });
        const { outTradeNo } = (await bought.json()) as { outTradeNo: string };
        let order: any;
        for (let i = 0; i < 100 && order?.state !== "delivered"; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          order = (await h.get(`/api/payments/orders/${outTradeNo}`, p.headers)).body.data;
        }
        assert.equal(order.state, "delivered");
        assert.equal(order.platformOrderId, outTradeNo);
        assert.equal(order.kind, "item_purchase");
      });

      it("records the same push sent 5 times once; refuses forged, stale, other-app and malformed pushes, recording nothing", async () => {
        const p = await player("wechat", 0);
        const tradeNo = unique("trade");
        const replies = await Promise.all(Array.from({ length: 5 }, () => push(p.openid, tradeNo)));
        for (const r of replies) assert.deepEqual(r, { status: 200, body: { ErrCode: 0, ErrMsg: "Success" } });
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(tradeNo)).length, 1);

        const other = simulatorPaymentKeys("wechat", "wx_other_app");
        const refused = [
          await push(p.openid, unique("forged"), { token: "forged-token" }),
          await push(p.openid, unique("stale"), { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
          await push(p.openid, unique("otherapp"), { token: other.pushToken, appKey: other.sandboxAppKey }),
          await push(p.openid, unique("badsig"), { appKey: other.sandboxAppKey }),
          await push(p.openid, unique("malformed"), { body: "{not json" }),
        ];
        for (const r of refused) assert.notEqual(r.body.ErrCode, 0, JSON.stringify(r.body));
        const orders = (await h.get("/api/payments/orders", p.headers)).body.data.orders;
        assert.deepEqual(orders.map((o: any) => o.orderId), [tradeNo]);
      });
    });
  });
}

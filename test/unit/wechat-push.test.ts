/**
 * WeChat's item-purchase push: what the simulator sends is what the server's reader accepts, in
 * plain and safe mode; anything forged, stale, for another app or malformed is refused; the
 * simulator retries on WeChat's (compressed) schedule until it is answered success.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PaymentKeys } from "../../src/core/ports/coin-wallet";
import { decryptPush, encryptPush, pushSignature, readPush, verifiesUrl, type PushKeys, type PushOutcome } from "../../src/platforms/wechat/wechat-push";
import { ItemPurchaseSim } from "../../src/simulator/payments/item-purchase-sim";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";

const APP = "wx_push_app";
const keys = simulatorPaymentKeys("wechat", APP);
const paymentKeys: PaymentKeys = { ...keys, env: 1 };
const pushKeys = { token: keys.pushToken, encodingAesKey: keys.pushEncodingAesKey };

interface Captured {
  query: URLSearchParams;
  body: string;
}

/** A notify URL that records each push and answers from `answers` (then success). */
async function receiver(answers: Array<Record<string, unknown>> = []) {
  const pushes: Captured[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      pushes.push({ query: new URL(req.url ?? "/", "http://x").searchParams, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answers.shift() ?? { ErrCode: 0, ErrMsg: "Success" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/minigame/wechat/push`;
  return { url, pushes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function simulator(retryScale = 0.0001) {
  return new ItemPurchaseSim({ keys: simulatorPaymentKeys, defaultAppId: () => APP, retryScale });
}

const nowSec = () => Math.floor(Date.now() / 1000);

describe("WeChat item-purchase push", () => {
  it("verifies the console's URL check with the Token, and nothing else", () => {
    const q = new URLSearchParams({ timestamp: "1700000000", nonce: "abc", echostr: "hello" });
    q.set("signature", pushSignature(keys.pushToken, "1700000000", "abc"));
    assert.equal(verifiesUrl(keys.pushToken, q), true);
    assert.equal(verifiesUrl("another-token", q), false);
    q.set("signature", "0".repeat(40));
    assert.equal(verifiesUrl(keys.pushToken, q), false);
  });

  it("round-trips safe mode's AES envelope with the app id inside", () => {
    const sealed = encryptPush(keys.pushEncodingAesKey, '{"a":"b"}', APP);
    assert.deepEqual(decryptPush(keys.pushEncodingAesKey, sealed), { message: '{"a":"b"}', appId: APP });
  });

  for (const safeMode of [false, true]) {
    it(`reads the simulator's push as a purchase (${safeMode ? "safe" : "plain"} mode)`, async () => {
      const r = await receiver();
      const sim = simulator();
      const { body } = sim.purchase({ platform: "wechat", openid: "o_player", itemId: "gem_pack", price: 600, notifyUrl: r.url, safeMode });
      await until(() => r.pushes.length === 1);
      const push = r.pushes[0];
      assert.deepEqual(readPush(APP, pushKeys, paymentKeys, push.query, push.body, nowSec()), {
        kind: "purchase",
        openid: "o_player",
        tradeNo: body.outTradeNo,
        itemId: "gem_pack",
        price: 600,
        env: 1,
      });
      await r.close();
    });
  }

  describe("refusals", () => {
    let push: Captured;
    let safePush: Captured;
    before(async () => {
      const r = await receiver();
      const sim = simulator();
      sim.purchase({ platform: "wechat", openid: "o_player", itemId: "gem", price: 1, notifyUrl: r.url });
      sim.purchase({ platform: "wechat", openid: "o_player", itemId: "gem", price: 1, notifyUrl: r.url, safeMode: true });
      await until(() => r.pushes.length === 2);
      [push, safePush] = [...r.pushes].sort((a) => (a.query.has("encrypt_type") ? 1 : -1));
      await r.close();
    });
    const read = (p: Captured, overrides: { keys?: PaymentKeys; appId?: string; now?: number; push?: PushKeys } = {}): PushOutcome =>
      readPush(overrides.appId ?? APP, overrides.push ?? pushKeys, overrides.keys ?? paymentKeys, p.query, p.body, overrides.now ?? nowSec());

    it("refuses a forged signature", () => {
      const q = new URLSearchParams(push.query);
      q.set("signature", pushSignature("forged", q.get("timestamp")!, q.get("nonce")!));
      assert.deepEqual(read({ ...push, query: q }), { kind: "refused", reason: "bad_signature" });
    });

    it("refuses a push for another app: its Token, its AppKey, its app id inside", () => {
      const other = simulatorPaymentKeys("wechat", "wx_other");
      assert.deepEqual(read(push, { push: { token: other.pushToken } }), { kind: "refused", reason: "bad_signature" });
      assert.deepEqual(read(push, { keys: { ...other, env: 1 } }), { kind: "refused", reason: "bad_pay_sig" });
      assert.deepEqual(read(safePush, { appId: "wx_other" }), { kind: "refused", reason: "wrong_app" });
    });

    it("refuses a stale timestamp", () => {
      assert.deepEqual(read(push, { now: nowSec() + 301 }), { kind: "refused", reason: "stale_timestamp" });
    });

    it("refuses a sandbox push to an app set live", () => {
      assert.deepEqual(read(push, { keys: { ...paymentKeys, env: 0 } }), { kind: "refused", reason: "wrong_env" });
    });

    it("refuses a malformed body", () => {
      assert.deepEqual(read({ ...push, body: "{not json" }), { kind: "refused", reason: "malformed" });
      const event = JSON.parse(push.body);
      delete event.MiniGame.PayEventSig;
      assert.deepEqual(read({ ...push, body: JSON.stringify(event) }), { kind: "refused", reason: "malformed" });
    });

    it("takes the console's test push (IsMock) as nothing to record", () => {
      const event = JSON.parse(push.body);
      event.MiniGame.IsMock = true;
      assert.deepEqual(read({ ...push, body: JSON.stringify(event) }), { kind: "mock" });
    });
  });

  it("retries on the schedule until the push is answered success", async () => {
    const r = await receiver([{ ErrCode: 1, ErrMsg: "busy" }, { ErrCode: 1, ErrMsg: "busy" }]);
    const sim = simulator();
    const { body } = sim.purchase({ platform: "wechat", openid: "o_player", itemId: "gem", price: 1, notifyUrl: r.url });
    await until(() => sim.trade(body.outTradeNo as string)!.acknowledged);
    assert.equal(sim.trade(body.outTradeNo as string)!.attempts, 3);
    assert.equal(new Set(r.pushes.map((p) => JSON.parse(JSON.parse(p.body).MiniGame.Payload).OutTradeNo)).size, 1);
    sim.close();
    await r.close();
  });

  it("refuses requests it cannot play", () => {
    const sim = simulator();
    assert.equal(sim.purchase({ platform: "qq", openid: "o", itemId: "i", price: 1, notifyUrl: "http://x" }).status, 400);
    assert.equal(sim.purchase({ platform: "wechat", openid: "o", itemId: "i", price: -1, notifyUrl: "http://x" }).status, 400);
    assert.equal(sim.purchase({ platform: "wechat", openid: "o", itemId: "i", price: 1 }).status, 400);
  });
});

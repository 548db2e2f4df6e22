/**
 * Douyin's payment callback: the signature recipe against a published vector, what the simulator
 * sends is what the server's reader accepts, anything forged, stale, for another app or malformed is
 * refused, a non-paid status is acknowledged without a purchase; the simulator retries on Douyin's
 * (compressed) schedule until answered HTTP 200; the callback Token's settings.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError, parseConfig } from "../../src/config/config";
import { appPayments } from "../../src/config/settings/payments";
import { callbackSignature, readCallback, signCallback, verifiesCallbackUrl, type CallbackOutcome } from "../../src/platforms/douyin/douyin-push";
import { DOUYIN_CALLBACK_RETRY_MS, ItemPurchaseSim } from "../../src/simulator/payments/item-purchase-sim";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";

const APP = "tt_push_app";
const TOKEN = simulatorPaymentKeys("douyin", APP).pushToken;
const nowSec = () => Math.floor(Date.now() / 1000);

/** A notify URL that records each callback body and answers the statuses in `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ err_no: status === 200 ? 0 : 1, err_tips: status === 200 ? "success" : "busy" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/minigame/douyin/push`;
  return { url, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const simulator = (retryScale = 0.0001) => new ItemPurchaseSim({ keys: simulatorPaymentKeys, defaultAppId: () => APP, retryScale });

/** A callback as Douyin signs it, with the order's fields overridable. */
function callback(msg: Record<string, unknown> = {}, options: { token?: string; timestamp?: number } = {}): string {
  const order = { appid: APP, cp_orderno: "ord_1", cp_extra: JSON.stringify({ openid: "o_player", itemId: "gem_pack" }), order_no_channel: "dy1", amount_cent: 600, amount_coin: 0, currency: "CNY", ...msg };
  return signCallback(options.token ?? TOKEN, order, String(options.timestamp ?? nowSec()), "4321");
}
const read = (raw: string, now = nowSec()): CallbackOutcome => readCallback(APP, TOKEN, raw, now, 0);

describe("Douyin payment callback", () => {
  it("signs as Bytedance's published callback-signature test does", () => {
    // bytedance/open-pay-signature-go-demo, utils/sign_test.go, Test_CallbackSign.
    assert.equal(callbackSignature("fdsifakhflasjfxxxxxxxxx", "1652675265", "9999", "80850852"), "c9df04a40645c4ec15c13bc542cea589eac57e64");
  });

  it("verifies the console's URL check with the Token (msg empty or absent), and nothing else", () => {
    const q = new URLSearchParams({ timestamp: "1700000000", nonce: "123", echostr: "hello" });
    q.set("signature", callbackSignature(TOKEN, "1700000000", "123", ""));
    assert.equal(verifiesCallbackUrl(TOKEN, q), true);
    q.set("msg", "");
    assert.equal(verifiesCallbackUrl(TOKEN, q), true);
    assert.equal(verifiesCallbackUrl("another-token", q), false);
    q.set("msg", "changed");
    assert.equal(verifiesCallbackUrl(TOKEN, q), false);
  });

  it("reads the simulator's callback as a purchase, under the game's order number", async () => {
    const r = await receiver();
    const sim = simulator();
    const { body } = sim.purchase({ platform: "douyin", openid: "o_player", itemId: "gem_pack", price: 600, notifyUrl: r.url, outTradeNo: "game_ord_7" });
    assert.equal(body.outTradeNo, "game_ord_7");
    // The receiver records the body before it answers; the simulator marks the trade acknowledged on the answer.
    await until(() => r.bodies.length === 1 && sim.trade("game_ord_7")?.acknowledged === true);
    const trade = sim.trade("game_ord_7")!;
    assert.deepEqual(read(r.bodies[0]), { kind: "purchase", openid: "o_player", tradeNo: "game_ord_7", itemId: "gem_pack", price: 600, env: 0, channelOrderNo: trade.channelOrderNo });
    assert.deepEqual([trade.platform, trade.env, trade.acknowledged], ["douyin", 0, true]);
    assert.match(trade.channelOrderNo!, /^dy/);
    await r.close();
  });

  it("accepts the trade system's msg_signature name and a numeric timestamp", () => {
    const body = JSON.parse(callback());
    const renamed = JSON.stringify({ timestamp: Number(body.timestamp), nonce: body.nonce, msg: body.msg, type: "payment", msg_signature: body.signature });
    assert.equal(read(renamed).kind, "purchase");
  });

  it("refuses a forged signature, another app's order, a stale timestamp", () => {
    assert.deepEqual(read(callback({}, { token: "forged" })), { kind: "refused", reason: "bad_signature" });
    const tampered = JSON.parse(callback());
    tampered.msg = tampered.msg.replace("600", "1");
    assert.deepEqual(read(JSON.stringify(tampered)), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(read(callback({ appid: "tt_other" })), { kind: "refused", reason: "wrong_app" });
    assert.deepEqual(read(callback(), nowSec() + 301), { kind: "refused", reason: "stale_timestamp" });
    assert.deepEqual(read(callback(), nowSec() - 301), { kind: "refused", reason: "stale_timestamp" });
  });

  it("refuses a malformed body, msg or cp_extra", () => {
    const malformed = { kind: "refused", reason: "malformed" };
    assert.deepEqual(read("{not json"), malformed);
    const unsigned = JSON.parse(callback());
    delete unsigned.signature;
    assert.deepEqual(read(JSON.stringify(unsigned)), malformed);
    const ts = String(nowSec());
    assert.deepEqual(read(JSON.stringify({ timestamp: ts, nonce: "1", msg: "not json", signature: callbackSignature(TOKEN, ts, "1", "not json") })), malformed);
    assert.deepEqual(read(callback({ cp_extra: "gem_pack" })), malformed);
    assert.deepEqual(read(callback({ cp_extra: JSON.stringify({ itemId: "gem_pack" }) })), malformed);
    assert.deepEqual(read(callback({ cp_orderno: "no spaces allowed" })), malformed);
    assert.deepEqual(read(callback({ amount_cent: "600" })), malformed);
    assert.deepEqual(read(callback({ amount_cent: -1 })), malformed);
  });

  it("acknowledges a callback that is not a paid order, without a purchase", () => {
    assert.deepEqual(read(callback({ status: "SUCCESS" })).kind, "purchase");
    assert.deepEqual(read(callback({ status: "FAIL", cp_extra: "" })), { kind: "ignored", what: "status FAIL" });
    const refund = JSON.parse(callback());
    refund.type = "refund";
    assert.deepEqual(read(JSON.stringify(refund)), { kind: "ignored", what: "type refund" });
  });

  it("retries on Douyin's schedule until the callback is answered HTTP 200", async () => {
    const r = await receiver([500, 503]);
    const sim = simulator();
    const { body } = sim.purchase({ platform: "douyin", openid: "o_player", itemId: "gem", price: 1, notifyUrl: r.url });
    const trade = () => sim.trade(body.outTradeNo as string)!;
    await until(() => trade().acknowledged);
    assert.equal(trade().attempts, 3);
    assert.equal(new Set(r.bodies.map((b) => JSON.parse(JSON.parse(b).msg).cp_orderno)).size, 1);
    assert.equal(DOUYIN_CALLBACK_RETRY_MS.reduce((a, b) => a + b, 0) / 3_600_000 > 4.7, true, "about 4 h 45 min in all");
    sim.close();
    await r.close();
  });

  it("refuses platforms it cannot play", () => {
    assert.equal(simulator().purchase({ platform: "qq", openid: "o", itemId: "i", price: 1, notifyUrl: "http://x" }).status, 400);
  });
});

describe("Douyin callback Token settings", () => {
  const base = { NODE_ENV: "test", PLATFORM_SIMULATOR: "off", PLATFORMS: "wechat,douyin", WECHAT_APP_ID: "wx1", WECHAT_APP_SECRET: "s1", DOUYIN_APP_ID: "tt1", DOUYIN_APP_SECRET: "s2" };

  it("accepts callbacks for the default app once DOUYIN_PUSH_TOKEN is set", () => {
    assert.equal(appPayments("douyin", parseConfig(base).payments.defaultApp.douyin).push, undefined);
    const config = parseConfig({ ...base, DOUYIN_PAY_SECRET: "secret", DOUYIN_PUSH_TOKEN: "cb-token" });
    assert.deepEqual(appPayments("douyin", config.payments.defaultApp.douyin).push, { token: "cb-token", encodingAesKey: undefined });
  });

  it("refuses a placeholder Token in production", () => {
    assert.throws(
      () => parseConfig({ ...base, NODE_ENV: "production", DOUYIN_PUSH_TOKEN: "change-me" }),
      (err: unknown) => err instanceof ConfigError && /DOUYIN_PUSH_TOKEN/.test(err.message),
    );
  });
});

/**
 * The reward sources' platform modules: WeChat's rewarded-ad verification (the guide's own test
 * vector), its gift-pack push, Douyin's gift push. Each forged, stale, other-app or malformed
 * message is refused with its reason.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { adCallbackFields, adSignature, decryptAdReward, encryptAdReward, readAdCallback, readAdCustomData, verifiesAdUrl } from "../../src/platforms/wechat/wechat-ad-reward";
import { GIFT_EVENT, readGiftPush } from "../../src/platforms/wechat/wechat-gift-push";
import { pushSignature, sealPush } from "../../src/platforms/wechat/wechat-push";
import { douyinPushSignature, pushHeaders, readDouyinPush, signDouyinPush } from "../../src/platforms/douyin/douyin-gift";

const AES = crypto.createHash("sha256").update("test-aes").digest("base64").slice(0, 43);
const TOKEN = "ad-token";

function adCallback(reward: Record<string, unknown>, at: number, token = TOKEN, aes = AES) {
  const encrypt = encryptAdReward(aes, reward);
  const timestamp = String(at);
  const nonce = "1514711492";
  return { signature: adSignature(token, timestamp, nonce, encrypt), timestamp, nonce, encrypt };
}

const REWARD = { transaction_id: "tx-1", user_id: "openid-1", reward_item: "adunit-example", reward_amount: 1, custom_data: '{"adUnitId":"adunit-example","watchId":"w-1"}', extra: "" };

describe("WeChat rewarded-ad verification", () => {
  it("checks the URL with the guide's vector: sha256 of the sorted Token, timestamp and nonce", () => {
    assert.equal(adSignature("AAAAA", "1714036504", "1514711492"), "fc2099429a41d55634cd6e24e8a610b44c404bc189921f8368343381b0b612c3");
    const query = new URLSearchParams("signature=fc2099429a41d55634cd6e24e8a610b44c404bc189921f8368343381b0b612c3&echostr=4375120948345356249&timestamp=1714036504&nonce=1514711492");
    const fields = adCallbackFields(query, undefined)!;
    assert.equal(verifiesAdUrl("AAAAA", fields), true);
    assert.equal(verifiesAdUrl("BBBBB", fields), false);
  });

  it("decrypts what it encrypts: a 16-byte IV before AES-256-CBC, URL-encoded or not", () => {
    const encrypt = encryptAdReward(AES, REWARD);
    assert.deepEqual(decryptAdReward(AES, encrypt), REWARD);
    assert.deepEqual(decryptAdReward(AES, encodeURIComponent(encrypt)), REWARD);
    assert.equal(decryptAdReward(crypto.createHash("sha256").update("other").digest("base64").slice(0, 43), encrypt), undefined);
  });

  it("reads a signed, fresh callback from a JSON body or the query string", () => {
    const now = Date.now();
    const body = adCallback(REWARD, now);
    const outcome = readAdCallback({ token: TOKEN, encodingAesKey: AES }, adCallbackFields(new URLSearchParams(), body)!, now);
    assert.deepEqual(outcome, { kind: "reward", reward: { transactionId: "tx-1", userId: "openid-1", rewardItem: "adunit-example", rewardAmount: 1, customData: REWARD.custom_data } });
    const fromQuery = adCallbackFields(new URLSearchParams(body), undefined)!;
    assert.equal(readAdCallback({ token: TOKEN, encodingAesKey: AES }, fromQuery, now).kind, "reward");
    assert.deepEqual(readAdCustomData(REWARD.custom_data), { adUnitId: "adunit-example", watchId: "w-1" });
    assert.equal(readAdCustomData("not json"), undefined);
  });

  it("refuses a forged signature, another Token, a stale timestamp, a tampered or malformed reward", () => {
    const now = Date.now();
    const keys = { token: TOKEN, encodingAesKey: AES };
    const good = adCallback(REWARD, now);
    const read = (f: Record<string, string>) => readAdCallback(keys, adCallbackFields(new URLSearchParams(), f)!, now);
    assert.deepEqual(read({ ...good, signature: "0".repeat(64) }), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(read(adCallback(REWARD, now, "another-apps-token")), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(read(adCallback(REWARD, now - 3_600_000)), { kind: "refused", reason: "stale_timestamp" });
    // A body swapped under the old signature no longer verifies.
    assert.deepEqual(read({ ...good, encrypt: encryptAdReward(AES, { ...REWARD, user_id: "thief" }) }), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(read(adCallback({ ...REWARD, transaction_id: "" }, now)), { kind: "refused", reason: "malformed" });
    const notJson = crypto.createCipheriv("aes-256-cbc", Buffer.from(`${AES}=`, "base64"), Buffer.alloc(16));
    const junk = Buffer.concat([Buffer.alloc(16), notJson.update("not json"), notJson.final()]).toString("base64");
    assert.deepEqual(read({ ...good, encrypt: junk, signature: adSignature(TOKEN, good.timestamp, good.nonce, junk) }), { kind: "refused", reason: "malformed" });
  });
});

describe("WeChat gift-pack push", () => {
  const push = { token: "push-token", encodingAesKey: AES };
  const event = (game: Record<string, unknown>) => JSON.stringify({ MsgType: "event", Event: GIFT_EVENT, CreateTime: 1, MiniGame: game });
  const GAME = { OrderId: "order-1", IsPreview: 0, ToUserOpenid: "openid-1", Zone: 2001, GiftTypeId: 1, GiftId: "daily-pack", SendTime: 1, GoodsList: [{ Id: "gold", Num: 10 }] };
  const signed = (nowSec: number, token = push.token) => {
    const timestamp = String(nowSec);
    return new URLSearchParams({ signature: pushSignature(token, timestamp, "n1"), timestamp, nonce: "n1" });
  };
  /** Safe mode as WeChat sends it: `msg_signature` over (Token, timestamp, nonce, Encrypt), the app id inside. */
  const sealed = (nowSec: number, message: string, options: { appId?: string; token?: string } = {}) => {
    const { query, body } = sealPush({ token: options.token ?? push.token, encodingAesKey: AES }, options.appId ?? "wx-app", message, String(nowSec), "n1");
    return { query, body };
  };
  const read = (p: { query: URLSearchParams; body: string }, now: number, appId = "wx-app") => readGiftPush(appId, push, p.query, p.body, now);

  it("reads the delivery in safe mode, the app id inside checked", () => {
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(read(sealed(now, event(GAME)), now), { kind: "gift", delivery: { orderId: "order-1", openid: "openid-1", giftId: "daily-pack", goods: [{ id: "gold", num: 10 }], preview: false } });
    assert.deepEqual(read(sealed(now, event(GAME)), now, "other-app"), { kind: "refused", reason: "wrong_app" });
  });

  it("refuses plain mode, whatever the body: the query signature does not cover it", () => {
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(readGiftPush("wx-app", push, signed(now), event(GAME), now), { kind: "refused", reason: "plain_mode" });
    // Safe mode named in the query, but no EncodingAESKey to open it with: nothing authenticates the body.
    const good = sealed(now, event(GAME));
    assert.deepEqual(readGiftPush("wx-app", { token: push.token }, good.query, good.body, now), { kind: "refused", reason: "plain_mode" });
  });

  it("refuses forged, stale and malformed pushes; passes other events through", () => {
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(read(sealed(now, event(GAME), { token: "forged" }), now), { kind: "refused", reason: "bad_signature" });
    const swapped = sealed(now, event(GAME));
    swapped.body = sealed(now, event({ ...GAME, ToUserOpenid: "thief" })).body;
    assert.deepEqual(read(swapped, now), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(read(sealed(now - 3600, event(GAME)), now), { kind: "refused", reason: "stale_timestamp" });
    assert.deepEqual(read(sealed(now, event({ ...GAME, OrderId: "" })), now), { kind: "refused", reason: "malformed" });
    assert.deepEqual(read(sealed(now, event({ ...GAME, GoodsList: [{ Id: "gold", Num: -1 }] })), now), { kind: "refused", reason: "malformed" });
    assert.deepEqual(read(sealed(now, "{"), now), { kind: "refused", reason: "malformed" });
    assert.deepEqual(read({ query: sealed(now, event(GAME)).query, body: "{" }, now), { kind: "refused", reason: "malformed" });
    assert.deepEqual(read(sealed(now, JSON.stringify({ MsgType: "event", Event: "other_event" })), now), { kind: "other", event: "other_event" });
  });
});

describe("Douyin gift push", () => {
  const body = JSON.stringify({ gift_id: 7461891275051078697n.toString(), play_type: 3, gift_code: "cdk0000001", open_id: "openid-1", prop_list: [{ prop_id: "coin003", name: "coins", count: 5 }], env_type: "production", send_time: 1 });
  const headersOf = (h: Record<string, string>) => pushHeaders((n) => h[n])!;

  it("signs base64(md5(sorted headers + body + Token)) and reads the gift", () => {
    const now = Date.now();
    const h = signDouyinPush("dy-token", "tt-app", "gift_delivery", body, now);
    assert.equal(h["x-signature"], douyinPushSignature("dy-token", { appid: "tt-app", msgType: "gift_delivery", nonce: h["x-nonce-str"], timestamp: h["x-timestamp"] }, body));
    assert.equal(Buffer.from(h["x-signature"], "base64").length, 16);
    const outcome = readDouyinPush("tt-app", "dy-token", headersOf(h), body, now);
    assert.deepEqual(outcome, { kind: "gift", gift: { giftCode: "cdk0000001", openid: "openid-1", giftId: "7461891275051078697", props: [{ propId: "coin003", count: 5 }], test: false } });
  });

  it("refuses another Token, another app, a stale or tampered push; answers the console's check", () => {
    const now = Date.now();
    const h = signDouyinPush("dy-token", "tt-app", "gift_delivery", body, now);
    assert.deepEqual(readDouyinPush("tt-app", "other-token", headersOf(h), body, now), { kind: "refused", reason: "bad_signature" });
    assert.deepEqual(readDouyinPush("tt-other", "dy-token", headersOf(h), body, now), { kind: "refused", reason: "wrong_app" });
    assert.deepEqual(readDouyinPush("tt-app", "dy-token", headersOf(h), body.replace("openid-1", "thief"), now), { kind: "refused", reason: "bad_signature" });
    const old = signDouyinPush("dy-token", "tt-app", "gift_delivery", body, now - 3_600_000);
    assert.deepEqual(readDouyinPush("tt-app", "dy-token", headersOf(old), body, now), { kind: "refused", reason: "stale_timestamp" });
    const bad = signDouyinPush("dy-token", "tt-app", "gift_delivery", "[]", now);
    assert.deepEqual(readDouyinPush("tt-app", "dy-token", headersOf(bad), "[]", now), { kind: "refused", reason: "malformed" });
    const verify = signDouyinPush("dy-token", "tt-app", "verify_request", "{}", now);
    assert.deepEqual(readDouyinPush("tt-app", "dy-token", headersOf(verify), "{}", now), { kind: "verify" });
  });
});

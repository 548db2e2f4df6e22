/**
 * The payment signatures' exact messages, pinned: a change to what is signed would still pass a
 * test where our client and our simulator share the code, so these spell the recipes out by hand.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { douyinMpSig } from "../../src/platforms/douyin/douyin-coins";
import { wechatPaySig, wechatUserSignature } from "../../src/platforms/wechat/wechat-coins";

const hmac = (key: string, message: string) => crypto.createHmac("sha256", key).update(message).digest("hex");

describe("payment signatures", () => {
  const body = '{"openid":"o123","offer_id":"1450000000","ts":1507530737,"zone_id":"1","env":0}';

  it("signs WeChat's pay_sig over uri & body with the AppKey (platform-apis-3 §1)", () => {
    assert.equal(wechatPaySig("app-key", "/wxa/game/getbalance", body), hmac("app-key", `/wxa/game/getbalance&${body}`));
  });

  it("signs WeChat's user-state signature over the body with the session key's text", () => {
    assert.equal(wechatUserSignature("c2Vzc2lvbi1rZXk=", body), hmac("c2Vzc2lvbi1rZXk=", body));
  });

  it("signs Douyin's mp_sig over the sorted parameters, org_loc, method and secret (recipe unconfirmed)", () => {
    const params = { openid: "o1", appid: "tt1", ts: 1700000000, zone_id: "1", pf: "android", access_token: "tok", amount: 5, bill_no: "b1" };
    const message = "access_token=tok&amount=5&appid=tt1&bill_no=b1&openid=o1&pf=android&ts=1700000000&zone_id=1&org_loc=/api/apps/game/wallet/game_pay&method=POST&secret=s3cret";
    assert.equal(douyinMpSig("s3cret", "/api/apps/game/wallet/game_pay", params), hmac("s3cret", message));
    assert.equal(douyinMpSig("s3cret", "/api/apps/game/wallet/game_pay", { ...params, mp_sig: "ignored" }), hmac("s3cret", message));
  });
});

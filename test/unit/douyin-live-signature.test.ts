/**
 * Douyin live push: the signature against Douyin's own test vector (platform-apis-5.md §1), and
 * every refusal readLivePush makes before any work.
 */
import assert from "node:assert/strict";
import { douyinLiveSignature, readLivePush, signLivePush, type LiveMsgType } from "../../src/platforms/douyin/douyin-live";

const SECRETS: Record<LiveMsgType, string> = { live_comment: "c-secret", live_gift: "g-secret", live_like: "l-secret", live_fansclub: "f-secret" };
const secretOf = (t: LiveMsgType) => SECRETS[t];
const NOW = 1_760_000_000_000;
const gift = (msgId: string) => ({ msg_id: msgId, sec_openid: "viewer-1", sec_gift_id: "g1", gift_num: 2, gift_value: 100, nickname: "n", avatar_url: "a", timestamp: NOW });

function push(msgType: LiveMsgType, body: string, opts: { secret?: string; now?: number } = {}) {
  return { headers: signLivePush(opts.secret ?? SECRETS[msgType], "7000", msgType, body, opts.now ?? NOW), body };
}

describe("Douyin live push signature and reading", () => {
  it("reproduces Douyin's own test vector", () => {
    const headers = { "x-msg-type": "user_group", "x-nonce-str": "123456", "x-roomid": "268", "x-timestamp": "456789", "x-signature": "ignored" };
    assert.equal(douyinLiveSignature(headers, "abc123你好", "123abc"), "GAkalGmhzqlUGQO/TgvMug==");
  });

  it("signs regardless of header order: the names are sorted", () => {
    const a = { "x-timestamp": "456789", "x-roomid": "268", "x-nonce-str": "123456", "x-msg-type": "user_group" };
    assert.equal(douyinLiveSignature(a, "abc123你好", "123abc"), "GAkalGmhzqlUGQO/TgvMug==");
  });

  it("reads a signed gift push into typed messages", () => {
    const { headers, body } = push("live_gift", JSON.stringify([gift("m1"), gift("m2")]));
    const out = readLivePush(headers, body, secretOf, NOW);
    assert.ok("messages" in out);
    assert.equal(out.head.roomId, "7000");
    assert.deepEqual(
      out.messages.map((m) => m.type === "gift" && [m.msgId, m.giftNum, m.giftValue]),
      [
        ["m1", 2, 100],
        ["m2", 2, 100],
      ],
    );
  });

  it("refuses a forged signature, a body changed after signing and another type's secret", () => {
    const { headers, body } = push("live_gift", JSON.stringify([gift("m1")]));
    assert.deepEqual(readLivePush({ ...headers, "x-signature": "AAAAAAAAAAAAAAAAAAAAAA==" }, body, secretOf, NOW), { refused: "bad_signature" });
    assert.deepEqual(readLivePush(headers, body.replace('"gift_num":2', '"gift_num":9'), secretOf, NOW), { refused: "bad_signature" });
    assert.deepEqual(readLivePush({ ...headers, "x-roomid": "7001" }, body, secretOf, NOW), { refused: "bad_signature" });
    const wrong = push("live_gift", JSON.stringify([gift("m1")]), { secret: SECRETS.live_comment });
    assert.deepEqual(readLivePush(wrong.headers, wrong.body, secretOf, NOW), { refused: "wrong_secret" });
  });

  it("refuses stale and future timestamps", () => {
    const old = push("live_gift", JSON.stringify([gift("m1")]), { now: NOW - 10 * 60_000 });
    assert.deepEqual(readLivePush(old.headers, old.body, secretOf, NOW), { refused: "stale_timestamp" });
    const future = push("live_gift", JSON.stringify([gift("m1")]), { now: NOW + 10 * 60_000 });
    assert.deepEqual(readLivePush(future.headers, future.body, secretOf, NOW), { refused: "stale_timestamp" });
  });

  it("refuses bodies that are not arrays, are huge, or carry a payload without its fields", () => {
    const object = push("live_gift", JSON.stringify(gift("m1")));
    assert.deepEqual(readLivePush(object.headers, object.body, secretOf, NOW), { refused: "not_an_array" });
    const huge = push("live_comment", JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ msg_id: `m${i}`, sec_openid: "v", content: "x" }))));
    assert.deepEqual(readLivePush(huge.headers, huge.body, secretOf, NOW), { refused: "too_large" });
    const big = push("live_comment", JSON.stringify([{ msg_id: "m", sec_openid: "v", content: "x".repeat(300_000) }]));
    assert.deepEqual(readLivePush(big.headers, big.body, secretOf, NOW), { refused: "too_large" });
    const noValue = push("live_gift", JSON.stringify([{ ...gift("m1"), gift_value: "100" }]));
    assert.deepEqual(readLivePush(noValue.headers, noValue.body, secretOf, NOW), { refused: "malformed" });
  });

  it("refuses a type no secret is configured for", () => {
    const { headers, body } = push("live_like", JSON.stringify([{ msg_id: "m", sec_openid: "v", like_num: 3 }]));
    assert.deepEqual(readLivePush(headers, body, (t) => (t === "live_like" ? undefined : SECRETS[t]), NOW), { refused: "unknown_type" });
  });
});

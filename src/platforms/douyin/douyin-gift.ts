/**
 * Douyin's gift push (docs/economy-rewards.md#rewards-evidence) on the mini-game's message push. Gift
 * codes a player brings are redeemed by our server instead: douyin-gift-code.ts. Pure functions.
 *
 * Platform facts (official docs):
 * - Message push (开发 → 开发设置 → 消息推送配置, its own Token, 3–32 characters): every message is a
 *   POST whose headers carry `x-appid`, `x-msg-type` (`verify_request` when the console checks the
 *   URL, `gift_delivery` for a gift), `x-nonce-str`, `x-timestamp` (ms) and `x-signature`; the body is
 *   the message's JSON text.
 * - Gift push body: `gift_id` (absent on prop pushes and tests), `play_type`, `gift_code` (unique per
 *   app: "由于消息的重试机制…需通过 gift_code 保障幂等", 24 h window), `open_id`, `prop_list`
 *   `[{prop_id, name, count}]`, `env_type` (`development` from the console's test push,
 *   `production`), `send_time` (s), `refer_id`.
 * - The reply: HTTP 200 with `{"success": true}` (游戏站礼包接入指引); we add `err_no`/`err_tips`, the
 *   message push's other replies' fields.
 *
 * Unconfirmed: Douyin documents NO server-side verification of rewarded video ads (tt.createRewardedVideoAd
 * has no server callback), so ad rewards are WeChat-only here. The x-signature recipe: the guide says
 * "sort x-appid, x-msg-type, x-nonce-str, x-timestamp, join with &, append body and Token, md5, base64";
 * we read it as the sorted `key=value` pairs (as Douyin's feed-game signature spells it). The failure
 * reply's shape (the guide's "异常响应" was not seen: we answer a non-200 status with `success: false`)
 * and the push's retry schedule are not given.
 */
import crypto from "node:crypto";
import { parseJsonObject } from "../shared/json-object";

/** A push whose x-timestamp is further than this from our clock is refused. */
export const DOUYIN_PUSH_MAX_SKEW_MS = 10 * 60_000;

export interface DouyinPushHeaders {
  appid: string;
  msgType: string;
  nonce: string;
  timestamp: string;
  signature: string;
}

export function pushHeaders(get: (name: string) => string | undefined): DouyinPushHeaders | undefined {
  const [appid, msgType, nonce, timestamp, signature] = ["x-appid", "x-msg-type", "x-nonce-str", "x-timestamp", "x-signature"].map((n) => get(n) ?? "");
  if (!appid || !msgType || !nonce || !timestamp || !signature) return undefined;
  return { appid, msgType, nonce, timestamp, signature };
}

/** base64(md5("x-appid=…&x-msg-type=…&x-nonce-str=…&x-timestamp=…" + body + token)). */
export function douyinPushSignature(token: string, h: Omit<DouyinPushHeaders, "signature">, body: string): string {
  const pairs = [
    ["x-appid", h.appid],
    ["x-msg-type", h.msgType],
    ["x-nonce-str", h.nonce],
    ["x-timestamp", h.timestamp],
  ]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  return crypto.createHash("md5").update(`${pairs}${body}${token}`, "utf8").digest("base64");
}

export function signedPush(token: string, h: DouyinPushHeaders, body: string): boolean {
  const expected = Buffer.from(douyinPushSignature(token, h, body));
  const given = Buffer.from(h.signature);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

export type DouyinGiftRefusal = "bad_signature" | "stale_timestamp" | "malformed" | "wrong_app";

export interface DouyinGift {
  giftCode: string;
  openid: string;
  giftId: string;
  props: Array<{ propId: string; count: number }>;
  /** The console's test push: acknowledged, nothing granted. */
  test: boolean;
}

export type DouyinPushOutcome =
  | { kind: "gift"; gift: DouyinGift }
  | { kind: "verify" }
  | { kind: "other"; msgType: string }
  | { kind: "refused"; reason: DouyinGiftRefusal };

const CODE = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Reads one push for `appId` whose Token is `token`: signature, app, timestamp, then the message. */
export function readDouyinPush(appId: string, token: string, h: DouyinPushHeaders, body: string, nowMs: number): DouyinPushOutcome {
  const refused = (reason: DouyinGiftRefusal): DouyinPushOutcome => ({ kind: "refused", reason });
  if (!signedPush(token, h, body)) return refused("bad_signature");
  if (h.appid !== appId) return refused("wrong_app");
  if (!/^\d{1,16}$/.test(h.timestamp)) return refused("malformed");
  if (Math.abs(Number(h.timestamp) - nowMs) > DOUYIN_PUSH_MAX_SKEW_MS) return refused("stale_timestamp");
  if (h.msgType === "verify_request") return { kind: "verify" };
  if (h.msgType !== "gift_delivery") return { kind: "other", msgType: h.msgType };
  const msg = parseJsonObject(body);
  if (!msg) return refused("malformed");
  const { gift_code: giftCode, open_id: openid, prop_list: list, gift_id: giftId } = msg;
  if (typeof giftCode !== "string" || !CODE.test(giftCode) || typeof openid !== "string" || !openid || !Array.isArray(list)) return refused("malformed");
  const props: DouyinGift["props"] = [];
  for (const p of list as Array<Record<string, unknown>>) {
    if (!p || typeof p.prop_id !== "string" || !p.prop_id || typeof p.count !== "number" || !Number.isInteger(p.count) || p.count < 1) return refused("malformed");
    props.push({ propId: p.prop_id, count: p.count });
  }
  const id = typeof giftId === "number" || typeof giftId === "string" ? String(giftId) : "";
  return { kind: "gift", gift: { giftCode, openid, giftId: id, props, test: msg.env_type === "development" } };
}

/** The simulator's side: the headers and body of a push as Douyin sends it. */
export function signDouyinPush(token: string, appid: string, msgType: string, body: string, nowMs: number): Record<string, string> {
  const h = { appid, msgType, nonce: String(crypto.randomInt(1e8, 1e9)), timestamp: String(nowMs) };
  return { "x-appid": h.appid, "x-msg-type": h.msgType, "x-nonce-str": h.nonce, "x-timestamp": h.timestamp, "x-signature": douyinPushSignature(token, h, body) };
}

/**
 * Douyin's payment callback for mini-game purchases (the virtual-payment "服务端回调接口"): the
 * console's URL verification and the callback itself. Pure functions: the caller names the app whose
 * callback Token applies.
 *
 * Unconfirmed (platform-apis-3 §3 leaves the fields open); we follow the best evidence found:
 * Douyin's mini-game doc (payment-server-callback) as quoted by tgf-platform (douyin webhook
 * verifier) and by a Bytedance cloud demo (TradeCallBackController, OrderSuccessPayInfoCmd): the
 * console (商业化 → 虚拟支付 → 支付设置) verifies the URL by GET with `signature, timestamp, nonce,
 * msg, echostr` in the query and expects the echostr back; each paid order is POSTed as JSON
 * `{timestamp, nonce, msg, signature}` with `signature = sha1(sort([Token, timestamp, nonce, msg])
 * .join(""))` (the recipe of bytedance/open-pay-signature-go-demo's CallbackSign, whose vector the
 * unit test pins); `msg` is JSON `{appid, cp_orderno, cp_extra, order_no_channel, amount_cent,
 * amount_coin, currency}`; HTTP 200 is success and anything else is retried. The mini-app trade
 * system's callback names the signature `msg_signature` and adds `type` and `status`: we accept
 * those names too, and a `status` other than SUCCESS (or a `type` other than payment) is
 * acknowledged and not recorded (the mini-game doc calls back for paid orders only). The callback
 * carries no openid or item: the game passes them as `extraInfo` JSON `{"openid", "itemId"}`
 * (echoed as `cp_extra`), and `customId` (echoed as `cp_orderno`) is the order's trade number.
 */
import crypto from "node:crypto";
import { PUSH_MAX_SKEW_SEC } from "../wechat/wechat-push";
import { parseJsonObject } from "../shared/json-object";

/** `sha1(sort([Token, timestamp, nonce, msg]).join(""))`, hex: the callback and URL-verification signature. */
export function callbackSignature(token: string, timestamp: string, nonce: string, msg: string): string {
  return crypto.createHash("sha1").update([token, timestamp, nonce, msg].sort().join("")).digest("hex");
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Whether a GET is the console verifying the URL with this Token (`msg` may be absent: it counts as ""). */
export function verifiesCallbackUrl(token: string, query: URLSearchParams): boolean {
  const signature = query.get("signature") ?? "";
  return signature !== "" && safeEqual(signature, callbackSignature(token, query.get("timestamp") ?? "", query.get("nonce") ?? "", query.get("msg") ?? ""));
}

/** The callback's outer body, as sent. */
export interface CallbackEnvelope {
  timestamp: string;
  nonce: string;
  msg: string;
  signature: string;
  /** The mini-app trade system's callback kind (`payment`, `refund`); the mini-game callback has none. */
  type?: unknown;
}

/** The outer body, or undefined when it is not the callback's JSON shape. */
export function readCallbackEnvelope(rawBody: string): CallbackEnvelope | undefined {
  const body = parseJsonObject(rawBody);
  if (!body) return undefined;
  const timestamp = typeof body.timestamp === "number" ? String(body.timestamp) : body.timestamp;
  const signature = body.signature ?? body.msg_signature;
  if (typeof timestamp !== "string" || typeof body.nonce !== "string" || typeof body.msg !== "string" || typeof signature !== "string" || !signature) return undefined;
  return { timestamp, nonce: body.nonce, msg: body.msg, signature, type: body.type };
}

/** Whether the callback is signed with this Token. */
export function signedBy(token: string, envelope: CallbackEnvelope): boolean {
  return safeEqual(envelope.signature, callbackSignature(token, envelope.timestamp, envelope.nonce, envelope.msg));
}

/** Why a callback is refused; each is logged and answered non-200, so Douyin calls again later. */
export type CallbackRefusal = "bad_signature" | "stale_timestamp" | "malformed" | "wrong_app";

export type CallbackOutcome =
  | { kind: "purchase"; openid: string; tradeNo: string; itemId: string; price: number; env: 0 | 1; channelOrderNo?: string }
  /** Not a paid order (another status or type): answered success, nothing recorded. */
  | { kind: "ignored"; what: string }
  | { kind: "refused"; reason: CallbackRefusal };

const refused = (reason: CallbackRefusal): CallbackOutcome => ({ kind: "refused", reason });
const TRADE_NO = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reads and checks one callback for `appId`: the signature with the app's Token, the timestamp,
 * the app id inside `msg`, then the order. `env` is the app's (Douyin's callback names none).
 */
export function readCallback(appId: string, token: string, rawBody: string, nowSec: number, env: 0 | 1): CallbackOutcome {
  const envelope = readCallbackEnvelope(rawBody);
  if (!envelope) return refused("malformed");
  if (!signedBy(token, envelope)) return refused("bad_signature");
  if (!/^\d{1,12}$/.test(envelope.timestamp) || Math.abs(Number(envelope.timestamp) - nowSec) > PUSH_MAX_SKEW_SEC) return refused("stale_timestamp");
  const msg = parseJsonObject(envelope.msg);
  if (!msg || typeof msg.appid !== "string") return refused("malformed");
  if (msg.appid !== appId) return refused("wrong_app");
  if (envelope.type !== undefined && envelope.type !== "payment") return { kind: "ignored", what: `type ${String(envelope.type)}` };
  if (msg.status !== undefined && msg.status !== "SUCCESS") return { kind: "ignored", what: `status ${String(msg.status)}` };
  const extra = typeof msg.cp_extra === "string" ? parseJsonObject(msg.cp_extra) : undefined;
  const tradeNo = msg.cp_orderno;
  const price = msg.amount_cent;
  if (!extra || typeof extra.openid !== "string" || !extra.openid || typeof extra.itemId !== "string" || !extra.itemId) return refused("malformed");
  if (typeof tradeNo !== "string" || !TRADE_NO.test(tradeNo) || typeof price !== "number" || !Number.isInteger(price) || price < 0) return refused("malformed");
  const channelOrderNo = typeof msg.order_no_channel === "string" ? msg.order_no_channel : undefined;
  return { kind: "purchase", openid: extra.openid, tradeNo, itemId: extra.itemId, price, env, ...(channelOrderNo ? { channelOrderNo } : {}) };
}

/** The callback as Douyin sends it: the simulator's side of readCallback. */
export function signCallback(token: string, msg: Record<string, unknown>, timestamp: string, nonce: string): string {
  const text = JSON.stringify(msg);
  return JSON.stringify({ timestamp, nonce, msg: text, signature: callbackSignature(token, timestamp, nonce, text) });
}

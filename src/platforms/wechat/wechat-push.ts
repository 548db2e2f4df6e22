/**
 * WeChat's message push for mini-game item purchases (platform-apis-3 §2): the console's URL
 * verification and the `minigame_game_pay_goods_deliver_notify` event, in JSON (the console's JSON
 * format; XML is not supported), plain or in safe mode (AES). Pure functions: the caller names the
 * app whose Token, EncodingAESKey and AppKeys apply.
 *
 * `PayEventSig` = hex HMAC-SHA256(AppKey of the payload's Env, event + "&" + Payload) is unconfirmed
 * (the sheet's best evidence); the simulator signs with exactly this recipe.
 */
import crypto from "node:crypto";
import type { PaymentKeys } from "../../core/ports/coin-wallet";
import { hmacHex } from "./wechat-coins";
import { parseJsonObject } from "../shared/json-object";

export const ITEM_PURCHASE_EVENT = "minigame_game_pay_goods_deliver_notify";
/** A push whose timestamp is further than this from our clock is refused (a replay of an old capture). */
export const PUSH_MAX_SKEW_SEC = 300;

export interface PushKeys {
  /** The message-push Token from the console. */
  token: string;
  /** Safe mode's EncodingAESKey (43 characters); undefined in plain mode. */
  encodingAesKey?: string;
}

/** `sha1(sort([Token, timestamp, nonce, …]).join(""))`, hex: the push and URL-verification signature. */
export function pushSignature(...parts: string[]): string {
  return crypto.createHash("sha1").update([...parts].sort().join("")).digest("hex");
}

export function payEventSig(appKey: string, payload: string): string {
  return hmacHex(appKey, `${ITEM_PURCHASE_EVENT}&${payload}`);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Whether a GET is the console verifying the URL with this Token. */
export function verifiesUrl(token: string, query: URLSearchParams): boolean {
  const signature = query.get("signature") ?? "";
  return signature !== "" && safeEqual(signature, pushSignature(token, query.get("timestamp") ?? "", query.get("nonce") ?? ""));
}

/** Why a push is refused; each is logged and answered with a non-zero ErrCode (WeChat retries, then gives up). */
export type PushRefusal = "bad_signature" | "stale_timestamp" | "malformed" | "wrong_app" | "bad_pay_sig" | "wrong_env";

export type PushOutcome =
  | { kind: "purchase"; openid: string; tradeNo: string; itemId: string; price: number; env: 0 | 1 }
  /** The console's test push (`IsMock`): answered success, nothing recorded. */
  | { kind: "mock" }
  /** Another event on the same URL: answered success, nothing recorded. */
  | { kind: "other"; event: string }
  | { kind: "refused"; reason: PushRefusal };

const refused = (reason: PushRefusal): PushOutcome => ({ kind: "refused", reason });

/**
 * Reads and checks one push for `appId`: the URL signature with the Token (and `msg_signature`,
 * decryption and the app id inside in safe mode), the timestamp, then the payload's `PayEventSig`
 * with the AppKey of its Env, which must be the env the app is set to.
 */
export function readPush(appId: string, push: PushKeys, keys: PaymentKeys, query: URLSearchParams, rawBody: string, nowSec: number): PushOutcome {
  const timestamp = query.get("timestamp") ?? "";
  const nonce = query.get("nonce") ?? "";
  if (!verifiesUrl(push.token, query)) return refused("bad_signature");
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSec) > PUSH_MAX_SKEW_SEC) return refused("stale_timestamp");
  let body = parseJsonObject(rawBody);
  if (!body) return refused("malformed");
  if (query.get("encrypt_type") === "aes") {
    if (!push.encodingAesKey || typeof body.Encrypt !== "string") return refused("malformed");
    if (!safeEqual(query.get("msg_signature") ?? "", pushSignature(push.token, timestamp, nonce, body.Encrypt))) return refused("bad_signature");
    const opened = decryptPush(push.encodingAesKey, body.Encrypt);
    if (!opened) return refused("malformed");
    if (opened.appId !== appId) return refused("wrong_app");
    body = parseJsonObject(opened.message);
    if (!body) return refused("malformed");
  }
  if (body.MsgType !== "event" || typeof body.Event !== "string") return refused("malformed");
  if (body.Event !== ITEM_PURCHASE_EVENT) return { kind: "other", event: body.Event };
  const game = body.MiniGame as Record<string, unknown> | undefined;
  if (!game || typeof game.Payload !== "string" || typeof game.PayEventSig !== "string") return refused("malformed");
  if (game.IsMock === true) return { kind: "mock" };
  const payload = parseJsonObject(game.Payload);
  if (!payload) return refused("malformed");
  const env = payload.Env;
  if (env !== 0 && env !== 1) return refused("malformed");
  const appKey = env === 1 ? keys.sandboxAppKey : keys.appKey;
  if (!safeEqual(game.PayEventSig, payEventSig(appKey, game.Payload))) return refused("bad_pay_sig");
  if (env !== keys.env) return refused("wrong_env");
  const goods = (payload.GoodsInfo ?? {}) as Record<string, unknown>;
  const openid = payload.OpenId;
  const tradeNo = payload.OutTradeNo;
  const itemId = goods.ProductId;
  const price = goods.ActualPrice ?? goods.OrigPrice;
  if (typeof openid !== "string" || !openid || typeof tradeNo !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(tradeNo)) return refused("malformed");
  if (typeof itemId !== "string" || !itemId || typeof price !== "number" || !Number.isInteger(price) || price < 0) return refused("malformed");
  return { kind: "purchase", openid, tradeNo, itemId, price, env };
}

function aesKeyOf(encodingAesKey: string): Buffer | undefined {
  const key = Buffer.from(`${encodingAesKey}=`, "base64");
  return key.length === 32 ? key : undefined;
}

/** Safe mode: AES-256-CBC, IV = the key's first 16 bytes, PKCS#7 to 32-byte blocks; 16 random bytes, length, message, app id. */
export function decryptPush(encodingAesKey: string, encrypted: string): { message: string; appId: string } | undefined {
  const key = aesKeyOf(encodingAesKey);
  if (!key) return undefined;
  try {
    const decipher = crypto.createDecipheriv("aes-256-cbc", key, key.subarray(0, 16));
    decipher.setAutoPadding(false);
    const padded = Buffer.concat([decipher.update(Buffer.from(encrypted, "base64")), decipher.final()]);
    const pad = padded[padded.length - 1];
    if (pad < 1 || pad > 32) return undefined;
    const plain = padded.subarray(0, padded.length - pad);
    const length = plain.readUInt32BE(16);
    if (20 + length > plain.length) return undefined;
    return { message: plain.subarray(20, 20 + length).toString("utf8"), appId: plain.subarray(20 + length).toString("utf8") };
  } catch {
    return undefined;
  }
}

/** What WeChat encrypts in safe mode: the inverse of decryptPush (the simulator's side). */
export function encryptPush(encodingAesKey: string, message: string, appId: string): string {
  const key = aesKeyOf(encodingAesKey);
  if (!key) throw new Error("an EncodingAESKey is 43 base64 characters");
  const body = Buffer.from(message, "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const plain = Buffer.concat([crypto.randomBytes(16), length, body, Buffer.from(appId, "utf8")]);
  const pad = 32 - (plain.length % 32);
  const cipher = crypto.createCipheriv("aes-256-cbc", key, key.subarray(0, 16));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([plain, Buffer.alloc(pad, pad)])), cipher.final()]).toString("base64");
}

/**
 * A push as WeChat sends it in safe mode (the simulator's side): the query signed over (Token,
 * timestamp, nonce), `msg_signature` over the same and `Encrypt`, the body `{ToUserName, Encrypt}`.
 */
export function sealPush(push: Required<PushKeys>, appId: string, message: string, timestamp: string, nonce: string): { query: URLSearchParams; body: string } {
  const encrypted = encryptPush(push.encodingAesKey, message, appId);
  const query = new URLSearchParams({ signature: pushSignature(push.token, timestamp, nonce), timestamp, nonce, encrypt_type: "aes" });
  query.set("msg_signature", pushSignature(push.token, timestamp, nonce, encrypted));
  return { query, body: JSON.stringify({ ToUserName: `gh_${appId}`, Encrypt: encrypted }) };
}

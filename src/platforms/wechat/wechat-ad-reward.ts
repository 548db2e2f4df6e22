/**
 * WeChat's server-side verification of rewarded video ads (激励广告服务端验证, the mini-game guide's
 * security/antiadcheat page; docs/economy-rewards.md#rewards-evidence). Pure functions: the caller
 * names the app whose ad-callback Token and EncodingAESKey apply.
 *
 * Platform facts (from the official guide):
 * - The studio turns it on in the ad console (流量主 → 广告管理 → 激励广告 → 服务端奖励回调入口) with a
 *   URL, a Token and an EncodingAESKey, all separate from the message push's.
 * - URL check: a GET with `signature, timestamp, nonce, echostr`; signature = hex
 *   sha256(sort([Token, timestamp, nonce]).join("")) — sha256, not the message push's sha1 — and the
 *   answer is JSON `{"echostr": "<echostr>"}`.
 * - Each reward: `signature, timestamp (ms), nonce, encrypt`; signature = hex
 *   sha256(sort([Token, timestamp, nonce, encrypt]).join("")); `encrypt` URL-decoded then base64 is a
 *   16-byte IV followed by AES-256-CBC (PKCS#7) ciphertext under base64(EncodingAESKey + "="); the
 *   plaintext is JSON `{transaction_id, user_id, reward_item, reward_amount, custom_data, extra}`.
 *   user_id, reward_item, reward_amount and custom_data are what the game passed to
 *   `RewardedVideoAd.setServerSideVerificationData` (base library ≥ 3.10.3) before `show()`.
 * - The answer is JSON `{"is_valid": bool}`; WeChat waits 1 s, then retries 3 times after 15 s,
 *   22.5 s and 33.75 s.
 *
 * Unconfirmed (the guide does not say): whether the four fields arrive in the query string or a
 * JSON body, and with which method — we accept both, on GET and POST; the callback carries neither
 * app id nor ad unit id, so the app is the one whose Token verifies and the game names the ad unit
 * (and a watch id of its own) in `custom_data` (readAdCustomData).
 */
import crypto from "node:crypto";
import { parseJsonObject } from "../shared/json-object";

/** `hex(sha256(sort(parts).join("")))`: the URL check's and every callback's signature. */
export function adSignature(...parts: string[]): string {
  return crypto.createHash("sha256").update([...parts].sort().join("")).digest("hex");
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export interface AdCallbackKeys {
  token: string;
  /** 43 characters, as the console shows it. */
  encodingAesKey: string;
}

/** The callback's four fields, from the query string or a JSON (or form) body. */
export interface AdCallbackFields {
  signature: string;
  timestamp: string;
  nonce: string;
  encrypt: string;
  echostr?: string;
}

export function adCallbackFields(query: URLSearchParams, body: Record<string, unknown> | undefined): AdCallbackFields | undefined {
  const pick = (name: string): string | undefined => {
    const fromBody = body?.[name];
    if (typeof fromBody === "string") return fromBody;
    if (typeof fromBody === "number" && Number.isFinite(fromBody)) return String(fromBody);
    return query.get(name) ?? undefined;
  };
  const [signature, timestamp, nonce, encrypt, echostr] = ["signature", "timestamp", "nonce", "encrypt", "echostr"].map(pick);
  if (!signature || !timestamp || !nonce) return undefined;
  return { signature, timestamp, nonce, encrypt: encrypt ?? "", echostr };
}

/** Whether a URL check (no `encrypt`) is signed with this Token. */
export function verifiesAdUrl(token: string, fields: AdCallbackFields): boolean {
  return safeEqual(fields.signature, adSignature(token, fields.timestamp, fields.nonce));
}

/** Whether a reward callback is signed with this Token. */
export function signedAdCallback(token: string, fields: AdCallbackFields): boolean {
  return fields.encrypt !== "" && safeEqual(fields.signature, adSignature(token, fields.timestamp, fields.nonce, fields.encrypt));
}

export type AdRefusal = "bad_signature" | "stale_timestamp" | "malformed";

export interface AdReward {
  transactionId: string;
  userId: string;
  rewardItem: string;
  rewardAmount: number;
  customData: string;
}

export type AdCallbackOutcome = { kind: "reward"; reward: AdReward } | { kind: "refused"; reason: AdRefusal };

/** A callback further than this from our clock is refused: a replay of an old capture. WeChat's last retry comes ~72 s after the first try. */
export const AD_CALLBACK_MAX_SKEW_MS = 10 * 60_000;

function aesKeyOf(encodingAesKey: string): Buffer | undefined {
  const key = Buffer.from(`${encodingAesKey.replace(/=+$/, "")}=`, "base64");
  return key.length === 32 ? key : undefined;
}

/** `encrypt` → the reward JSON, or undefined when it does not decrypt to a JSON object. */
export function decryptAdReward(encodingAesKey: string, encrypt: string): Record<string, unknown> | undefined {
  const key = aesKeyOf(encodingAesKey);
  if (!key) return undefined;
  let text = encrypt;
  try {
    text = decodeURIComponent(encrypt);
  } catch {
    // Not URL-encoded: read as is.
  }
  const raw = Buffer.from(text, "base64");
  if (raw.length < 32 || (raw.length - 16) % 16 !== 0) return undefined;
  try {
    const decipher = crypto.createDecipheriv("aes-256-cbc", key, raw.subarray(0, 16));
    const plain = Buffer.concat([decipher.update(raw.subarray(16)), decipher.final()]);
    return parseJsonObject(plain.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The simulator's side of decryptAdReward: a random IV before the ciphertext, base64. */
export function encryptAdReward(encodingAesKey: string, reward: Record<string, unknown>): string {
  const key = aesKeyOf(encodingAesKey);
  if (!key) throw new Error("an EncodingAESKey is 43 base64 characters");
  const iv = crypto.randomBytes(16);
  const cipher = crypto.createCipheriv("aes-256-cbc", key, iv);
  return Buffer.concat([iv, cipher.update(JSON.stringify(reward), "utf8"), cipher.final()]).toString("base64");
}

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Checks one reward callback already matched to its app's Token: the timestamp (ms), then the decrypted reward. */
export function readAdCallback(keys: AdCallbackKeys, fields: AdCallbackFields, nowMs: number): AdCallbackOutcome {
  const refused = (reason: AdRefusal): AdCallbackOutcome => ({ kind: "refused", reason });
  if (!signedAdCallback(keys.token, fields)) return refused("bad_signature");
  if (!/^\d{1,16}$/.test(fields.timestamp)) return refused("malformed");
  if (Math.abs(Number(fields.timestamp) - nowMs) > AD_CALLBACK_MAX_SKEW_MS) return refused("stale_timestamp");
  const info = decryptAdReward(keys.encodingAesKey, fields.encrypt);
  if (!info) return refused("malformed");
  const { transaction_id: transactionId, user_id: userId, reward_item: rewardItem, reward_amount: amount, custom_data: customData } = info;
  if (typeof transactionId !== "string" || !ID.test(transactionId) || typeof userId !== "string" || !userId) return refused("malformed");
  const rewardAmount = typeof amount === "string" && /^\d{1,9}$/.test(amount) ? Number(amount) : amount;
  return {
    kind: "reward",
    reward: {
      transactionId,
      userId,
      rewardItem: typeof rewardItem === "string" ? rewardItem : "",
      rewardAmount: typeof rewardAmount === "number" && Number.isInteger(rewardAmount) ? rewardAmount : 0,
      customData: typeof customData === "string" ? customData : "",
    },
  };
}

/**
 * What our client puts in `customData`: `{"adUnitId": "...", "watchId": "..."}`. The ad unit picks
 * the catalog's reward and cap; the watch id lets `watchAd()` find its reward. Undefined when the
 * game passed something else.
 */
export function readAdCustomData(customData: string): { adUnitId: string; watchId?: string } | undefined {
  const data = parseJsonObject(customData);
  if (!data || typeof data.adUnitId !== "string" || !ID.test(data.adUnitId)) return undefined;
  const watchId = typeof data.watchId === "string" && ID.test(data.watchId) ? data.watchId : undefined;
  return { adUnitId: data.adUnitId, ...(watchId ? { watchId } : {}) };
}

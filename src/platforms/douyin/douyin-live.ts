/**
 * Douyin's live-stream push (弹幕玩法 / 直播互动, platform-apis-5.md §1): the signature and the pushed
 * messages, pure functions. The HTTP calls are in douyin-live-client.ts.
 *
 * Platform facts (Douyin's doc `data-open/data-open-desc`, `viewer-data-query-dev`):
 * - One push URL and secret per message type (`live_comment`, `live_gift`, `live_like`, `live_fansclub`);
 *   headers `x-nonce-str`, `x-timestamp` (ms), `x-signature`, `x-roomid`, `x-msg-type`; the body a JSON array.
 * - `x-signature` = base64(md5(sorted `x-*` headers but x-signature as `k=v` joined by `&` + raw body + secret));
 *   Douyin's own test vector is checked in test/unit/douyin-live-signature.test.ts.
 * - Duplicates happen: `msg_id` is the dedupe key. Gift values are in fen.
 *
 * Unconfirmed (flagged once here and in docs/douyin-live.md): the fan-club payload's fields
 * (`fansclub_reason_type`, `fansclub_level` — read when present, never required; independent
 * integrations found by code search read them so, 1 upgrade / 2 joined / 16 left, but Douyin's own page
 * was not found), that the console's self-test pushes carry `test: true` (the same integrations declare
 * it), and whether headers other than the five named are ever sent (every `x-*` header is signed, as the
 * recipe says, so an extra one is covered either way).
 */
import crypto from "node:crypto";

export const LIVE_MSG_TYPES = ["live_comment", "live_gift", "live_like", "live_fansclub"] as const;
export type LiveMsgType = (typeof LIVE_MSG_TYPES)[number];

export const isLiveMsgType = (value: string): value is LiveMsgType => (LIVE_MSG_TYPES as readonly string[]).includes(value);

/** A push whose x-timestamp is further than this from our clock is refused (Douyin pushes within seconds). */
export const LIVE_PUSH_MAX_SKEW_MS = 5 * 60_000;
/** Douyin batches a few payloads per push; a body past this is not one of Douyin's. */
export const LIVE_PUSH_MAX_BODY_BYTES = 256 * 1024;
export const LIVE_PUSH_MAX_ITEMS = 500;

/**
 * The signed string's header part: every `x-*` header but x-signature, sorted by name, as `k=v`
 * joined by `&`. Names must be lowercase (as Node gives them).
 */
function signedHeaderText(headers: Record<string, string>): string {
  return Object.keys(headers)
    .filter((k) => k.startsWith("x-") && k !== "x-signature")
    .sort()
    .map((k) => `${k}=${headers[k]}`)
    .join("&");
}

/** base64(md5(utf8(sorted x-* headers + raw body + secret))). */
export function douyinLiveSignature(headers: Record<string, string>, rawBody: string, secret: string): string {
  return crypto.createHash("md5").update(`${signedHeaderText(headers)}${rawBody}${secret}`, "utf8").digest("base64");
}

export function liveSignatureMatches(headers: Record<string, string>, rawBody: string, secret: string): boolean {
  const given = Buffer.from(headers["x-signature"] ?? "");
  const expected = Buffer.from(douyinLiveSignature(headers, rawBody, secret));
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** The simulator's side: the headers of a push as Douyin sends it. */
export function signLivePush(secret: string, roomId: string, msgType: string, rawBody: string, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {
    "x-nonce-str": crypto.randomBytes(8).toString("hex"),
    "x-timestamp": String(nowMs),
    "x-roomid": roomId,
    "x-msg-type": msgType,
  };
  headers["x-signature"] = douyinLiveSignature(headers, rawBody, secret);
  return headers;
}

interface Viewer {
  msgId: string;
  secOpenid: string;
  nickname: string;
  avatarUrl: string;
  /** Douyin's send time (ms as pushed). */
  timestamp: number;
}

export type LiveMessage =
  | ({ type: "comment"; content: string } & Viewer)
  | ({ type: "gift"; secGiftId: string; giftNum: number; giftValue: number; test: boolean } & Viewer)
  | ({ type: "like"; likeNum: number } & Viewer)
  | ({ type: "fansclub"; reasonType: number; level: number } & Viewer);

export type LiveRefusal = "bad_signature" | "wrong_secret" | "stale_timestamp" | "malformed" | "not_an_array" | "too_large" | "unknown_type";

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const nonNegativeInt = (v: unknown): number | undefined => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** One payload of `msgType`, or undefined when it lacks what every message needs. */
export function readLivePayload(msgType: LiveMsgType, p: unknown): LiveMessage | undefined {
  if (!p || typeof p !== "object" || Array.isArray(p)) return undefined;
  const o = p as Record<string, unknown>;
  const msgId = str(o.msg_id);
  const secOpenid = str(o.sec_openid);
  if (!msgId || msgId.length > 128 || !secOpenid || secOpenid.length > 256) return undefined;
  const viewer: Viewer = { msgId, secOpenid, nickname: str(o.nickname).slice(0, 64), avatarUrl: str(o.avatar_url).slice(0, 512), timestamp: nonNegativeInt(o.timestamp) ?? 0 };
  switch (msgType) {
    case "live_comment":
      return { type: "comment", content: str(o.content).slice(0, 500), ...viewer };
    case "live_gift": {
      const giftNum = nonNegativeInt(o.gift_num);
      const giftValue = nonNegativeInt(o.gift_value);
      const secGiftId = str(o.sec_gift_id);
      if (giftNum === undefined || giftValue === undefined || !secGiftId) return undefined;
      return { type: "gift", secGiftId, giftNum, giftValue, test: o.test === true, ...viewer };
    }
    case "live_like": {
      const likeNum = nonNegativeInt(o.like_num);
      return likeNum === undefined ? undefined : { type: "like", likeNum, ...viewer };
    }
    case "live_fansclub":
      return { type: "fansclub", reasonType: nonNegativeInt(o.fansclub_reason_type) ?? 0, level: nonNegativeInt(o.fansclub_level) ?? 0, ...viewer };
  }
}

/** The body of a push: a JSON array whose every item reads as `msgType`'s payload; all or nothing. */
export function readLiveBody(msgType: LiveMsgType, rawBody: string): { messages: LiveMessage[] } | { refused: LiveRefusal } {
  if (Buffer.byteLength(rawBody, "utf8") > LIVE_PUSH_MAX_BODY_BYTES) return { refused: "too_large" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return { refused: "malformed" };
  }
  if (!Array.isArray(parsed)) return { refused: "not_an_array" };
  if (parsed.length > LIVE_PUSH_MAX_ITEMS) return { refused: "too_large" };
  const messages: LiveMessage[] = [];
  for (const item of parsed) {
    const m = readLivePayload(msgType, item);
    if (!m) return { refused: "malformed" };
    messages.push(m);
  }
  return { messages };
}

export interface LivePushHead {
  roomId: string;
  msgType: LiveMsgType;
}

/**
 * Everything checked before any work: the type is one we take, its secret signed the push, the
 * timestamp is recent, the room id is a number, the body a bounded array of well-formed payloads.
 * `secretOf` answers the secret configured for the type (undefined: the type is not taken).
 */
export function readLivePush(
  headers: Record<string, string>,
  rawBody: string,
  secretOf: (msgType: LiveMsgType) => string | undefined,
  nowMs: number,
): ({ head: LivePushHead; messages: LiveMessage[] }) | { refused: LiveRefusal } {
  const msgType = headers["x-msg-type"] ?? "";
  if (!isLiveMsgType(msgType)) return { refused: "unknown_type" };
  const secret = secretOf(msgType);
  if (!secret) return { refused: "unknown_type" };
  if (!liveSignatureMatches(headers, rawBody, secret)) {
    const otherType = LIVE_MSG_TYPES.some((t) => t !== msgType && secretOf(t) && liveSignatureMatches(headers, rawBody, secretOf(t)!));
    return { refused: otherType ? "wrong_secret" : "bad_signature" };
  }
  const ts = headers["x-timestamp"] ?? "";
  if (!/^\d{1,16}$/.test(ts)) return { refused: "malformed" };
  if (Math.abs(Number(ts) - nowMs) > LIVE_PUSH_MAX_SKEW_MS) return { refused: "stale_timestamp" };
  const roomId = headers["x-roomid"] ?? "";
  if (!/^\d{1,20}$/.test(roomId)) return { refused: "malformed" };
  const body = readLiveBody(msgType, rawBody);
  if ("refused" in body) return body;
  return { head: { roomId, msgType }, messages: body.messages };
}

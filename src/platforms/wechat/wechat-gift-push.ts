/**
 * WeChat's gift-pack delivery (小游戏礼包, the mini-game guide's open-ability/game-gift page;
 * docs/economy-rewards.md#rewards-evidence): when a player claims a gift pack (game circle, welfare
 * centre, ads, search…) WeChat sends the `minigame_deliver_goods` event on the mini-game's message
 * push. Pure functions: the caller names the app whose push Token (and EncodingAESKey) apply.
 *
 * Platform facts (official guide): the message push is signed like every WeChat push
 * (sha1(sort([Token, timestamp, nonce])) in the query; safe mode adds `msg_signature` and an AES
 * body: wechat-push.ts, platform-apis-3 §2, the same scheme as WeChat's published WXBizMsgCrypt).
 * A gift push grants value from its body alone (unlike the item-purchase push, whose payload carries
 * PayEventSig under the AppKey), so only safe mode is accepted: the console's message push must be
 * set to safe mode (安全模式) with an EncodingAESKey. The event's `MiniGame` object carries
 * `OrderId` (unique: the dedupe key), `IsPreview` (a console preview), `ToUserOpenid`, `Zone` (1001
 * iOS, 2001 Android/PC),
 * `GiftTypeId`, `GiftId` (the pack as configured in the MP console), `SendTime` and `GoodsList`
 * `[{Id, Num}]`; the answer is `{"ErrCode": 0, "ErrMsg": "Success"}`, a non-zero ErrCode is a failed
 * delivery, and `SubErrCode` 172935494 says the player is unknown.
 *
 * Unconfirmed: the retry schedule (one integration quotes 2^n minutes, 2 to 1024, and a circuit
 * breaker that disables the pack after repeated failures; the guide says nothing) and whether the
 * gift push may share the virtual-payment push's URL and Token (the MP console has one message-push
 * URL; virtual payment 2.0 has its own "发货推送配置"): we verify with the app's push Token either way.
 * Also unconfirmed: that compatible mode (兼容模式), which sends `Encrypt` beside the plain fields,
 * names `encrypt_type=aes` in the query as safe mode does; if it does, it is read like safe mode.
 */
import { parseJsonObject } from "../shared/json-object";
import { decryptPush, PUSH_MAX_SKEW_SEC, verifiesUrl, pushSignature, type PushKeys } from "./wechat-push";
import crypto from "node:crypto";
import { isSupportPush, readSupportPush, type IncomingSupportMessage } from "./wechat-support";

export const GIFT_EVENT = "minigame_deliver_goods";
/** The guide's SubErrCode for "this player has no account here": WeChat stops retrying it. */
export const GIFT_UNKNOWN_PLAYER_SUBCODE = 172935494;

/** `plain_mode`: the body came unencrypted, so nothing proves WeChat wrote it (the query signature does not cover it). */
export type GiftRefusal = "bad_signature" | "stale_timestamp" | "malformed" | "wrong_app" | "plain_mode";

export interface GiftDelivery {
  orderId: string;
  openid: string;
  giftId: string;
  goods: Array<{ id: string; num: number }>;
  /** A console preview: acknowledged, nothing granted. */
  preview: boolean;
}

export type GiftPushOutcome =
  | { kind: "gift"; delivery: GiftDelivery }
  /** A player's customer-service message (wechat-support.ts), on the same push. */
  | { kind: "support"; message: IncomingSupportMessage }
  /** Another event on the message push: acknowledged, nothing recorded. */
  | { kind: "other"; event: string }
  | { kind: "refused"; reason: GiftRefusal };

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

const ORDER_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Reads one message push for `appId` (already matched by its URL signature): timestamp, safe mode,
 * then the event. Only safe mode is read: there `msg_signature` covers the encrypted body and the
 * app id is inside it. A plain-mode body is
 * refused, whatever it says: its signature would be the same for any other body.
 */
export function readGiftPush(appId: string, push: PushKeys, query: URLSearchParams, rawBody: string, nowSec: number): GiftPushOutcome {
  const refused = (reason: GiftRefusal): GiftPushOutcome => ({ kind: "refused", reason });
  const timestamp = query.get("timestamp") ?? "";
  if (!verifiesUrl(push.token, query)) return refused("bad_signature");
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSec) > PUSH_MAX_SKEW_SEC) return refused("stale_timestamp");
  if (query.get("encrypt_type") !== "aes" || !push.encodingAesKey) return refused("plain_mode");
  const envelope = parseJsonObject(rawBody);
  if (!envelope || typeof envelope.Encrypt !== "string") return refused("malformed");
  if (!safeEqual(query.get("msg_signature") ?? "", pushSignature(push.token, timestamp, query.get("nonce") ?? "", envelope.Encrypt))) return refused("bad_signature");
  const opened = decryptPush(push.encodingAesKey, envelope.Encrypt);
  if (!opened) return refused("malformed");
  if (opened.appId !== appId) return refused("wrong_app");
  const body = parseJsonObject(opened.message);
  if (!body) return refused("malformed");
  if (isSupportPush(body)) {
    const message = readSupportPush(body);
    return message ? { kind: "support", message } : refused("malformed");
  }
  if (body.MsgType !== "event" || typeof body.Event !== "string") return refused("malformed");
  if (body.Event !== GIFT_EVENT) return { kind: "other", event: body.Event };
  const game = body.MiniGame as Record<string, unknown> | undefined;
  if (!game || typeof game !== "object") return refused("malformed");
  const { OrderId: orderId, ToUserOpenid: openid, GiftId: giftId, GoodsList: list } = game;
  if (typeof orderId !== "string" || !ORDER_ID.test(orderId) || typeof openid !== "string" || !openid) return refused("malformed");
  if (!Array.isArray(list)) return refused("malformed");
  const goods: GiftDelivery["goods"] = [];
  for (const entry of list as Array<Record<string, unknown>>) {
    if (!entry || typeof entry.Id !== "string" || !entry.Id || typeof entry.Num !== "number" || !Number.isInteger(entry.Num) || entry.Num < 1) return refused("malformed");
    goods.push({ id: entry.Id, num: entry.Num });
  }
  return {
    kind: "gift",
    delivery: { orderId, openid, giftId: typeof giftId === "string" ? giftId : typeof giftId === "number" ? String(giftId) : "", goods, preview: game.IsPreview === 1 || game.IsPreview === true },
  };
}

/**
 * WeChat's customer-service messages for mini-games (客服消息; docs/growth.md#customer-service-messages).
 *
 * In: a player's message in the game's customer-service conversation (wx.openCustomerServiceConversation)
 * arrives on the mini-game's message push, the same URL, Token and EncodingAESKey as gift packs
 * (wechat-gift-push.ts reads the envelope in safe mode and hands the decrypted body here). JSON fields
 * (WeChat's "receive customer-service messages" doc, WxJava's WxMaMessage): `FromUserName` (the
 * player's openid), `CreateTime` (s), `MsgType` `text` (`Content`), `image` (`PicUrl`, `MediaId`),
 * `miniprogrampage` (`Title`, `AppId`, `PagePath`, `ThumbUrl`, `ThumbMediaId`), each with `MsgId`; and
 * `event` / `user_enter_tempsession` (`SessionFrom`) when the player opens the conversation, without a
 * MsgId (we key it by openid and CreateTime).
 *
 * Out: `POST /cgi-bin/message/custom/send?access_token=` `{touser, msgtype: "text", text: {content}}`;
 * WeChat allows replies within 48 hours of the player's last message (45015) and a bounded number of
 * them per message (45047). Unconfirmed: the exact reply budget (community threads say 5 per player
 * message) and the errcode for a malformed touser (we treat 40003 as the API's "invalid openid").
 */
import type { SupportMessageKind } from "../../core/ports/support-messages";
import { errcodeBusinessFailure, isBusy } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber } from "../shared/login-code";
import type { ErrorTable } from "../shared/platform-errors";
import type { PlatformClientDeps } from "../platform";

export const CUSTOM_SEND_PATH = "/cgi-bin/message/custom/send";
export const ENTER_SESSION_EVENT = "user_enter_tempsession";
/** WeChat's replies to a text longer than this are refused (unconfirmed: the documented 2048 bytes, counted here in characters). */
export const SUPPORT_TEXT_MAX = 2000;
const BAD_TOKEN_CODES = [40001, 42001, 40014] as const;
const TABLE: ErrorTable = { 45015: "support_reply_window_closed", 45047: "support_reply_window_closed", 45009: "platform_rate_limited", 40003: "invalid_request", 44002: "invalid_request", 47001: "invalid_request" };

export interface IncomingSupportMessage {
  openid: string;
  messageId: string;
  kind: SupportMessageKind;
  text: string;
  detail: Record<string, string>;
  /** When WeChat says the player sent it (s). */
  sentAtSec: number;
}

const MSG_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const idOf = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) ? String(v) : typeof v === "string" ? v : "");

/** Whether a decrypted message-push body is a customer-service message (rather than an event for another reader). */
export function isSupportPush(body: Record<string, unknown>): boolean {
  return body.MsgType === "text" || body.MsgType === "image" || body.MsgType === "miniprogrampage" || (body.MsgType === "event" && body.Event === ENTER_SESSION_EVENT);
}

/** The message a customer-service push carries, or undefined when it lacks what every such message has. */
export function readSupportPush(body: Record<string, unknown>): IncomingSupportMessage | undefined {
  const openid = str(body.FromUserName);
  const sentAtSec = body.CreateTime;
  if (!openid || typeof sentAtSec !== "number" || !Number.isInteger(sentAtSec) || sentAtSec <= 0) return undefined;
  if (body.MsgType === "event") {
    return { openid, messageId: `enter-${openid}-${sentAtSec}`.slice(0, 128), kind: "enter", text: "", detail: body.SessionFrom ? { sessionFrom: str(body.SessionFrom).slice(0, 256) } : {}, sentAtSec };
  }
  const messageId = idOf(body.MsgId);
  if (!MSG_ID.test(messageId)) return undefined;
  if (body.MsgType === "text") {
    const text = str(body.Content);
    return text ? { openid, messageId, kind: "text", text: text.slice(0, 4000), detail: {}, sentAtSec } : undefined;
  }
  if (body.MsgType === "image") {
    const url = str(body.PicUrl);
    return url ? { openid, messageId, kind: "image", text: url.slice(0, 1024), detail: { mediaId: str(body.MediaId).slice(0, 256) }, sentAtSec } : undefined;
  }
  const title = str(body.Title);
  const pagePath = str(body.PagePath);
  if (!title && !pagePath) return undefined;
  return { openid, messageId, kind: "page", text: title.slice(0, 256), detail: { pagePath: pagePath.slice(0, 1024), thumbUrl: str(body.ThumbUrl).slice(0, 1024) }, sentAtSec };
}

/** Sends an operator's text reply to the player. */
export async function sendCustomerServiceText(deps: PlatformClientDeps, call: { accessToken: string; openid: string; text: string }): Promise<void> {
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: CUSTOM_SEND_PATH,
    query: { access_token: call.accessToken },
    body: { touser: call.openid, msgtype: "text", text: { content: call.text } },
    isBusy,
  });
  if (errorNumber(reply.errcode) !== 0) throw errcodeBusinessFailure({ platform: "wechat", errorTable: TABLE, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
}

/**
 * Douyin's customer-service messages (抖音客服平台; doc `message-push/douyin-microgame-im-guide` and
 * `douyin-microgame-im/reply-user-text`; docs/growth.md#customer-service-messages).
 *
 * In: on the mini-game's message push (the gift push's URL and Token, douyin-gift.ts checks the
 * x-signature), `x-msg-type: douyin_microgame_im`, a JSON body `{app_id, conversation_id, msg_id,
 * create_time, msg_type: text|image|video|score, open_id, content, pic_url, video_url, score_content}`;
 * Douyin may push one message more than once: dedupe on `msg_id`. A text's `content` is itself JSON
 * (`{"text": …, "action": {}}`; only `text` matters). The ids are 64-bit numbers, beyond a JS number's
 * precision: they are read from the raw text.
 * Out: `POST /mgplatform/api/apps/reply/reply_user_text`, header `access-token`, body `{micro_game_id,
 * conversation_id, msg_id (ours, "幂等"), create_time (s), msg_type: "text", content, sender_name?}`;
 * at most 5 replies within 48 hours of the player's message (the image reply's page says so).
 * Unconfirmed: `create_time`'s unit in the push (the doc says seconds, its example is milliseconds: both
 * are read); the reply's error numbers besides the token's (any other is the platform's refusal).
 */
import crypto from "node:crypto";
import type { SupportMessageKind } from "../../core/ports/support-messages";
import { AppError } from "../../core/errors";
import { parseJsonObject } from "../shared/json-object";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../platform";
import type { IncomingSupportMessage } from "../wechat/wechat-support";

export const DOUYIN_SUPPORT_MSG_TYPE = "douyin_microgame_im";
export const DOUYIN_REPLY_TEXT_PATH = "/mgplatform/api/apps/reply/reply_user_text";
const BAD_TOKEN = new Set([28001003, 28001008]);

/** A 64-bit id field as its digits in the raw JSON text (quoted or not). */
function rawId(raw: string, field: string): string {
  const match = new RegExp(`"${field}"\\s*:\\s*"?(\\d{1,20})"?`).exec(raw);
  return match ? match[1] : "";
}

/** The message a customer-service push carries, or undefined when it lacks what every such message has. */
export function readDouyinSupportPush(raw: string): IncomingSupportMessage | undefined {
  const body = parseJsonObject(raw);
  if (!body) return undefined;
  const openid = str(body.open_id);
  const messageId = rawId(raw, "msg_id");
  const conversationId = rawId(raw, "conversation_id");
  const created = body.create_time;
  if (!openid || !messageId || !conversationId || typeof created !== "number" || !Number.isFinite(created) || created <= 0) return undefined;
  const sentAtSec = Math.floor(created > 1e11 ? created / 1000 : created);
  const detail = { conversationId };
  const kinds: Record<string, SupportMessageKind> = { text: "text", image: "image", video: "image", score: "text" };
  const kind = kinds[str(body.msg_type)];
  if (!kind) return undefined;
  let text = "";
  if (body.msg_type === "text") {
    const content = str(body.content);
    const inner = parseJsonObject(content);
    text = inner && typeof inner.text === "string" ? inner.text : content;
  } else if (body.msg_type === "score") text = str(body.score_content);
  else text = str(body.msg_type === "video" ? body.video_url : body.pic_url);
  if (!text) return undefined;
  return { openid, messageId, kind, text: text.slice(0, 4000), detail: body.msg_type === "video" ? { ...detail, video: "1" } : detail, sentAtSec };
}

/**
 * Douyin's reply `msg_id` for our reply: its examples are all digits (unconfirmed whether other ids are
 * taken), so a stable 18-digit number from our id; the same reply always gets the same one.
 */
export function douyinReplyMsgId(messageId: string): string {
  return (BigInt(`0x${crypto.createHash("sha256").update(messageId).digest("hex").slice(0, 15)}`) % 10n ** 18n).toString().padStart(18, "1");
}

export async function sendDouyinSupportText(deps: PlatformClientDeps, call: { accessToken: string; conversationId: string; messageId: string; text: string; nowSec: number; senderName?: string }): Promise<void> {
  const reply = await callPlatformApi("douyin", deps, {
    method: "POST",
    path: DOUYIN_REPLY_TEXT_PATH,
    headers: { "access-token": call.accessToken },
    body: { micro_game_id: deps.settings.appId, conversation_id: call.conversationId, msg_id: douyinReplyMsgId(call.messageId), create_time: call.nowSec, msg_type: "text", content: call.text, ...(call.senderName ? { sender_name: call.senderName } : {}) },
    isBusy: () => false,
  });
  const errNo = errorNumber(reply.err_no);
  const detail = { platform: "douyin", err_no: errNo, err_msg: str(reply.err_msg) || str(reply.err_tips) };
  if (BAD_TOKEN.has(errNo)) throw new PlatformTokenRejectedError("douyin", call.accessToken, detail);
  // Which err_no says "48 hours passed" or "5 replies used" is not documented: the console shows Douyin's message.
  if (errNo !== 0) throw new AppError("platform_unavailable", { data: detail });
}

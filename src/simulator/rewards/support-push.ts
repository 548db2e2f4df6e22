/** The body of a customer-service message as WeChat pushes it (wechat-support.ts reads it), for the simulator. */
import { ENTER_SESSION_EVENT } from "../../platforms/wechat/wechat-support";

export function supportPushBody(appId: string, openid: string, msgId: string, input: Record<string, unknown>, nowSec: number): Record<string, unknown> | string {
  const text = typeof input.text === "string" ? input.text : "";
  const common = { ToUserName: `gh_${appId}`, FromUserName: openid, CreateTime: nowSec };
  const kind = input.kind ?? "text";
  if (kind === "enter") return { ...common, MsgType: "event", Event: ENTER_SESSION_EVENT, SessionFrom: text };
  // WeChat's MsgId is a 64-bit number; a chosen id that is not one is sent as a string.
  const id = /^\d{1,15}$/.test(msgId) ? Number(msgId) : msgId;
  if (kind === "text") return text ? { ...common, MsgType: "text", Content: text, MsgId: id } : "text is required for a text message";
  if (kind === "image") return { ...common, MsgType: "image", PicUrl: text || `https://mmbiz.example/sim/${msgId}.jpg`, MediaId: `sim_media_${msgId}`, MsgId: id };
  if (kind === "page") return { ...common, MsgType: "miniprogrampage", Title: text || "A game page", AppId: appId, PagePath: "pages/index?from=support", ThumbUrl: "", ThumbMediaId: "", MsgId: id };
  return 'kind is one of "text", "image", "page", "enter"';
}

/** Douyin's push text: the ids as bare 64-bit numbers, as Douyin writes them; `content` is JSON in a string. */
export function douyinSupportPushText(appId: string, openid: string, conversationId: string, msgId: string, input: Record<string, unknown>, nowMs: number): string | undefined {
  const text = typeof input.text === "string" ? input.text : "";
  if (!text) return undefined;
  const content = JSON.stringify(JSON.stringify({ text, action: {} }));
  return `{"app_id":${JSON.stringify(appId)},"conversation_id":${conversationId},"msg_id":${/^\d+$/.test(msgId) ? msgId : JSON.stringify(msgId)},"create_time":${nowMs},"msg_type":"text","open_id":${JSON.stringify(openid)},"pic_url":null,"content":${content}}`;
}

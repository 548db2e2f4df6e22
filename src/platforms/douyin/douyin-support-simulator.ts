/**
 * Douyin's customer-service reply in the simulator (douyin-support.ts): `POST
 * /mgplatform/api/apps/reply/reply_user_text` with the `access-token` header (28001003 when it does not
 * work), `micro_game_id` the token's app and a `conversation_id` the simulator pushed a message in
 * (else 28001007, bad parameters), `msg_type` text with `content`; the sixth reply or one 48 hours after
 * the player's message is refused with 28001007 too (Douyin's own numbers for these are not documented).
 * Accepted replies are kept for `GET /__simulator/support-replies`.
 */
import { growthStateOf } from "../../simulator/growth-state";
import { JSON_TYPE, param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { objectBody } from "../../simulator/signed-request";
import { DOUYIN_REPLY_TEXT_PATH } from "./douyin-support";

const WINDOW_MS = 48 * 3600_000;
const answer = (errNo: number, errTips: string): SimReply => ({ contentType: JSON_TYPE, body: { err_no: errNo, err_tips: errTips, log_id: `sim${Date.now()}` } });

function replyText(req: SimRequest, sim: PlatformSimContext): SimReply {
  const { status, appId } = sim.tokenStatus(req.headers["access-token"] ?? "");
  if (status !== "valid" || !appId) return answer(28001003, "access_token invalid");
  const body = objectBody(req);
  if (!body || param(body, "micro_game_id") !== appId || body.msg_type !== "text" || !param(body, "content") || !param(body, "msg_id")) return answer(28001007, "invalid params");
  const state = growthStateOf(sim.social);
  const conversationId = param(body, "conversation_id");
  const window = state.supportWindows.get(`${appId}\0${conversationId}`);
  if (!window || sim.now() - window.lastInMs > WINDOW_MS || window.repliesLeft <= 0) return answer(28001007, "reply not allowed in this conversation now");
  window.repliesLeft -= 1;
  state.supportReplies.push({ appId, openid: window.openid ?? "", msgtype: "text", content: param(body, "content"), atMs: sim.now() });
  return answer(0, "success");
}

export const douyinSupportRoutes: SimulatorRoute[] = [{ method: "POST", path: DOUYIN_REPLY_TEXT_PATH, counts: "business", handle: replyText }];

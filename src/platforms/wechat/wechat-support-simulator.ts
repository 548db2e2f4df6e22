/**
 * WeChat's customer-service send in the simulator (docs/growth.md#customer-service-messages):
 * `POST /cgi-bin/message/custom/send` on the shared business-API token check. A player the simulator
 * never pushed a message for, or whose last one is over 48 hours old, is 45015 (WeChat's "response
 * out of time limit"); the sixth reply to one message is 45047 (unconfirmed: the budget of 5 is the
 * community's figure); no touser is 40003, a msgtype other than text or no content 47001 (only text
 * replies are modelled). Accepted replies are kept for `GET /__simulator/support-replies`.
 */
import type { ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { growthStateOf } from "../../simulator/growth-state";
import { param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { objectBody } from "../../simulator/signed-request";
import { CUSTOM_SEND_PATH } from "./wechat-support";

export const SUPPORT_REPLY_WINDOW_MS = 48 * 3600_000;
export const SUPPORT_REPLIES_PER_MESSAGE = 5;

function customSendRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const body = objectBody(req);
    if (!body) return error([44002, "empty post data"]);
    const openid = param(body, "touser");
    if (!openid) return error([40003, "invalid openid"]);
    const content = (body.text as { content?: unknown } | undefined)?.content;
    if (body.msgtype !== "text" || typeof content !== "string" || !content) return error([47001, "data format error"]);
    const state = growthStateOf(sim.social);
    const window = state.supportWindows.get(`${auth.appId}\0${openid}`);
    if (!window || sim.now() - window.lastInMs > SUPPORT_REPLY_WINDOW_MS) return error([45015, "response out of time limit or subscription is canceled"]);
    if (window.repliesLeft <= 0) return error([45047, "out of response count limit"]);
    window.repliesLeft -= 1;
    state.supportReplies.push({ appId: auth.appId, openid, msgtype: "text", content, atMs: sim.now() });
    return ok({ errcode: 0, errmsg: "ok" });
  };
  return { method: "POST", path: CUSTOM_SEND_PATH, counts: "business", handle };
}

export function wechatSupportRoutes(helpers: ErrcodeBusinessHelpers): SimulatorRoute[] {
  return [customSendRoute(helpers)];
}

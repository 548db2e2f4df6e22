/**
 * WeChat's growth APIs in the simulator (docs/growth.md), on the shared business-API token check:
 * `getuserriskrank` answers the rank chosen for the player (`POST /__simulator/risk-rank`, 0 by
 * default) or the error chosen instead; a body without `openid` is 40003, without `client_ip` or with
 * a `scene` other than 0–2 is 47001 (WeChat's data-format error; its exact answer here is unconfirmed),
 * and an `appid` other than the token's app is 40013 (unconfirmed likewise).
 * Updatable messages: `activityid/create` issues an id for 24 h; `updatablemsg/send` refuses an unknown,
 * expired or another app's id, state 0 without member_count/room_limit, state 1 without path/version_type,
 * and any change after state 1, all with 47001 (WeChat's data-format error; the exact codes are unconfirmed).
 */
import type { ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { growthStateOf } from "../../simulator/growth-state";
import { param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { objectBody } from "../../simulator/signed-request";
import { ACTIVITY_ID_PATH, RISK_RANK_PATH, UPDATABLE_MSG_PATH } from "./wechat-growth";
import { randomBytes } from "node:crypto";

function riskRankRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const body = objectBody(req);
    if (!body) return error([47001, "data format error"]);
    const openid = param(body, "openid");
    if (!openid) return error([40003, "invalid openid"]);
    if (param(body, "appid") !== auth.appId) return error([40013, "invalid appid"]);
    if (!param(body, "client_ip") || ![0, 1, 2].includes(body.scene as number)) return error([47001, "data format error"]);
    const rank = growthStateOf(sim.social).askRank(sim.platform, openid);
    if (typeof rank === "object") return error([rank.errcode, rank.errmsg]);
    return ok({ errcode: 0, errmsg: "getuserriskrank succ", risk_rank: rank, unoin_id: Math.floor(sim.now() / 1000) });
  };
  return { method: "POST", path: RISK_RANK_PATH, counts: "business", handle };
}

const DATA_FORMAT: [number, string] = [47001, "data format error"];

function activityIdRoute({ checkToken, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const activityId = `sim_activity_${randomBytes(9).toString("base64url")}`;
    const expiresAtMs = sim.now() + 24 * 3600_000;
    growthStateOf(sim.social).activities.set(activityId, { appId: auth.appId, openid: req.query.get("openid") || null, expiresAtMs, state: null, parameters: {}, updates: 0 });
    return ok({ errcode: 0, errmsg: "ok", activity_id: activityId, expiration_time: Math.floor(expiresAtMs / 1000) });
  };
  return { method: "GET", path: ACTIVITY_ID_PATH, counts: "business", handle };
}

function updatableMsgRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const body = objectBody(req);
    if (!body) return error([44002, "empty post data"]);
    const activity = growthStateOf(sim.social).activities.get(param(body, "activity_id"));
    if (!activity || activity.appId !== auth.appId || activity.expiresAtMs < sim.now() || activity.state === 1) return error(DATA_FORMAT);
    const target = body.target_state;
    const list = (body.template_info as { parameter_list?: unknown } | undefined)?.parameter_list;
    if ((target !== 0 && target !== 1) || !Array.isArray(list)) return error(DATA_FORMAT);
    const parameters: Record<string, string> = {};
    for (const p of list) {
      if (!p || typeof p !== "object" || typeof (p as Record<string, unknown>).name !== "string" || typeof (p as Record<string, unknown>).value !== "string") return error(DATA_FORMAT);
      parameters[(p as Record<string, string>).name] = (p as Record<string, string>).value;
    }
    const needed = target === 0 ? ["member_count", "room_limit"] : ["path", "version_type"];
    if (!needed.every((n) => parameters[n] !== undefined)) return error(DATA_FORMAT);
    activity.state = target;
    activity.parameters = parameters;
    activity.updates += 1;
    return ok({ errcode: 0, errmsg: "ok" });
  };
  return { method: "POST", path: UPDATABLE_MSG_PATH, counts: "business", handle };
}

export function wechatGrowthRoutes(helpers: ErrcodeBusinessHelpers): SimulatorRoute[] {
  return [riskRankRoute(helpers), activityIdRoute(helpers), updatableMsgRoute(helpers)];
}

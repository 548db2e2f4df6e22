/**
 * WeChat's growth APIs in the simulator (docs/growth.md), on the shared business-API token check:
 * `getuserriskrank` answers the rank chosen for the player (`POST /__simulator/risk-rank`, 0 by
 * default) or the error chosen instead; a body without `openid` is 40003, without `client_ip` or with
 * a `scene` other than 0–2 is 47001 (WeChat's data-format error; its exact answer here is unconfirmed),
 * and an `appid` other than the token's app is 40013 (unconfirmed likewise).
 */
import type { ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { growthStateOf } from "../../simulator/growth-state";
import { param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { objectBody } from "../../simulator/signed-request";
import { RISK_RANK_PATH } from "./wechat-growth";

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

export function wechatGrowthRoutes(helpers: ErrcodeBusinessHelpers): SimulatorRoute[] {
  return [riskRankRoute(helpers)];
}

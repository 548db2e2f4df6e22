/**
 * The simulator's controls for the growth surfaces, for tests and the playground (any process):
 * - `POST /__simulator/risk-rank` with `{"platform": "wechat", "openid", "rank": 0–4}` makes
 *   getuserriskrank answer that rank for the player from now on, or with `{"errcode", "errmsg"?}`
 *   that error → `{"platform", "openid", "rank"}`;
 * - `GET /__simulator/risk-rank?platform=&openid=` → `{"rank", "calls"}`: the chosen rank (0 by
 *   default) and how often getuserriskrank was asked for the player.
 * - `GET /__simulator/updatable-msg?activityId=` → the share message as WeChat holds it: `{appId, openid,
 *   state, parameters, updates}` (404 when unknown).
 * - `GET /__simulator/support-replies?openid=` → `{"replies": [{appId, openid, msgtype, content, atMs}]}`: the
 *   customer-service messages custom/send accepted for the player (every player without `openid`).
 * Bad input is 400 `{errcode: 400}`.
 */
import { MALFORMED_BODY, param, type SimRequest } from "./platform-simulator";
import type { SocialSimState } from "./social-state";
import { growthStateOf } from "./growth-state";

export const GROWTH_CONTROL_ROUTES = ["POST /__simulator/risk-rank", "GET /__simulator/risk-rank", "GET /__simulator/updatable-msg", "GET /__simulator/support-replies"] as const;
export type GrowthControlRoute = (typeof GROWTH_CONTROL_ROUTES)[number];

export function isGrowthControl(routeKey: string): routeKey is GrowthControlRoute {
  return (GROWTH_CONTROL_ROUTES as readonly string[]).includes(routeKey);
}

export function growthControl(route: GrowthControlRoute, query: URLSearchParams, body: SimRequest["body"], social: SocialSimState): { status: number; body: unknown } {
  const problem = (errmsg: string) => ({ status: 400, body: { errcode: 400, errmsg } });
  const state = growthStateOf(social);
  if (route === "GET /__simulator/updatable-msg") {
    const found = state.activities.get(param(query, "activityId"));
    return found ? { status: 200, body: found } : { status: 404, body: { errcode: 404, errmsg: "no such activity id" } };
  }
  if (route === "GET /__simulator/support-replies") {
    const openid = param(query, "openid");
    return { status: 200, body: { replies: state.supportReplies.filter((r) => !openid || r.openid === openid) } };
  }
  if (route === "GET /__simulator/risk-rank") {
    const platform = param(query, "platform");
    const openid = param(query, "openid");
    if (!platform || !openid) return problem("expected ?platform=&openid=");
    return { status: 200, body: { rank: state.chosenRank(platform, openid), calls: state.rankCalls(platform, openid) } };
  }
  const input = body === MALFORMED_BODY || body === undefined ? {} : body;
  const platform = param(input, "platform");
  const openid = param(input, "openid");
  if (!platform || !openid) return problem("expected {platform, openid, rank | errcode}");
  if (Number.isInteger(input.errcode)) {
    const error = { errcode: input.errcode as number, errmsg: param(input, "errmsg") || "system error" };
    state.chooseRank(platform, openid, error);
    return { status: 200, body: { platform, openid, rank: error } };
  }
  const rank = input.rank;
  if (!Number.isInteger(rank) || (rank as number) < 0 || (rank as number) > 4) return problem("rank must be an integer 0–4");
  state.chooseRank(platform, openid, rank as number);
  return { status: 200, body: { platform, openid, rank } };
}

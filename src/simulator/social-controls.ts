/**
 * The simulator's controls for the social APIs, for tests and the playground (any process):
 * - `GET /__simulator/storage?platform=&openid=` → `{"kvList": [{key, value}], "interactiveData": [{key, value}]}`
 *   as stored (oldest key first);
 * - `POST /__simulator/subscribe-grant` with `{"platform", "openid", "templateId", "count"?}` stands for
 *   the player accepting the client's subscribe prompt `count` times (default 1) → `{"granted": <unused grants>}`;
 * - `GET /__simulator/subscribe-messages?platform=&openid=` → `{"messages": [{templateId, data, page?, …}]}`
 *   in the order delivered.
 * A missing parameter is 400 `{errcode: 400}`.
 */
import { MALFORMED_BODY, param, type SimRequest } from "./platform-simulator";
import type { SocialSimState } from "./social-state";

export const SOCIAL_CONTROL_ROUTES = ["GET /__simulator/storage", "POST /__simulator/subscribe-grant", "GET /__simulator/subscribe-messages"] as const;
export type SocialControlRoute = (typeof SOCIAL_CONTROL_ROUTES)[number];

export function isSocialControl(routeKey: string): routeKey is SocialControlRoute {
  return (SOCIAL_CONTROL_ROUTES as readonly string[]).includes(routeKey);
}

const MAX_GRANTS_PER_CALL = 1000;

export function socialControl(route: SocialControlRoute, query: URLSearchParams, body: SimRequest["body"], state: SocialSimState): { status: number; body: unknown } {
  const problem = (errmsg: string) => ({ status: 400, body: { errcode: 400, errmsg } });
  if (route === "POST /__simulator/subscribe-grant") {
    const input = body === MALFORMED_BODY || body === undefined ? {} : body;
    const [platform, openid, templateId] = [param(input, "platform"), param(input, "openid"), param(input, "templateId")];
    const count = input.count ?? 1;
    if (!platform || !openid || !templateId || !Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_GRANTS_PER_CALL) {
      return problem(`expected {platform, openid, templateId, count?} with count 1–${MAX_GRANTS_PER_CALL}`);
    }
    return { status: 200, body: { platform, openid, templateId, granted: state.grant(platform, openid, templateId, count as number) } };
  }
  const platform = param(query, "platform");
  const openid = param(query, "openid");
  if (!platform || !openid) return problem("expected ?platform=&openid=");
  if (route === "GET /__simulator/storage") {
    const kvList = [...state.storageOf(platform, openid)].map(([key, value]) => ({ key, value }));
    const interactiveData = [...state.interactiveOf(platform, openid)].map(([key, value]) => ({ key, value }));
    return { status: 200, body: { kvList, interactiveData } };
  }
  return { status: 200, body: { messages: state.messagesOf(platform, openid) } };
}

/**
 * Kuaishou's part of the simulator (platform-apis-2.md §7.1, §7.2): `result: 1` means success,
 * any other `result` comes with `error_msg`. Tokens live 48 h and a refetch leaves earlier tokens
 * valid (§7.2: "新老token同时有效"). Ids: open_id and union_id are 32 lowercase hex digits
 * (their real shape is not documented).
 */
import { idDigest, judgeCode, newSessionKey } from "../../simulator/codes";
import { JSON_TYPE, param, type PlatformSimContext, type PlatformSimulator, type SimReply, type SimRequest } from "../../simulator/platform-simulator";
import { opaqueTokenPolicy } from "../../simulator/tokens";
import { KUAISHOU_RESULTS } from "./kuaishou-results";

const R = KUAISHOU_RESULTS;

const fail = (result: number, errorMsg: string): SimReply => ({ contentType: JSON_TYPE, body: { result, error_msg: errorMsg } });
const ok = (body: Record<string, unknown>): SimReply => ({ contentType: JSON_TYPE, body: { result: R.ok, ...body } });
const hex32 = (digest: Buffer) => digest.toString("hex").slice(0, 32);

function checkApp(sim: PlatformSimContext, appId: string, secret: string, grantType: string, expectedGrant: string): SimReply | undefined {
  if (!appId || !secret || grantType !== expectedGrant) return fail(R.badParams, "invalid params");
  return sim.checkCredentials(appId, secret) === "ok" ? undefined : fail(R.badApp, "app_id or app_secret verification failed");
}

function code2Session(req: SimRequest, sim: PlatformSimContext): SimReply {
  const q = req.query;
  const appId = param(q, "app_id");
  const jsCode = param(q, "js_code");
  const refused = checkApp(sim, appId, param(q, "app_secret"), param(q, "grant_type"), "authorization_code") ?? (jsCode ? undefined : fail(R.badParams, "invalid params"));
  if (refused) return refused;
  const verdict = judgeCode(sim, appId, "code", jsCode);
  if (!verdict.accepted) {
    switch (verdict.reason) {
      case "busy":
        return fail(R.busy, "system busy");
      case "ratelimited":
        return fail(R.rateLimited, "api call frequency limited");
      case "blocked":
        return fail(R.blocked, "user banned");
      default:
        return fail(R.invalidCode, "invalid code");
    }
  }
  sim.consumed.markUsed(verdict.consumedKey);
  return ok({
    open_id: verdict.outcome === "ok" ? hex32(idDigest("openid", "kuaishou", appId, verdict.player)) : "",
    union_id: verdict.outcome === "noid" ? "" : hex32(idDigest("unionid", "kuaishou", verdict.player)),
    session_key: newSessionKey(),
  });
}

function accessToken(req: SimRequest, sim: PlatformSimContext): SimReply {
  const q = req.query;
  const appId = param(q, "app_id");
  const refused = checkApp(sim, appId, param(q, "app_secret"), param(q, "grant_type"), "client_credentials");
  if (refused) return refused;
  const t = sim.tokens(appId).issueOrdinary();
  return ok({ access_token: t.accessToken, expires_in: t.expiresInSec, token_type: "bearer" });
}

export const kuaishouSimulator: PlatformSimulator = {
  routes: [
    { method: "GET", path: "/game/minigame/jscode2session", counts: "code2session", handle: code2Session },
    { method: "GET", path: "/oauth2/access_token", counts: "accessToken", handle: accessToken },
  ],
  tokenPolicy: { ...opaqueTokenPolicy, lifetimeMs: 48 * 3600_000, refetchKeepsOld: true },
};

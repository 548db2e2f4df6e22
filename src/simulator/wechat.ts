/**
 * WeChat endpoints (spec §1, §2). Errors are `{"errcode","errmsg":"<text>, rid: …"}` sent as
 * text/plain, as in a real capture, so clients are exercised parsing JSON whatever the header says.
 * Successes carry no errcode at all, like the real replies and unlike the documented example.
 */
import { ConsumedCodes, newRid, newSessionKey, openidFor, parseCode, unionidFor } from "./codes";
import { JSON_TYPE, MALFORMED_BODY, param, type SimReply, type SimRequest, type SimulatorState } from "./state";

function error(errcode: number, text: string): SimReply {
  return { contentType: "text/plain", body: { errcode, errmsg: `${text}, rid: ${newRid()}` } };
}

const ok = (body: unknown): SimReply => ({ contentType: JSON_TYPE, body });

interface Credentials {
  appid: string;
  secret: string;
  grantType: string;
}

function missingCredentials(c: Credentials): SimReply | undefined {
  if (!c.appid) return error(41002, "appid missing");
  if (!c.secret) return error(41004, "appsecret missing");
  return undefined;
}

function refusedApp(state: SimulatorState, c: Credentials, expectedGrantType: string): SimReply | undefined {
  if (c.grantType !== expectedGrantType) return error(40002, "invalid grant_type");
  const check = state.checkCredentials("wechat", c.appid, c.secret);
  if (check === "unknown_appid") return error(40013, "invalid appid");
  if (check === "wrong_secret") return error(40125, "invalid appsecret");
  return undefined;
}

export function code2Session(req: SimRequest, state: SimulatorState): SimReply {
  const q = req.query;
  const c = { appid: param(q, "appid"), secret: param(q, "secret"), grantType: param(q, "grant_type") };
  const jsCode = param(q, "js_code");
  const refused =
    missingCredentials(c) ?? (jsCode ? undefined : error(41008, "missing code")) ?? refusedApp(state, c, "authorization_code");
  if (refused) return refused;

  const parsed = parseCode(jsCode);
  if (!parsed) return error(40029, "invalid code");
  switch (parsed.outcome) {
    case "invalid":
      return error(40029, "invalid code");
    case "blocked":
      return error(40226, "code blocked");
    case "busy":
      return error(-1, "system error");
    case "ratelimited":
      return error(45011, "api minute-quota reach limit mustslower retry next minute");
  }
  const key = ConsumedCodes.key("wechat", c.appid, "code", jsCode);
  if (state.consumed.isUsed(key)) return error(40163, "code been used");
  state.consumed.markUsed(key);

  const body: Record<string, string> = { session_key: newSessionKey() };
  if (parsed.outcome === "ok") body.openid = openidFor("wechat", c.appid, parsed.player);
  if (parsed.outcome !== "noid") body.unionid = unionidFor("wechat", parsed.player);
  return ok(body);
}

export function token(req: SimRequest, state: SimulatorState): SimReply {
  const q = req.query;
  const c = { appid: param(q, "appid"), secret: param(q, "secret"), grantType: param(q, "grant_type") };
  const refused = missingCredentials(c) ?? refusedApp(state, c, "client_credential");
  if (refused) return refused;
  const t = state.tokens("wechat", c.appid).issueOrdinary();
  return ok({ access_token: t.accessToken, expires_in: t.expiresInSec });
}

export function stableToken(req: SimRequest, state: SimulatorState): SimReply {
  // 47001 is WeChat's general "data format error" for unparseable POST bodies (not in the spec).
  if (req.body === MALFORMED_BODY || req.body === undefined) return error(47001, "data format error");
  const b = req.body;
  const c = { appid: param(b, "appid"), secret: param(b, "secret"), grantType: param(b, "grant_type") };
  const refused = missingCredentials(c) ?? refusedApp(state, c, "client_credential");
  if (refused) return refused;
  const t = state.tokens("wechat", c.appid).stableToken(b.force_refresh === true);
  return ok({ access_token: t.accessToken, expires_in: t.expiresInSec });
}

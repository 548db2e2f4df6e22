/**
 * Douyin mini-game endpoints (spec §4, §5). jscode2session answers flat objects:
 * success `{"error":0,"session_key","openid","anonymous_openid","unionid"}` with "" for what does
 * not apply, failure `{"errcode","errmsg","error","message"}` where `error` is the coarse class
 * (1 parameters/credentials/system, 3 codes). The token APIs use the `{err_no, err_tips, data}` envelope;
 * stable_token's envelope is unconfirmed upstream and assumed to be the same.
 */
import { anonymousOpenidFor, ConsumedCodes, newSessionKey, openidFor, parseCode, unionidFor, type ParsedCode } from "./codes";
import { JSON_TYPE, MALFORMED_BODY, param, type SimReply, type SimRequest, type SimulatorState } from "./state";
import type { IssuedToken } from "./tokens";

type CodeKind = "code" | "anonymous_code";

function loginError(errcode: number, errmsg: string, error: number, message = errmsg): SimReply {
  return { contentType: JSON_TYPE, body: { errcode, errmsg, error, message } };
}

const badParams = () => loginError(40014, "bad params", 1, "bad parameters");
const systemError = () => loginError(-1, "system error", 1);
const badCode = (kind: CodeKind) =>
  kind === "code" ? loginError(40018, "bad code", 3) : loginError(40019, "bad anonymous_code", 3);

type Judged = { reply: SimReply } | { parsed: ParsedCode; key: string };

function judge(state: SimulatorState, appId: string, kind: CodeKind, code: string): Judged {
  const parsed = parseCode(code);
  if (!parsed) return { reply: badCode(kind) };
  switch (parsed.outcome) {
    case "invalid":
    case "blocked":
      return { reply: badCode(kind) };
    case "busy":
    case "ratelimited":
      return { reply: systemError() };
  }
  const key = ConsumedCodes.key("douyin", appId, kind, code);
  if (state.consumed.isUsed(key)) return { reply: badCode(kind) };
  return { parsed, key };
}

export function code2Session(req: SimRequest, state: SimulatorState): SimReply {
  const q = req.query;
  const appid = param(q, "appid");
  const secret = param(q, "secret");
  const code = param(q, "code");
  const anonymousCode = param(q, "anonymous_code");
  if (!appid || !secret || (!code && !anonymousCode)) return badParams();
  const check = state.checkCredentials("douyin", appid, secret);
  if (check === "unknown_appid") return loginError(40015, "bad appid", 1);
  if (check === "wrong_secret") return loginError(40017, "bad secret", 1);

  const named = code ? judge(state, appid, "code", code) : undefined;
  if (named && "reply" in named) return named.reply;
  const anonymous = anonymousCode ? judge(state, appid, "anonymous_code", anonymousCode) : undefined;
  if (anonymous && "reply" in anonymous) return anonymous.reply;
  // Both passed: only now is either consumed, so a rejected login leaves the other code usable.
  if (named) state.consumed.markUsed(named.key);
  if (anonymous) state.consumed.markUsed(anonymous.key);

  const player = named?.parsed;
  const device = anonymous?.parsed;
  return {
    contentType: JSON_TYPE,
    body: {
      error: 0,
      session_key: player ? newSessionKey() : "",
      openid: player?.outcome === "ok" ? openidFor("douyin", appid, player.player) : "",
      anonymous_openid: device?.outcome === "ok" ? anonymousOpenidFor(appid, device.player) : "",
      unionid: player && player.outcome !== "noid" ? unionidFor("douyin", player.player) : "",
    },
  };
}

function tokenReply(errNo: number, errTips: string, token?: IssuedToken): SimReply {
  return {
    contentType: JSON_TYPE,
    body: {
      err_no: errNo,
      err_tips: errTips,
      data: { access_token: token?.accessToken ?? "", expires_in: token?.expiresInSec ?? 0 },
    },
  };
}

/** Shared checks of v2/token and stable_token; returns the app id once the caller may have a token. */
function tokenRequest(req: SimRequest, state: SimulatorState): { refused: SimReply } | { appid: string; forceRefresh: boolean } {
  if (req.body === MALFORMED_BODY || req.body === undefined) return { refused: tokenReply(40014, "bad params") };
  const b = req.body;
  const appid = param(b, "appid");
  const secret = param(b, "secret");
  const grantType = param(b, "grant_type");
  if (!appid || !secret || !grantType) return { refused: tokenReply(40014, "bad params") };
  if (grantType !== "client_credential") return { refused: tokenReply(40020, "bad grant_type") };
  const check = state.checkCredentials("douyin", appid, secret);
  if (check === "unknown_appid") return { refused: tokenReply(40015, "bad appid") };
  if (check === "wrong_secret") return { refused: tokenReply(40017, "bad secret") };
  return { appid, forceRefresh: b.force_refresh === true };
}

export function token(req: SimRequest, state: SimulatorState): SimReply {
  const r = tokenRequest(req, state);
  if ("refused" in r) return r.refused;
  return tokenReply(0, "success", state.tokens("douyin", r.appid).issueOrdinary());
}

export function stableToken(req: SimRequest, state: SimulatorState): SimReply {
  const r = tokenRequest(req, state);
  if ("refused" in r) return r.refused;
  return tokenReply(0, "success", state.tokens("douyin", r.appid).stableToken(r.forceRefresh));
}

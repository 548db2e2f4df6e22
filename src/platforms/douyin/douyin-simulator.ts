/**
 * Douyin's part of the simulator (part 1 §4, §5). jscode2session answers flat objects:
 * success `{"error":0,"session_key","openid","anonymous_openid","unionid"}` with "" for what does
 * not apply, failure `{"errcode","errmsg","error","message"}` where `error` is the coarse class
 * (1 parameters/credentials/system, 3 codes). The token APIs use the `{err_no, err_tips, data}` envelope;
 * stable_token's envelope is unconfirmed upstream and assumed to be the same.
 *
 * Douyin has no "blocked" or quota error on login: `blocked…` codes are refused as bad codes and
 * `ratelimited…` codes get a system error. `anonymous_code` refusals are 40019 instead of 40018.
 * Ids: openid and anonymous_openid are `_000` + 32 base64url characters; unionid is UUID-shaped hex.
 * Reuse is 40018 `bad code` (40019 for anonymous_code); a login consumes both codes, and only if both pass.
 *
 * `check_session_key` (part 1 §4) answers `{err_no, err_msg, log_id}`: 28001038 bad params, 28001003
 * for any token that does not work (missing, malformed, unknown, replaced or expired: the one code
 * transcribed for mgplatform APIs; whether an expired token gets 28001008 instead is unconfirmed),
 * 28001004 an openid without a login, 28001039 a signature that is not HMAC-SHA256("") under the
 * player's current key.
 *
 * `antidirt` (part 2 §4.1, §9), served at its developer.toutiao.com path: the token only in `X-Token`;
 * a missing or non-working one gets the documented 401 body `{error_id, code: 401, message: "[app token
 * sign fail] bad token", exception}`, a body without 1–10 `tasks[].content` strings the 400 one (both
 * as HTTP 200: the real status is unconfirmed). Otherwise `data[]` in task order with `predicts[]`
 * `{hit, prob, model_name: "short_content_antidirt", target: null}`: `simulator-risky` hits; Douyin
 * has no "review", so `simulator-review` passes. No limit is simulated (Douyin documents none).
 */
import { douyinSupportRoutes } from "./douyin-support-simulator";
import crypto from "node:crypto";
import { loginStateSignature } from "../../core/open-data-crypto";
import { idDigest, judgeCode, newRid, newSessionKey, uuidShaped, type CodeKind } from "../../simulator/codes";
import { simulatedVerdict } from "../../simulator/content-security";
import { errNoReply } from "../../simulator/err-no-envelope";
import { JSON_TYPE, MALFORMED_BODY, param, type PlatformSimContext, type PlatformSimulator, type SimReply, type SimRequest } from "../../simulator/platform-simulator";
import type { IssuedToken } from "../../simulator/tokens";
import { douyinSocialRoutes } from "./douyin-social-simulator";

function loginError(errcode: number, errmsg: string, error: number, message = errmsg): SimReply {
  return { contentType: JSON_TYPE, body: { errcode, errmsg, error, message } };
}

const badParams = () => loginError(40014, "bad params", 1, "bad parameters");
const systemError = () => loginError(-1, "system error", 1);
const badCode = (kind: CodeKind) =>
  kind === "code" ? loginError(40018, "bad code", 3) : loginError(40019, "bad anonymous_code", 3);

const openidFor = (appId: string, player: string) => `_000${idDigest("openid", "douyin", appId, player).toString("base64url").slice(0, 32)}`;
const unionidFor = (player: string) => uuidShaped(idDigest("unionid", "douyin", player));
// Under its own label, so it never equals the openid of the same player name.
const anonymousOpenidFor = (appId: string, player: string) =>
  `_000${idDigest("anonymous_openid", "douyin", appId, player).toString("base64url").slice(0, 32)}`;

type Judged = { reply: SimReply } | { player: string; outcome: "ok" | "noopenid" | "noid"; consumedKey: string };

function judge(sim: PlatformSimContext, appId: string, kind: CodeKind, code: string): Judged {
  const verdict = judgeCode(sim, appId, kind, code);
  if (verdict.accepted) return verdict;
  return { reply: verdict.reason === "busy" || verdict.reason === "ratelimited" ? systemError() : badCode(kind) };
}

function code2Session(req: SimRequest, sim: PlatformSimContext): SimReply {
  const q = req.query;
  const appid = param(q, "appid");
  const secret = param(q, "secret");
  const code = param(q, "code");
  const anonymousCode = param(q, "anonymous_code");
  if (!appid || !secret || (!code && !anonymousCode)) return badParams();
  const check = sim.checkCredentials(appid, secret);
  if (check === "unknown_appid") return loginError(40015, "bad appid", 1);
  if (check === "wrong_secret") return loginError(40017, "bad secret", 1);

  const named = code ? judge(sim, appid, "code", code) : undefined;
  if (named && "reply" in named) return named.reply;
  const anonymous = anonymousCode ? judge(sim, appid, "anonymous_code", anonymousCode) : undefined;
  if (anonymous && "reply" in anonymous) return anonymous.reply;
  // Both passed: only now is either consumed, so a rejected login leaves the other code usable.
  if (named) sim.consumed.markUsed(named.consumedKey);
  if (anonymous) sim.consumed.markUsed(anonymous.consumedKey);

  const sessionKey = named ? newSessionKey() : "";
  const openid = named?.outcome === "ok" ? openidFor(appid, named.player) : "";
  if (sessionKey) sim.issueSessionKey(appid, openid, sessionKey);
  return {
    contentType: JSON_TYPE,
    body: {
      error: 0,
      session_key: sessionKey,
      openid,
      anonymous_openid: anonymous?.outcome === "ok" ? anonymousOpenidFor(appid, anonymous.player) : "",
      unionid: named && named.outcome !== "noid" ? unionidFor(named.player) : "",
    },
  };
}

const tokenReply = (errNo: number, errTips: string, token?: IssuedToken) =>
  errNoReply(errNo, errTips, { access_token: token?.accessToken ?? "", expires_in: token?.expiresInSec ?? 0 });

/** Shared checks of v2/token and stable_token; returns the app id once the caller may have a token. */
function tokenRequest(req: SimRequest, sim: PlatformSimContext): { refused: SimReply } | { appid: string; forceRefresh: boolean } {
  if (req.body === MALFORMED_BODY || req.body === undefined) return { refused: tokenReply(40014, "bad params") };
  const b = req.body;
  const appid = param(b, "appid");
  const secret = param(b, "secret");
  const grantType = param(b, "grant_type");
  if (!appid || !secret || !grantType) return { refused: tokenReply(40014, "bad params") };
  if (grantType !== "client_credential") return { refused: tokenReply(40020, "bad grant_type") };
  const check = sim.checkCredentials(appid, secret);
  if (check === "unknown_appid") return { refused: tokenReply(40015, "bad appid") };
  if (check === "wrong_secret") return { refused: tokenReply(40017, "bad secret") };
  return { appid, forceRefresh: b.force_refresh === true };
}

function token(req: SimRequest, sim: PlatformSimContext): SimReply {
  const r = tokenRequest(req, sim);
  if ("refused" in r) return r.refused;
  return tokenReply(0, "success", sim.tokens(r.appid).issueOrdinary());
}

function stableToken(req: SimRequest, sim: PlatformSimContext): SimReply {
  const r = tokenRequest(req, sim);
  if ("refused" in r) return r.refused;
  return tokenReply(0, "success", sim.tokens(r.appid).stableToken(r.forceRefresh));
}

function sessionCheckReply(errNo: number, errMsg: string): SimReply {
  const logId = `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}${newRid().replace(/-/g, "").toUpperCase()}`;
  return { contentType: JSON_TYPE, body: { err_no: errNo, err_msg: errMsg, log_id: logId } };
}

function checkSessionKey(req: SimRequest, sim: PlatformSimContext): SimReply {
  const q = req.query;
  const token = param(q, "access_token");
  const openid = param(q, "openid");
  const signature = param(q, "signature");
  if (!token || !openid || !signature || param(q, "sig_method") !== "hmac_sha256") return sessionCheckReply(28001038, "参数错误");
  const { status, appId } = sim.tokenStatus(token);
  if (status !== "valid" || !appId) return sessionCheckReply(28001003, "access_token 无效");
  const current = sim.currentSessionKey(appId, openid);
  if (!current) return sessionCheckReply(28001004, "openID 无效");
  if (loginStateSignature(current) !== signature) return sessionCheckReply(28001039, "签名不正确");
  return sessionCheckReply(0, "");
}

/** antidirt's failure body (§4.1): a top-level `code` with `error_id`, `message` and `exception`. */
function antidirtError(code: 400 | 401, message: string): SimReply {
  return { contentType: JSON_TYPE, body: { error_id: crypto.randomBytes(16).toString("hex"), code, message, exception: message } };
}

const MAX_TASKS = 10;

function antidirt(req: SimRequest, sim: PlatformSimContext): SimReply {
  const token = req.headers["x-token"] ?? "";
  if (!token || sim.tokenStatus(token).status !== "valid") return antidirtError(401, "[app token sign fail] bad token");
  const tasks = req.body === MALFORMED_BODY || req.body === undefined ? undefined : req.body.tasks;
  const contents = Array.isArray(tasks) ? tasks.map((t) => (t && typeof t === "object" ? param(t as Record<string, unknown>, "content") : "")) : [];
  if (contents.length === 0 || contents.length > MAX_TASKS || contents.some((c) => !c)) return antidirtError(400, "参数有误");
  const logId = `${new Date(sim.now()).toISOString().replace(/\D/g, "").slice(0, 14)}${newRid().replace(/-/g, "").toUpperCase()}`;
  return {
    contentType: JSON_TYPE,
    body: {
      log_id: logId,
      data: contents.map((content) => {
        const hit = simulatedVerdict(content) === "risky";
        return {
          msg: "",
          code: 0,
          task_id: crypto.randomUUID(),
          predicts: [{ prob: hit ? 1 : 0, hit, target: null, model_name: "short_content_antidirt" }],
          data_id: null,
        };
      }),
    },
  };
}

export const douyinSimulator: PlatformSimulator = {
  routes: [
    { method: "GET", path: "/mgplatform/api/apps/jscode2session", counts: "code2session", handle: code2Session },
    { method: "POST", path: "/mgplatform/api/apps/v2/token", counts: "accessToken", handle: token },
    { method: "POST", path: "/mgplatform/api/apps/stable_token", counts: "accessToken", handle: stableToken },
    { method: "GET", path: "/mgplatform/api/apps/check_session_key", counts: "business", handle: checkSessionKey },
    { method: "POST", path: "/api/v2/tags/text/antidirt", counts: "contentCheck", handle: antidirt },
    // Player storage and subscribe notifications: douyin-social-simulator.ts.
    ...douyinSocialRoutes,
    ...douyinSupportRoutes,
  ],
  answersAs: { blocked: "invalid", ratelimited: "busy" },
  // Douyin tokens are observed as hex starting with 0801121.
  tokenPolicy: { mint: () => `0801121${crypto.randomBytes(32).toString("hex")}`, shape: /^0801121[0-9a-f]{64}$/ },
};

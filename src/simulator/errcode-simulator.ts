/**
 * The simulator part of a WeChat-like platform (WeChat, QQ): `jscode2session` with query
 * credentials, token endpoints answering `{access_token, expires_in}`, and errors as
 * `{"errcode", "errmsg"}`. A platform module gives its paths, error numbers and id formats.
 */
import { loginStateSignature } from "../core/open-data-crypto";
import { judgeCode, newSessionKey, type CodeRejection } from "./codes";
import {
  JSON_TYPE,
  MALFORMED_BODY,
  param,
  type PlatformSimContext,
  type PlatformSimulator,
  type SimReply,
  type SimRequest,
  type SimulatorRoute,
} from "./platform-simulator";
import type { TokenPolicy } from "./tokens";

/** `[errcode, errmsg]` as the platform sends it (before any suffix). */
export type ErrcodeReply = readonly [errcode: number, errmsg: string];

export interface CredentialErrors {
  missingAppid: ErrcodeReply;
  missingSecret: ErrcodeReply;
  badGrantType: ErrcodeReply;
  unknownAppid: ErrcodeReply;
  wrongSecret: ErrcodeReply;
}

export interface ErrcodeSimulatorSpec {
  login: {
    path: string;
    credentialErrors: CredentialErrors;
    missingCode: ErrcodeReply;
    /** The reply for every refused code, by reason (malformed codes get `invalid`'s). */
    codeErrors: Record<Exclude<CodeRejection, "malformed">, ErrcodeReply>;
    /** Fields a successful reply carries besides the ids (QQ sends `errcode: 0`; WeChat nothing). */
    successFields?: Record<string, unknown>;
  };
  tokens: {
    credentialErrors: CredentialErrors;
    /** An unparseable POST body (only platforms with POST token routes need it). */
    malformedBody?: ErrcodeReply;
    /** Fields a successful token reply carries besides the token (QQ: `errcode: 0, errmsg: "ok"`). */
    successFields?: Record<string, unknown>;
    routes: Array<{ method: "GET" | "POST"; path: string; kind: "ordinary" | "stable" }>;
  };
  ids: { openid(appId: string, player: string): string; unionid(player: string): string };
  /**
   * How errors travel: WeChat sends them as text/plain with `, rid: …` appended; its business APIs
   * append ` rid: …` without the comma [obs, part 2 §3].
   */
  errors: { contentType: string; suffix?: () => string; businessSuffix?: () => string };
  tokenPolicy: TokenPolicy;
  /** APIs that take `access_token` in the query, and how they refuse a token (part 2 §3, §9). */
  business?: {
    tokenErrors: { missing: ErrcodeReply; malformed: ErrcodeReply; invalid: ErrcodeReply; expired: ErrcodeReply };
    /** GET session-key check (WeChat `/wxa/checksession`): HMAC-SHA256("") under the player's current key. */
    sessionCheck?: { path: string; invalidSigMethod: ErrcodeReply; invalidOpenid: ErrcodeReply; invalidSignature: ErrcodeReply };
    /** The platform's own business routes, built with the shared token check. */
    routes?(helpers: ErrcodeBusinessHelpers): SimulatorRoute[];
  };
}

/**
 * How WeChat's business APIs refuse a token (part 2 §3): missing 41001, malformed 40014, unknown or
 * replaced 40001, expired 42001. QQ's are unconfirmed (§6.4) and assumed to be the same.
 */
export const WECHAT_FAMILY_TOKEN_ERRORS: NonNullable<ErrcodeSimulatorSpec["business"]>["tokenErrors"] = {
  missing: [41001, "access_token missing"],
  malformed: [40014, "invalid access_token"],
  invalid: [40001, "invalid credential, access_token is invalid or not latest"],
  expired: [42001, "access_token expired"],
};

export interface ErrcodeBusinessHelpers {
  /** The token check of every business API: the caller's app, or the refusal to send. */
  checkToken(req: SimRequest, sim: PlatformSimContext): { refused: SimReply } | { appId: string };
  /** An error in the business APIs' wire format. */
  error(reply: ErrcodeReply): SimReply;
  ok(body: unknown): SimReply;
}

interface Credentials {
  appid: string;
  secret: string;
  grantType: string;
}

export function errcodeSimulator(spec: ErrcodeSimulatorSpec): PlatformSimulator {
  const error = ([errcode, text]: ErrcodeReply): SimReply => ({
    contentType: spec.errors.contentType,
    body: { errcode, errmsg: spec.errors.suffix ? `${text}${spec.errors.suffix()}` : text },
  });
  const ok = (body: unknown): SimReply => ({ contentType: JSON_TYPE, body });

  function refused(sim: PlatformSimContext, c: Credentials, errors: CredentialErrors, grantType: string): SimReply | undefined {
    if (!c.appid) return error(errors.missingAppid);
    if (!c.secret) return error(errors.missingSecret);
    if (c.grantType !== grantType) return error(errors.badGrantType);
    const check = sim.checkCredentials(c.appid, c.secret);
    if (check === "unknown_appid") return error(errors.unknownAppid);
    if (check === "wrong_secret") return error(errors.wrongSecret);
    return undefined;
  }

  function code2Session(req: SimRequest, sim: PlatformSimContext): SimReply {
    const q = req.query;
    const c = { appid: param(q, "appid"), secret: param(q, "secret"), grantType: param(q, "grant_type") };
    const jsCode = param(q, "js_code");
    const { credentialErrors, missingCode, codeErrors } = spec.login;
    if (!c.appid) return error(credentialErrors.missingAppid);
    if (!c.secret) return error(credentialErrors.missingSecret);
    if (!jsCode) return error(missingCode);
    const refusal = refused(sim, c, credentialErrors, "authorization_code");
    if (refusal) return refusal;

    const verdict = judgeCode(sim, c.appid, "code", jsCode);
    if (!verdict.accepted) return error(codeErrors[verdict.reason === "malformed" ? "invalid" : verdict.reason]);
    sim.consumed.markUsed(verdict.consumedKey);
    // Absent ids are omitted, as WeChat does, rather than sent empty.
    const sessionKey = newSessionKey();
    const body: Record<string, unknown> = { ...spec.login.successFields, session_key: sessionKey };
    if (verdict.outcome === "ok") body.openid = spec.ids.openid(c.appid, verdict.player);
    if (verdict.outcome !== "noid") body.unionid = spec.ids.unionid(verdict.player);
    sim.issueSessionKey(c.appid, typeof body.openid === "string" ? body.openid : "", sessionKey);
    return ok(body);
  }

  function tokenHandler(source: "query" | "body", kind: "ordinary" | "stable") {
    return (req: SimRequest, sim: PlatformSimContext): SimReply => {
      let input: URLSearchParams | Record<string, unknown>;
      if (source === "query") input = req.query;
      else if (req.body === MALFORMED_BODY || req.body === undefined) return error(spec.tokens.malformedBody ?? [-1, "bad body"]);
      else input = req.body;
      const c = { appid: param(input, "appid"), secret: param(input, "secret"), grantType: param(input, "grant_type") };
      const refusal = refused(sim, c, spec.tokens.credentialErrors, "client_credential");
      if (refusal) return refusal;
      const book = sim.tokens(c.appid);
      const forceRefresh = !(input instanceof URLSearchParams) && input.force_refresh === true;
      const t = kind === "stable" ? book.stableToken(forceRefresh) : book.issueOrdinary();
      return ok({ ...spec.tokens.successFields, access_token: t.accessToken, expires_in: t.expiresInSec });
    };
  }

  const business = spec.business;
  const businessError = ([errcode, text]: ErrcodeReply): SimReply => {
    const suffix = spec.errors.businessSuffix ?? spec.errors.suffix;
    return { contentType: spec.errors.contentType, body: { errcode, errmsg: suffix ? `${text}${suffix()}` : text } };
  };

  function checkToken(req: SimRequest, sim: PlatformSimContext): { refused: SimReply } | { appId: string } {
    const errors = business!.tokenErrors;
    const token = param(req.query, "access_token");
    if (!token) return { refused: businessError(errors.missing) };
    const { status, appId } = sim.tokenStatus(token);
    if (status === "malformed") return { refused: businessError(errors.malformed) };
    if (status === "expired") return { refused: businessError(errors.expired) };
    if (status !== "valid" || !appId) return { refused: businessError(errors.invalid) };
    return { appId };
  }

  function sessionCheck(req: SimRequest, sim: PlatformSimContext): SimReply {
    const check = business!.sessionCheck!;
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    if (param(req.query, "sig_method") !== "hmac_sha256") return businessError(check.invalidSigMethod);
    const openid = param(req.query, "openid");
    const signature = param(req.query, "signature");
    if (!openid) return businessError(check.invalidOpenid);
    const current = sim.currentSessionKey(auth.appId, openid);
    if (!current || loginStateSignature(current) !== signature) return businessError(check.invalidSignature);
    return ok({ errcode: 0, errmsg: "ok" });
  }

  const routes: SimulatorRoute[] = [
    { method: "GET", path: spec.login.path, counts: "code2session", handle: code2Session },
    ...spec.tokens.routes.map(
      (r): SimulatorRoute => ({
        method: r.method,
        path: r.path,
        counts: "accessToken",
        handle: tokenHandler(r.method === "GET" ? "query" : "body", r.kind),
      }),
    ),
  ];
  if (business?.sessionCheck) routes.push({ method: "GET", path: business.sessionCheck.path, counts: "business", handle: sessionCheck });
  if (business?.routes) routes.push(...business.routes({ checkToken, error: businessError, ok }));
  return { routes, tokenPolicy: spec.tokenPolicy };
}

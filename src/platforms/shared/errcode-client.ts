/**
 * The client of a WeChat-like platform (WeChat, QQ): `jscode2session` with query credentials, token
 * replies `{access_token, expires_in}`, and failures as `{"errcode", "errmsg"}`. A platform module
 * supplies its paths and its error table; the login `data` fields are WeChat's.
 */
import { AppError } from "../../core/errors";
import {
  PlatformTokenRejectedError,
  type FetchAccessTokenOptions,
  type LoginCodes,
  type PlatformAccessToken,
  type PlatformClient,
  type PlatformClientDeps,
  type PlatformLoginResult,
  type PlatformSettings,
  type SessionKeyCheck,
} from "../platform";
import { callPlatformApi, type PlatformCall } from "./http-json";
import { errorNumber, str } from "./login-code";
import { BUSY, classifyError, validatedToken, type ErrorTable } from "./platform-errors";

/** The login `data` fields of a WeChat-like platform, empty. */
export const ERRCODE_LOGIN_FIELDS = { openid: "", unionid: "", session_key: "", errcode: 0, errmsg: "" } as const;

export interface ErrcodeClientSpec {
  platform: string;
  errorTable: ErrorTable;
  /** GET with `appid`, `secret`, `js_code`, `grant_type=authorization_code`. */
  loginPath: string;
  /** Which token API these settings use; only a stable one can be forced. Default: ordinary. */
  tokenApi?(settings: PlatformSettings): "stable" | "ordinary";
  /** The token request for these settings. */
  tokenRequest(settings: PlatformSettings, options: FetchAccessTokenOptions): Omit<PlatformCall, "isBusy">;
  /** Business-API errcodes that mean "this access token is invalid or expired" (WeChat 40001/42001/40014). */
  badTokenCodes: readonly number[];
  /** GET session-key check with query `access_token`, `openid`, `signature`, `sig_method` (WeChat `/wxa/checksession`). */
  sessionCheck?: { path: string; invalidSignature: number };
}

export const isBusy = (reply: Record<string, unknown>) => errorNumber(reply.errcode) === BUSY;

/** A business call's failure: a rejected token heals (the caller's token helper retries), anything else is classified. */
export function errcodeBusinessFailure(
  spec: Pick<ErrcodeClientSpec, "platform" | "errorTable" | "badTokenCodes">,
  reply: Record<string, unknown>,
  accessToken: string,
): AppError {
  const errcode = errorNumber(reply.errcode);
  if (spec.badTokenCodes.includes(errcode)) return new PlatformTokenRejectedError(spec.platform, accessToken, { errcode, errmsg: str(reply.errmsg) });
  return errcodeFailure(spec, reply, "token");
}

/** A failed call keeps the platform's errcode/errmsg; a failed login also keeps the login's empty fields. */
function errcodeFailure(spec: Pick<ErrcodeClientSpec, "platform" | "errorTable">, reply: Record<string, unknown>, call: "login" | "token"): AppError {
  const errcode = errorNumber(reply.errcode);
  const errmsg = str(reply.errmsg);
  const loginFields = call === "login" ? { openid: "", unionid: "", session_key: "" } : {};
  return new AppError(classifyError(spec.errorTable, errcode), { data: { platform: spec.platform, ...loginFields, errcode, errmsg } });
}

export function createErrcodeClient(spec: ErrcodeClientSpec, deps: PlatformClientDeps): PlatformClient {
  const sessionCheck = spec.sessionCheck;
  return {
    platform: spec.platform,
    tokenApi: spec.tokenApi?.(deps.settings) ?? "ordinary",

    async exchangeCode(codes: LoginCodes): Promise<PlatformLoginResult> {
      const { appId, appSecret } = deps.settings;
      const reply = await callPlatformApi(spec.platform, deps, {
        method: "GET",
        path: spec.loginPath,
        query: { appid: appId, secret: appSecret, js_code: codes.code ?? "", grant_type: "authorization_code" },
        isBusy,
      });
      // Real WeChat successes carry no errcode at all; the documented example (and QQ) show errcode 0.
      if (errorNumber(reply.errcode) !== 0) throw errcodeFailure(spec, reply, "login");
      const identity = { openid: str(reply.openid), anonymousOpenid: "", unionid: str(reply.unionid), sessionKey: str(reply.session_key) };
      return {
        identity,
        responseFields: { ...ERRCODE_LOGIN_FIELDS, openid: identity.openid, unionid: identity.unionid, session_key: identity.sessionKey },
      };
    },

    async fetchAccessToken(options: FetchAccessTokenOptions = {}): Promise<PlatformAccessToken> {
      const reply = await callPlatformApi(spec.platform, deps, { ...spec.tokenRequest(deps.settings, options), isBusy });
      if (errorNumber(reply.errcode) !== 0) throw errcodeFailure(spec, reply, "token");
      return validatedToken(spec.platform, reply.access_token, reply.expires_in);
    },

    ...(sessionCheck && {
      /** errcode 0: valid; the invalid-signature code: a key the platform no longer accepts (part 1 §3). */
      async checkSessionKey(check: SessionKeyCheck): Promise<boolean> {
        const reply = await callPlatformApi(spec.platform, deps, {
          method: "GET",
          path: sessionCheck.path,
          query: { access_token: check.accessToken, signature: check.signature, openid: check.openid, sig_method: "hmac_sha256" },
          isBusy,
        });
        const errcode = errorNumber(reply.errcode);
        if (errcode === 0) return true;
        if (errcode === sessionCheck.invalidSignature) return false;
        throw errcodeBusinessFailure(spec, reply, check.accessToken);
      },
    }),
  };
}

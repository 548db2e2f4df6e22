/**
 * The client of a WeChat-like platform (WeChat, QQ): `jscode2session` with query credentials, token
 * replies `{access_token, expires_in}`, and failures as `{"errcode", "errmsg"}`. A platform module
 * supplies its paths and its error table; the login `data` fields are WeChat's.
 */
import { AppError } from "../../core/errors";
import type { PlatformAccessToken, PlatformClient, PlatformClientDeps, PlatformLoginResult, PlatformSettings, LoginCodes } from "../platform";
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
  /** The token request for these settings. */
  tokenRequest(settings: PlatformSettings): Omit<PlatformCall, "isBusy">;
}

const isBusy = (reply: Record<string, unknown>) => errorNumber(reply.errcode) === BUSY;

/** A failed call keeps the platform's errcode/errmsg; a failed login also keeps the login's empty fields. */
export function errcodeFailure(spec: Pick<ErrcodeClientSpec, "platform" | "errorTable">, reply: Record<string, unknown>, call: "login" | "token"): AppError {
  const errcode = errorNumber(reply.errcode);
  const errmsg = str(reply.errmsg);
  const loginFields = call === "login" ? { openid: "", unionid: "", session_key: "" } : {};
  return new AppError(classifyError(spec.errorTable, errcode), { data: { platform: spec.platform, ...loginFields, errcode, errmsg } });
}

export function createErrcodeClient(spec: ErrcodeClientSpec, deps: PlatformClientDeps): PlatformClient {
  return {
    platform: spec.platform,

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

    async fetchAccessToken(): Promise<PlatformAccessToken> {
      const reply = await callPlatformApi(spec.platform, deps, { ...spec.tokenRequest(deps.settings), isBusy });
      if (errorNumber(reply.errcode) !== 0) throw errcodeFailure(spec, reply, "token");
      return validatedToken(spec.platform, reply.access_token, reply.expires_in);
    },
  };
}

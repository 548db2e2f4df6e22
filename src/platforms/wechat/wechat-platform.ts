import { z } from "zod";
import { AppError, type ErrorCode } from "../../core/errors";
import { callPlatformApi } from "../http-json";
import { errorNumber, loginCodeParam, str } from "../login-code";
import type { PlatformAccessToken, PlatformClient, PlatformClientDeps, PlatformDefinition, PlatformLoginResult } from "../platform";

const BUSY = -1;

/** WeChat error numbers (platform-apis.md §1, §2c) and what they mean for our caller. */
const ERROR_CLASSES: Record<number, ErrorCode> = {
  40029: "platform_code_invalid",
  40163: "platform_code_invalid",
  40226: "platform_user_blocked",
  45011: "platform_rate_limited",
  45009: "platform_rate_limited",
  40013: "platform_misconfigured",
  40125: "platform_misconfigured",
  40164: "platform_misconfigured",
  40243: "platform_misconfigured",
  41002: "platform_misconfigured",
  41004: "platform_misconfigured",
  40001: "platform_misconfigured",
  40002: "platform_misconfigured",
  41008: "platform_code_invalid",
  [BUSY]: "platform_unavailable",
};

/** A failed call keeps WeChat's errcode/errmsg; a failed login also keeps the login's empty fields. */
function wechatFailure(reply: Record<string, unknown>, call: "login" | "token"): AppError {
  const errcode = errorNumber(reply.errcode);
  const errmsg = str(reply.errmsg);
  const code = ERROR_CLASSES[errcode] ?? "platform_unavailable";
  const loginFields = call === "login" ? { openid: "", unionid: "", session_key: "" } : {};
  return new AppError(code, { data: { platform: "wechat", ...loginFields, errcode, errmsg } });
}

class WechatClient implements PlatformClient {
  readonly platform = "wechat";
  constructor(private readonly deps: PlatformClientDeps) {}

  private call(method: "GET" | "POST", path: string, query?: Record<string, string>, body?: unknown) {
    return callPlatformApi("wechat", this.deps, { method, path, query, body, isBusy: (r) => errorNumber(r.errcode) === BUSY });
  }

  async exchangeCode(codes: { code?: string }): Promise<PlatformLoginResult> {
    const { appId, appSecret } = this.deps.settings;
    const reply = await this.call("GET", "/sns/jscode2session", {
      appid: appId,
      secret: appSecret,
      js_code: codes.code ?? "",
      grant_type: "authorization_code",
    });
    // Real success replies carry no errcode at all; the documented example shows errcode 0.
    if (errorNumber(reply.errcode) !== 0) throw wechatFailure(reply, "login");
    const identity = {
      openid: str(reply.openid),
      anonymousOpenid: "",
      unionid: str(reply.unionid),
      sessionKey: str(reply.session_key),
    };
    return {
      identity,
      responseFields: {
        openid: identity.openid,
        unionid: identity.unionid,
        session_key: identity.sessionKey,
        errcode: 0,
        errmsg: "",
      },
    };
  }

  async fetchAccessToken(): Promise<PlatformAccessToken> {
    const { appId, appSecret, extra } = this.deps.settings;
    // The stable-token API does not invalidate tokens other holders of the app credentials use.
    const reply =
      extra.tokenApi === "ordinary"
        ? await this.call("GET", "/cgi-bin/token", { grant_type: "client_credential", appid: appId, secret: appSecret })
        : await this.call("POST", "/cgi-bin/stable_token", undefined, {
            grant_type: "client_credential",
            appid: appId,
            secret: appSecret,
            force_refresh: false,
          });
    if (errorNumber(reply.errcode) !== 0) throw wechatFailure(reply, "token");
    const accessToken = str(reply.access_token);
    const expiresInSec = errorNumber(reply.expires_in);
    if (!accessToken || expiresInSec <= 0) {
      throw new AppError("platform_unavailable", { data: { platform: "wechat", reason: "malformed_response" } });
    }
    return { accessToken, expiresInSec };
  }
}

export const wechatPlatform: PlatformDefinition = {
  name: "wechat",
  displayName: "WeChat",
  defaultApiBaseUrl: "https://api.weixin.qq.com",
  simulatorApp: { appId: "wx_simulator_app", appSecret: "simulator-wechat-secret" },
  settingsSchema: z
    .object({ WECHAT_TOKEN_API: z.enum(["stable", "ordinary"]).default("stable") })
    .transform((s) => ({ tokenApi: s.WECHAT_TOKEN_API })),
  loginQuerySchema: z.object({ jsCode: loginCodeParam }).transform((q) => ({ code: q.jsCode })),
  userKeyOrder: ["openid", "unionid"],
  emptyResponseFields: () => ({ openid: "", unionid: "", session_key: "", errcode: 0, errmsg: "" }),
  createClient: (deps) => new WechatClient(deps),
};

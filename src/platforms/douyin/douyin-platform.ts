import { z } from "zod";
import { AppError, type ErrorCode } from "../../core/errors";
import { callPlatformApi } from "../http-json";
import { errorNumber, optionalLoginCodeParam, str } from "../login-code";
import type {
  LoginCodes,
  PlatformAccessToken,
  PlatformClient,
  PlatformClientDeps,
  PlatformDefinition,
  PlatformLoginResult,
} from "../platform";

const BUSY = -1;

/** Douyin error numbers (platform-apis.md §4, §5a) and what they mean for our caller. */
const ERROR_CLASSES: Record<number, ErrorCode> = {
  40018: "platform_code_invalid",
  40019: "platform_code_invalid",
  40014: "platform_code_invalid",
  40015: "platform_misconfigured",
  40017: "platform_misconfigured",
  40020: "platform_misconfigured",
  [BUSY]: "platform_unavailable",
};

const EMPTY_FIELDS = {
  error: 0,
  openid: "",
  anonymous_openid: "",
  unionid: "",
  session_key: "",
  errcode: 0,
  errmsg: "",
  message: "",
};

/** A failed jscode2session has `error` non-zero; `errcode` carries the detail. */
function loginErrorNumber(reply: Record<string, unknown>): number {
  const error = errorNumber(reply.error);
  const errcode = errorNumber(reply.errcode);
  return error !== 0 || errcode !== 0 ? errcode || error : 0;
}

function douyinLoginFailure(reply: Record<string, unknown>): AppError {
  const errcode = errorNumber(reply.errcode);
  const code = ERROR_CLASSES[errcode] ?? ERROR_CLASSES[errorNumber(reply.error)] ?? "platform_unavailable";
  return new AppError(code, {
    data: {
      platform: "douyin",
      ...EMPTY_FIELDS,
      error: errorNumber(reply.error),
      errcode,
      errmsg: str(reply.errmsg),
      message: str(reply.message),
    },
  });
}

class DouyinClient implements PlatformClient {
  readonly platform = "douyin";
  constructor(private readonly deps: PlatformClientDeps) {}

  async exchangeCode(codes: LoginCodes): Promise<PlatformLoginResult> {
    const { appId, appSecret } = this.deps.settings;
    const reply = await callPlatformApi("douyin", this.deps, {
      method: "GET",
      path: "/mgplatform/api/apps/jscode2session",
      query: { appid: appId, secret: appSecret, code: codes.code, anonymous_code: codes.anonymousCode },
      isBusy: (r) => loginErrorNumber(r) === BUSY,
    });
    if (loginErrorNumber(reply) !== 0) throw douyinLoginFailure(reply);
    const identity = {
      openid: str(reply.openid),
      anonymousOpenid: str(reply.anonymous_openid),
      unionid: str(reply.unionid),
      sessionKey: str(reply.session_key),
    };
    return {
      identity,
      responseFields: {
        ...EMPTY_FIELDS,
        openid: identity.openid,
        anonymous_openid: identity.anonymousOpenid,
        unionid: identity.unionid,
        session_key: identity.sessionKey,
      },
    };
  }

  async fetchAccessToken(): Promise<PlatformAccessToken> {
    const { appId, appSecret } = this.deps.settings;
    const reply = await callPlatformApi("douyin", this.deps, {
      method: "POST",
      path: "/mgplatform/api/apps/v2/token",
      body: { appid: appId, secret: appSecret, grant_type: "client_credential" },
      isBusy: (r) => errorNumber(r.err_no) === BUSY,
    });
    const errNo = errorNumber(reply.err_no);
    if (errNo !== 0) {
      throw new AppError(ERROR_CLASSES[errNo] ?? "platform_unavailable", {
        data: { platform: "douyin", err_no: errNo, err_tips: str(reply.err_tips) },
      });
    }
    const data = (reply.data ?? {}) as Record<string, unknown>;
    const accessToken = str(data.access_token);
    const expiresInSec = errorNumber(data.expires_in);
    if (!accessToken || expiresInSec <= 0) {
      throw new AppError("platform_unavailable", { data: { platform: "douyin", reason: "malformed_response" } });
    }
    return { accessToken, expiresInSec };
  }
}

export const douyinPlatform: PlatformDefinition = {
  name: "douyin",
  displayName: "Douyin",
  defaultApiBaseUrl: "https://minigame.zijieapi.com",
  simulatorApp: { appId: "tt_simulator_app", appSecret: "simulator-douyin-secret" },
  settingsSchema: z.object({}),
  loginQuerySchema: z
    .object({ code: optionalLoginCodeParam, anonymous_code: optionalLoginCodeParam })
    .refine((q) => q.code !== undefined || q.anonymous_code !== undefined, {
      message: "code or anonymous_code is required",
      path: ["code"],
    })
    .transform((q) => ({ code: q.code, anonymousCode: q.anonymous_code })),
  userKeyOrder: ["openid", "anonymousOpenid", "unionid"],
  emptyResponseFields: () => ({ ...EMPTY_FIELDS }),
  createClient: (deps) => new DouyinClient(deps),
};

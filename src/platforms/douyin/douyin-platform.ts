import { z } from "zod";
import { AppError, type ErrorCode } from "../../core/errors";
import { isErrNoBusy, errNoData } from "../shared/err-no-envelope";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, optionalLoginCodeParam, str } from "../shared/login-code";
import { BUSY, validatedToken, type ErrorTable } from "../shared/platform-errors";
import {
  PlatformTokenRejectedError,
  type FetchAccessTokenOptions,
  type LoginCodes,
  type PlatformAccessToken,
  type PlatformClient,
  type PlatformClientDeps,
  type PlatformDefinition,
  type PlatformLoginResult,
  type SessionKeyCheck,
} from "../platform";
import { douyinSimulator } from "./douyin-simulator";

/**
 * Douyin error numbers (platform-apis.md §4, §5a) and what they mean for our caller. 40014 is "a
 * required parameter is missing": we built the request, so it is our misconfiguration, not the player's code.
 */
const ERROR_TABLE: ErrorTable = {
  40018: "platform_code_invalid",
  40019: "platform_code_invalid",
  40014: "platform_misconfigured",
  40015: "platform_misconfigured",
  40017: "platform_misconfigured",
  40020: "platform_misconfigured",
};

/**
 * mgplatform business APIs' answers about the access token (part 2 §5): 28001003 invalid, 28001008
 * expired (seen on open.douyin.com; which of the two an expired mini-game token gets is unconfirmed).
 */
const BAD_TOKEN = new Set([28001003, 28001008]);
/** check_session_key: a bad signature, or an openid the platform does not know for this app. */
const SESSION_KEY_REJECTED = new Set([28001039, 28001004]);

/** jscode2session's coarse `error` class for "the code was refused" (part 1 §4: 1 parameters, 3 codes). */
const CODE_REFUSED_CLASS = 3;

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

/** The detailed errcode decides; failing that, `error: 3` still says the code was refused. */
function loginFailureCode(reply: Record<string, unknown>): ErrorCode {
  const known = ERROR_TABLE[errorNumber(reply.errcode)];
  if (known) return known;
  return errorNumber(reply.error) === CODE_REFUSED_CLASS ? "platform_code_invalid" : "platform_unavailable";
}

function douyinLoginFailure(reply: Record<string, unknown>): AppError {
  return new AppError(loginFailureCode(reply), {
    data: {
      platform: "douyin",
      ...EMPTY_FIELDS,
      error: errorNumber(reply.error),
      errcode: errorNumber(reply.errcode),
      errmsg: str(reply.errmsg),
      message: str(reply.message),
    },
  });
}

class DouyinClient implements PlatformClient {
  readonly platform = "douyin";
  readonly tokenApi: "stable" | "ordinary";
  constructor(private readonly deps: PlatformClientDeps) {
    this.tokenApi = deps.settings.extra.tokenApi === "ordinary" ? "ordinary" : "stable";
  }

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

  async fetchAccessToken(options: FetchAccessTokenOptions = {}): Promise<PlatformAccessToken> {
    const { appId, appSecret } = this.deps.settings;
    const credentials = { appid: appId, secret: appSecret, grant_type: "client_credential" };
    // stable_token leaves tokens other holders of the credentials fetched alone; v2/token cuts them to 5 minutes.
    const reply = await callPlatformApi("douyin", this.deps, {
      method: "POST",
      path: this.tokenApi === "stable" ? "/mgplatform/api/apps/stable_token" : "/mgplatform/api/apps/v2/token",
      body: this.tokenApi === "stable" ? { ...credentials, force_refresh: options.forceRefresh === true } : credentials,
      isBusy: isErrNoBusy,
    });
    const data = errNoData("douyin", ERROR_TABLE, reply);
    return validatedToken("douyin", data.access_token, data.expires_in);
  }

  /** `check_session_key` (part 1 §4): err_no 0 valid; a bad signature means the key was replaced. */
  async checkSessionKey(check: SessionKeyCheck): Promise<boolean> {
    const reply = await callPlatformApi("douyin", this.deps, {
      method: "GET",
      path: "/mgplatform/api/apps/check_session_key",
      query: { access_token: check.accessToken, openid: check.openid, sig_method: "hmac_sha256", signature: check.signature },
      isBusy: isErrNoBusy,
    });
    const errNo = errorNumber(reply.err_no);
    if (errNo === 0) return true;
    if (SESSION_KEY_REJECTED.has(errNo)) return false;
    const detail = { err_no: errNo, err_tips: str(reply.err_msg) || str(reply.err_tips) };
    if (BAD_TOKEN.has(errNo)) throw new PlatformTokenRejectedError("douyin", check.accessToken, detail);
    throw new AppError("platform_unavailable", { data: { platform: "douyin", ...detail } });
  }
}

export const douyinPlatform: PlatformDefinition = {
  name: "douyin",
  displayName: "Douyin",
  defaultApiBaseUrl: "https://minigame.zijieapi.com",
  simulatorApp: { appId: "tt_simulator_app", appSecret: "simulator-douyin-secret" },
  extraSettings: {
    // stable (mgplatform/api/apps/stable_token) or ordinary (v2/token).
    shape: { DOUYIN_TOKEN_API: z.enum(["stable", "ordinary"]).default("stable") },
    read: (s) => ({ tokenApi: s.DOUYIN_TOKEN_API }),
  },
  loginQuerySchema: z
    .object({ code: optionalLoginCodeParam, anonymous_code: optionalLoginCodeParam })
    .refine((q) => q.code !== undefined || q.anonymous_code !== undefined, {
      message: "code or anonymous_code is required",
      path: ["code"],
    })
    .transform((q) => ({ code: q.code, anonymousCode: q.anonymous_code })),
  codeParams: ["code", "anonymous_code"],
  userKeyOrder: ["openid", "anonymousOpenid", "unionid"],
  emptyResponseFields: () => ({ ...EMPTY_FIELDS }),
  // Douyin documents no phone-number server API for mini-games (part 2 §4.6).
  playerData: { openData: true, sessionCheck: true, phoneNumber: false },
  createClient: (deps) => new DouyinClient(deps),
  simulator: douyinSimulator,
};

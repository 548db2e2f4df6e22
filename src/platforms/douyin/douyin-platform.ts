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
  type TextCheck,
  type TextVerdict,
} from "../platform";
import { createDouyinSocialClient } from "./douyin-social";
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

const DEFAULT_API_BASE_URL = "https://minigame.zijieapi.com";
/**
 * antidirt lives only on the old host (part 2 §4.1; a minigame.zijieapi.com alias is unconfirmed).
 * With DOUYIN_API_BASE_URL pointed elsewhere (the simulator, a proxy) the check goes there too,
 * unless DOUYIN_CONTENT_API_BASE_URL says otherwise.
 */
const ANTIDIRT_BASE_URL = "https://developer.toutiao.com";

function contentApiBaseUrl(deps: PlatformClientDeps): string {
  const configured = deps.settings.extra.contentApiBaseUrl;
  if (typeof configured === "string" && configured) return configured.replace(/\/+$/, "");
  return deps.settings.apiBaseUrl === DEFAULT_API_BASE_URL ? ANTIDIRT_BASE_URL : deps.settings.apiBaseUrl;
}

/** antidirt's `hit` decides; a reply without it (the mini-game page's example) counts prob ≥ 0.5 as a hit (a guess, §4.1). */
function isHit(predict: unknown): boolean {
  if (!predict || typeof predict !== "object") return false;
  const p = predict as Record<string, unknown>;
  return typeof p.hit === "boolean" ? p.hit : Number(p.prob) >= 0.5;
}

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
  private readonly contentApiBaseUrl: string;
  constructor(private readonly deps: PlatformClientDeps) {
    this.tokenApi = deps.settings.extra.tokenApi === "ordinary" ? "ordinary" : "stable";
    this.contentApiBaseUrl = contentApiBaseUrl(deps);
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

  /**
   * `antidirt` (part 2 §4.1): the token in the `X-Token` header, one task per call; no "review" verdict.
   * Whether antidirt accepts a stable token (the default DOUYIN_TOKEN_API) is unconfirmed: the doc names
   * `apps/v2/token`. We send whichever token the token service holds; if the platform refuses a stable
   * one, each call heals once, fails again and falls back to the word list (see the fallback metrics),
   * and DOUYIN_TOKEN_API=ordinary is the way out.
   */
  async checkText(check: TextCheck): Promise<TextVerdict> {
    const reply = await callPlatformApi("douyin", this.deps, {
      method: "POST",
      baseUrl: this.contentApiBaseUrl,
      path: "/api/v2/tags/text/antidirt",
      headers: { "X-Token": check.accessToken },
      body: { tasks: [{ content: check.text }] },
      // Whether the 400/401 bodies come with HTTP 200 or their own status is unconfirmed: read both.
      answerStatuses: [400, 401],
      isBusy: () => false,
    });
    const code = errorNumber(reply.code);
    const detail = { code, message: str(reply.message), error_id: str(reply.error_id) };
    if (code === 401) throw new PlatformTokenRejectedError("douyin", check.accessToken, detail);
    if (code !== 0 || detail.error_id) throw new AppError("platform_unavailable", { data: { platform: "douyin", ...detail } });
    const task = (Array.isArray(reply.data) ? reply.data[0] : undefined) as Record<string, unknown> | undefined;
    if (!task || errorNumber(task.code) !== 0 || !Array.isArray(task.predicts)) {
      throw new AppError("platform_unavailable", { data: { platform: "douyin", reason: "malformed_response" } });
    }
    return task.predicts.some(isHit) ? "risky" : "pass";
  }
}

export const douyinPlatform: PlatformDefinition = {
  name: "douyin",
  displayName: "Douyin",
  defaultApiBaseUrl: DEFAULT_API_BASE_URL,
  simulatorApp: { appId: "tt_simulator_app", appSecret: "simulator-douyin-secret" },
  extraSettings: {
    // stable (mgplatform/api/apps/stable_token) or ordinary (v2/token).
    // DOUYIN_CONTENT_API_BASE_URL: antidirt's host (default: see ANTIDIRT_BASE_URL).
    shape: {
      DOUYIN_TOKEN_API: z.enum(["stable", "ordinary"]).default("stable"),
      DOUYIN_CONTENT_API_BASE_URL: z.string().regex(/^https?:\/\//, "must be an http(s) URL").optional(),
    },
    read: (s) => ({ tokenApi: s.DOUYIN_TOKEN_API, contentApiBaseUrl: s.DOUYIN_CONTENT_API_BASE_URL }),
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
  // The game wallet has no cancel (douyin-coins.ts): a refund is the operator's, outside this server.
  coins: { refunds: false },
  social: { subscribeMessages: true, createClient: createDouyinSocialClient },
  createClient: (deps) => new DouyinClient(deps),
  simulator: douyinSimulator,
};

import { z } from "zod";
import { AppError } from "../../core/errors";
import { createErrcodeClient, ERRCODE_LOGIN_FIELDS, errcodeBusinessFailure, isBusy, type ErrcodeClientSpec } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, loginCodeParam, str } from "../shared/login-code";
import type { ErrorTable } from "../shared/platform-errors";
import { isTextVerdict, type PhoneNumber, type PlatformClient, type PlatformClientDeps, type PlatformDefinition, type TextCheck, type TextScene, type TextVerdict } from "../platform";
import { bool } from "../../core/setting-values";
import { checkGameChatText } from "./wechat-game-content";
import { createWechatSocialClient } from "./wechat-social";
import { wechatSimulator } from "./wechat-simulator";

/** WeChat error numbers (platform-apis.md §1, §2c) and what they mean for our caller. */
const ERROR_TABLE: ErrorTable = {
  40029: "platform_code_invalid",
  40163: "platform_code_invalid",
  41008: "platform_code_invalid",
  40226: "platform_user_blocked",
  45011: "platform_rate_limited",
  45009: "platform_rate_limited",
  // msgSecCheck's per-minute limit (new doc only; staff say 45009 covers it too).
  44991: "platform_rate_limited",
  40013: "platform_misconfigured",
  40125: "platform_misconfigured",
  40164: "platform_misconfigured",
  40243: "platform_misconfigured",
  41002: "platform_misconfigured",
  41004: "platform_misconfigured",
  40001: "platform_misconfigured",
  40002: "platform_misconfigured",
};

const CLIENT_SPEC: ErrcodeClientSpec = {
  platform: "wechat",
  errorTable: ERROR_TABLE,
  loginPath: "/sns/jscode2session",
  tokenApi: ({ extra }) => (extra.tokenApi === "ordinary" ? "ordinary" : "stable"),
  tokenRequest: ({ appId, appSecret, extra }, { forceRefresh }) =>
    // The stable-token API does not invalidate tokens other holders of the app credentials use.
    extra.tokenApi === "ordinary"
      ? { method: "GET", path: "/cgi-bin/token", query: { grant_type: "client_credential", appid: appId, secret: appSecret } }
      : {
          method: "POST",
          path: "/cgi-bin/stable_token",
          body: { grant_type: "client_credential", appid: appId, secret: appSecret, force_refresh: forceRefresh === true },
        },
  // Business-API answers about the token we sent (part 2 §3); 41001 (missing) would be our bug, not these.
  badTokenCodes: [40001, 42001, 40014],
  sessionCheck: { path: "/wxa/checksession", invalidSignature: 87009 },
};

/** `getuserphonenumber` (part 2 §2.1). The code is single-use, so not even "busy" is retried. */
async function getPhoneNumber(deps: PlatformClientDeps, call: { accessToken: string; code: string }): Promise<PhoneNumber> {
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: "/wxa/business/getuserphonenumber",
    query: { access_token: call.accessToken },
    body: { code: call.code },
    isBusy: () => false,
  });
  const errcode = errorNumber(reply.errcode);
  if (errcode === 40029) {
    throw new AppError("platform_code_invalid", {
      message: "The platform rejected the phone-number code; ask the player to tap the button again",
      data: { platform: "wechat", errcode, errmsg: str(reply.errmsg) },
    });
  }
  if (errcode !== 0) throw errcodeBusinessFailure(CLIENT_SPEC, reply, call.accessToken);
  const info = (reply.phone_info ?? {}) as Record<string, unknown>;
  const purePhoneNumber = str(info.purePhoneNumber);
  if (!purePhoneNumber) throw new AppError("platform_unavailable", { data: { platform: "wechat", reason: "malformed_response" } });
  // countryCode is a string on the wire; a number (as in the documented example) is accepted too.
  const countryCode = typeof info.countryCode === "number" ? String(info.countryCode) : str(info.countryCode);
  return { phoneNumber: str(info.phoneNumber) || purePhoneNumber, purePhoneNumber, countryCode };
}

/** msgSecCheck v2 scenes (part 2 §1.1): 1 资料 (profile), 2 评论 (comment, our chat). */
const SCENES: Record<TextScene, number> = { profile: 1, chat: 2 };
/**
 * Conditions of this player, not of the platform (part 2 §1.1): no visit in the last 30–120 min
 * (61010), an openid WeChat does not know (40003) or of another app (43104). Retrying cannot help.
 */
const PLAYER_CONDITIONS = new Set([61010, 40003, 43104]);

/** `msgSecCheck` v2: risky text is not an error; the verdict is `result.suggest`, errcode stays 0. */
async function checkText(deps: PlatformClientDeps, check: TextCheck): Promise<TextVerdict> {
  const unavailable = (reason: string, detail: Record<string, unknown> = {}) =>
    new AppError("platform_unavailable", { data: { platform: "wechat", reason, ...detail } });
  if (!check.openid) throw unavailable("openid_missing");
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: "/wxa/msg_sec_check",
    // The token must be in the query: in the body WeChat answers 47001 (a doc-bug report, §1.1).
    query: { access_token: check.accessToken },
    body: { content: check.text, version: 2, scene: SCENES[check.scene], openid: check.openid },
    isBusy,
  });
  const errcode = errorNumber(reply.errcode);
  if (PLAYER_CONDITIONS.has(errcode)) throw unavailable("player_not_checkable", { errcode, errmsg: str(reply.errmsg) });
  if (errcode !== 0) throw errcodeBusinessFailure(CLIENT_SPEC, reply, check.accessToken);
  const result = (reply.result ?? {}) as Record<string, unknown>;
  if (!isTextVerdict(result.suggest)) throw unavailable("malformed_response");
  return result.suggest;
}

function createWechatClient(deps: PlatformClientDeps): PlatformClient {
  return {
    ...createErrcodeClient(CLIENT_SPEC, deps),
    getPhoneNumber: (call) => getPhoneNumber(deps, call),
    // Chat goes to the mini-game check with its chat scene unless WECHAT_GAME_CHAT_CHECK=false; nicknames stay on msgSecCheck's profile scene.
    checkText: (check) => (check.scene === "chat" && deps.settings.extra.gameChatCheck !== false ? checkGameChatText(deps, check) : checkText(deps, check)),
  };
}

export const wechatPlatform: PlatformDefinition = {
  name: "wechat",
  displayName: "WeChat",
  defaultApiBaseUrl: "https://api.weixin.qq.com",
  simulatorApp: { appId: "wx_simulator_app", appSecret: "simulator-wechat-secret" },
  extraSettings: {
    shape: { WECHAT_TOKEN_API: z.enum(["stable", "ordinary"]).default("stable"), WECHAT_GAME_CHAT_CHECK: bool.default(true) },
    read: (s) => ({ tokenApi: s.WECHAT_TOKEN_API, gameChatCheck: s.WECHAT_GAME_CHAT_CHECK }),
  },
  loginQuerySchema: z.object({ jsCode: loginCodeParam }).transform((q) => ({ code: q.jsCode })),
  codeParams: ["jsCode"],
  userKeyOrder: ["openid", "unionid"],
  emptyResponseFields: () => ({ ...ERRCODE_LOGIN_FIELDS }),
  playerData: { openData: true, sessionCheck: true, phoneNumber: true },
  coins: { refunds: true }, // cancelpay
  social: { subscribeMessages: true, createClient: createWechatSocialClient },
  createClient: createWechatClient,
  simulator: wechatSimulator,
};

/** QQ mini-games (platform-apis-2.md §6): a WeChat-like API on api.q.qq.com. */
import { z } from "zod";
import { createErrcodeClient, ERRCODE_LOGIN_FIELDS, errcodeBusinessFailure, type ErrcodeClientSpec } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, loginCodeParam, str } from "../shared/login-code";
import { BUSY, type ErrorTable } from "../shared/platform-errors";
import type { PlatformClientDeps, PlatformDefinition, TextCheck, TextVerdict } from "../platform";
import { qqSimulator } from "./qq-simulator";

/** QQ error numbers (§6.1 code2Session, §6.2 getToken) and what they mean for our caller. */
const ERROR_TABLE: ErrorTable = {
  40029: "platform_code_invalid",
  // Unconfirmed: QQ documents no "user blocked" number; WeChat's 40226 is the best guess for a WeChat clone.
  40226: "platform_user_blocked",
  45011: "platform_rate_limited",
  // Unconfirmed: MsgSecCheck's 4000/min limit has no documented number; WeChat's quota code is the guess.
  45009: "platform_rate_limited",
  // "参数错误，请检查appid和appsecret" per SDKs quoting the wiki; -2100 in one SDK, -1009 in a third-party article.
  [-101222100]: "platform_misconfigured",
  [-2100]: "platform_misconfigured",
  [-1009]: "platform_misconfigured",
  40001: "platform_misconfigured",
  40002: "platform_misconfigured",
  40013: "platform_misconfigured",
};

const CLIENT_SPEC: ErrcodeClientSpec = {
  platform: "qq",
  errorTable: ERROR_TABLE,
  loginPath: "/sns/jscode2session",
  tokenRequest: ({ appId, appSecret }) => ({
    method: "GET",
    path: "/api/getToken",
    query: { grant_type: "client_credential", appid: appId, secret: appSecret },
  }),
  // Unconfirmed (part 2 §6.4): how QQ business APIs report a bad token; WeChat's codes are the best guess.
  badTokenCodes: [40001, 42001, 40014],
};

/** QQ's answer code: the doc writes camelCase `errCode`, some clients read `errcode`; both are read (§6.3). */
const qqErrCode = (reply: Record<string, unknown>) => errorNumber(reply.errCode ?? reply.errcode);
const RISKY_CONTENT = 87014;

/** `MsgSecCheck` (part 2 §6.3): `appid` is required in the body; 0 passes, 87014 is risky; no "review". */
async function checkText(deps: PlatformClientDeps, check: TextCheck): Promise<TextVerdict> {
  const reply = await callPlatformApi("qq", deps, {
    method: "POST",
    path: "/api/json/security/MsgSecCheck",
    query: { access_token: check.accessToken },
    body: { appid: deps.settings.appId, content: check.text },
    isBusy: (r) => qqErrCode(r) === BUSY,
  });
  const errcode = qqErrCode(reply);
  if (errcode === 0) return "pass";
  if (errcode === RISKY_CONTENT) return "risky";
  throw errcodeBusinessFailure(CLIENT_SPEC, { errcode, errmsg: str(reply.errMsg ?? reply.errmsg) }, check.accessToken);
}

export const qqPlatform: PlatformDefinition = {
  name: "qq",
  displayName: "QQ",
  defaultApiBaseUrl: "https://api.q.qq.com",
  simulatorApp: { appId: "qq_simulator_app", appSecret: "simulator-qq-secret" },
  loginQuerySchema: z.object({ code: loginCodeParam }).transform((q) => ({ code: q.code })),
  codeParams: ["code"],
  userKeyOrder: ["openid", "unionid"],
  emptyResponseFields: () => ({ ...ERRCODE_LOGIN_FIELDS }),
  // QQ decrypts with WeChat's AES scheme (part 2 §6.4); no session-key check or phone API is documented.
  playerData: { openData: true, sessionCheck: false, phoneNumber: false },
  createClient: (deps) => ({ ...createErrcodeClient(CLIENT_SPEC, deps), checkText: (check) => checkText(deps, check) }),
  simulator: qqSimulator,
};

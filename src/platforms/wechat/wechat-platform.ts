import { z } from "zod";
import { createErrcodeClient, ERRCODE_LOGIN_FIELDS } from "../shared/errcode-client";
import { loginCodeParam } from "../shared/login-code";
import type { ErrorTable } from "../shared/platform-errors";
import type { PlatformDefinition } from "../platform";
import { wechatSimulator } from "./wechat-simulator";

/** WeChat error numbers (platform-apis.md §1, §2c) and what they mean for our caller. */
const ERROR_TABLE: ErrorTable = {
  40029: "platform_code_invalid",
  40163: "platform_code_invalid",
  41008: "platform_code_invalid",
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
};

export const wechatPlatform: PlatformDefinition = {
  name: "wechat",
  displayName: "WeChat",
  defaultApiBaseUrl: "https://api.weixin.qq.com",
  simulatorApp: { appId: "wx_simulator_app", appSecret: "simulator-wechat-secret" },
  extraSettings: {
    shape: { WECHAT_TOKEN_API: z.enum(["stable", "ordinary"]).default("stable") },
    read: (s) => ({ tokenApi: s.WECHAT_TOKEN_API }),
  },
  loginQuerySchema: z.object({ jsCode: loginCodeParam }).transform((q) => ({ code: q.jsCode })),
  codeParams: ["jsCode"],
  userKeyOrder: ["openid", "unionid"],
  emptyResponseFields: () => ({ ...ERRCODE_LOGIN_FIELDS }),
  createClient: (deps) =>
    createErrcodeClient(
      {
        platform: "wechat",
        errorTable: ERROR_TABLE,
        loginPath: "/sns/jscode2session",
        tokenRequest: ({ appId, appSecret, extra }) =>
          // The stable-token API does not invalidate tokens other holders of the app credentials use.
          extra.tokenApi === "ordinary"
            ? { method: "GET", path: "/cgi-bin/token", query: { grant_type: "client_credential", appid: appId, secret: appSecret } }
            : {
                method: "POST",
                path: "/cgi-bin/stable_token",
                body: { grant_type: "client_credential", appid: appId, secret: appSecret, force_refresh: false },
              },
      },
      deps,
    ),
  simulator: wechatSimulator,
};

/**
 * Kuaishou mini-games (platform-apis-2.md §7.1, token per §7.2): replies say `result: 1` on success
 * and another number with `error_msg` on failure; ids are `open_id` / `union_id`.
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, loginCodeParam, str } from "../shared/login-code";
import { classifyError, validatedToken, type ErrorTable } from "../shared/platform-errors";
import type { LoginCodes, PlatformAccessToken, PlatformClient, PlatformClientDeps, PlatformDefinition, PlatformLoginResult } from "../platform";
import { KUAISHOU_RESULTS } from "./kuaishou-results";
import { kuaishouSimulator } from "./kuaishou-simulator";

const { ok: SUCCESS, busy: BUSY } = KUAISHOU_RESULTS;

/** Kuaishou `result` numbers and what they mean for our caller (see KUAISHOU_RESULTS for their sources). */
const ERROR_TABLE: ErrorTable = {
  [KUAISHOU_RESULTS.badParams]: "platform_misconfigured",
  [KUAISHOU_RESULTS.badApp]: "platform_misconfigured",
  [KUAISHOU_RESULTS.badSecret]: "platform_misconfigured",
  [KUAISHOU_RESULTS.invalidCode]: "platform_code_invalid",
  [KUAISHOU_RESULTS.blocked]: "platform_user_blocked",
  [KUAISHOU_RESULTS.rateLimited]: "platform_rate_limited",
};

const EMPTY_FIELDS = { result: SUCCESS, error_msg: "", open_id: "", union_id: "", session_key: "" };

const isBusy = (reply: Record<string, unknown>) => errorNumber(reply.result) === BUSY;

/** A failed call keeps Kuaishou's `result` and `error_msg` (one client reads `message` instead). */
function kuaishouFailure(reply: Record<string, unknown>, call: "login" | "token"): AppError {
  const result = errorNumber(reply.result);
  const errorMsg = str(reply.error_msg) || str(reply.message);
  const loginFields = call === "login" ? EMPTY_FIELDS : {};
  return new AppError(classifyError(ERROR_TABLE, result), { data: { platform: "kuaishou", ...loginFields, result, error_msg: errorMsg } });
}

class KuaishouClient implements PlatformClient {
  readonly platform = "kuaishou";
  // One token API only, and a refetch leaves earlier tokens valid (§7.2): nothing to force.
  readonly tokenApi = "ordinary";
  constructor(private readonly deps: PlatformClientDeps) {}

  async exchangeCode(codes: LoginCodes): Promise<PlatformLoginResult> {
    const { appId, appSecret } = this.deps.settings;
    const reply = await callPlatformApi("kuaishou", this.deps, {
      method: "GET",
      path: "/game/minigame/jscode2session",
      query: { app_id: appId, app_secret: appSecret, js_code: codes.code ?? "", grant_type: "authorization_code" },
      isBusy,
    });
    if (errorNumber(reply.result) !== SUCCESS) throw kuaishouFailure(reply, "login");
    const identity = { openid: str(reply.open_id), anonymousOpenid: "", unionid: str(reply.union_id), sessionKey: str(reply.session_key) };
    return {
      identity,
      responseFields: { ...EMPTY_FIELDS, open_id: identity.openid, union_id: identity.unionid, session_key: identity.sessionKey },
    };
  }

  async fetchAccessToken(): Promise<PlatformAccessToken> {
    const { appId, appSecret } = this.deps.settings;
    // The doc's own curl sends a GET with query parameters (the page lists POST and GET); note the
    // plural client_credentials. Unconfirmed for mini-games: §7.2 is the mini-program line's token API.
    const reply = await callPlatformApi("kuaishou", this.deps, {
      method: "GET",
      path: "/oauth2/access_token",
      query: { app_id: appId, app_secret: appSecret, grant_type: "client_credentials" },
      isBusy,
    });
    if (errorNumber(reply.result) !== SUCCESS) throw kuaishouFailure(reply, "token");
    return validatedToken("kuaishou", reply.access_token, reply.expires_in);
  }
}

export const kuaishouPlatform: PlatformDefinition = {
  name: "kuaishou",
  displayName: "Kuaishou",
  defaultApiBaseUrl: "https://open.kuaishou.com",
  simulatorApp: { appId: "ks_simulator_app", appSecret: "simulator-kuaishou-secret" },
  loginQuerySchema: z.object({ code: loginCodeParam }).transform((q) => ({ code: q.code })),
  codeParams: ["code"],
  userKeyOrder: ["openid", "unionid"],
  emptyResponseFields: () => ({ ...EMPTY_FIELDS }),
  createClient: (deps) => new KuaishouClient(deps),
  simulator: kuaishouSimulator,
};

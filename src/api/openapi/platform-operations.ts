/** The API description's operations of one platform: its login, access token and player-data routes. */
import { appVersionParam } from "../analytics-schemas";
import { z } from "zod";
import { NO_PLAYER_DATA, type PlatformDefinition } from "../../platforms/platform";
import * as s from "../schemas";
import { CODE_EXAMPLES, SESSION_NOTE } from "./descriptions";
import { AUTH_ERRORS, componentName, type Json, type OperationSpec } from "./operation-spec";

export function platformOperations(platform: PlatformDefinition): OperationSpec[] {
  const name = componentName(platform);
  const query = z.toJSONSchema(platform.loginQuerySchema, { io: "input" }) as Json;
  const params = Object.keys((query.properties as Json) ?? {});
  const required = (query.required as string[] | undefined) ?? [];
  const oneOf = required.length === 0 && params.length > 1 ? ` At least one of ${params.map((p) => `\`${p}\``).join(", ")} is required.` : "";
  const examples = Object.fromEntries(params.map((p) => [p, CODE_EXAMPLES[p] ?? `${platform.name}player.1`]));
  const emptyFields = platform.emptyResponseFields();
  return [
    {
      method: "get",
      path: `/api/minigame/${platform.name}/login`,
      operationId: `${platform.name}Login`,
      tag: "Mini-game login",
      summary: `${platform.displayName} login`,
      description:
        `Exchanges the player's ${platform.displayName} login code, finds or creates the local user ` +
        `(key: the first non-empty of ${platform.userKeyOrder.map((k) => `\`${k}\``).join(", ")}) and starts a session.${oneOf}\n\n` +
        `${SESSION_NOTE}\n\nOn failure \`data\` keeps the platform's fields (as the platform answered, or empty) with ` +
        "`token: \"\"` and `user: null`, so a client can read both shapes the same way.",
      query: { schema: platform.loginQuerySchema, also: s.appIdQuery.extend({ appVersion: appVersionParam.optional() }), examples },
      success: { status: 200, component: `${name}LoginResponse`, description: "Logged in: the platform's fields, a session and the user" },
      errors: [
        "invalid_request",
        "unknown_app",
        "platform_code_invalid",
        "platform_user_blocked",
        "platform_rate_limited",
        "rate_limited",
        "platform_misconfigured",
        "platform_unavailable",
        "platform_identity_missing",
        "user_disabled",
      ],
      errorFields: s.platformLoginErrorFields(platform.name, emptyFields),
    },
    {
      method: "get",
      path: `/api/minigame/${platform.name}/access_token`,
      operationId: `${platform.name}AccessToken`,
      tag: "Platform access tokens",
      summary: `${platform.displayName} server access token`,
      description:
        "The app-level credential for the platform's server APIs. Cached and shared: concurrent callers share " +
        "one upstream fetch, and it is refreshed a safety margin before it expires. Each server process answers from its " +
        "own copy for at most a second; a token replaced by any process is dropped from every copy at once (should that " +
        "message be lost, within the second). A token the platform rejects is reported with POST …/access_token/invalidate, " +
        "which answers the current one. Requires `X-Internal-Key` when the " +
        "server sets ACCESS_TOKEN_ROUTE_KEY (always, in production, unless made public deliberately). Each app has its own " +
        "token: `appId` names it (default: the default app).",
      security: "internalKey",
      query: { also: s.appIdQuery, examples: {} },
      success: { status: 200, component: "PlatformAccessTokenResponse", description: "The cached token" },
      errors: ["invalid_request", "unknown_app", "internal_key_invalid", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
      errorFields: s.platformTokenErrorFields(platform.name),
    },
    {
      method: "post",
      path: `/api/minigame/${platform.name}/access_token/invalidate`,
      operationId: `${platform.name}InvalidateAccessToken`,
      tag: "Platform access tokens",
      summary: `Report a ${platform.displayName} access token the platform rejected`,
      description:
        "Send the token a platform call just rejected (e.g. WeChat 40001/42001/40014). If it is still the cached one it " +
        "is dropped and a new one fetched under the cluster lock, once for all processes; with a stable-token API, normal " +
        "mode first, and a forced refresh only if normal mode answers the very token that failed (at most 20 a day, 30 s " +
        "apart; when the limit blocks, the answer is the current token). A token that is no longer the cached one just " +
        "gets the current token. Guarded like the GET route. `appId` names the app whose token failed; another app's " +
        "token is not touched.",
      security: "internalKey",
      query: { also: s.appIdQuery, examples: {} },
      body: { schema: s.invalidateTokenBody, examples: { report: { access_token: "<the token that failed>" } } },
      success: { status: 200, component: "PlatformAccessTokenResponse", description: "The current token, by the rule above" },
      errors: ["invalid_request", "unknown_app", "internal_key_invalid", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
      errorFields: s.platformTokenErrorFields(platform.name),
    },
    ...playerDataOperations(platform),
  ];
}

const KEY_NOTE =
  "Uses the player's platform `session_key`, which the server keeps from their latest login to the token's app (whether " +
  "or not the login response shows it) and drops at logout; the app and its credentials are the session's (`app` claim).";

function playerDataOperations(platform: PlatformDefinition): OperationSpec[] {
  const { name, displayName } = platform;
  const playerData = platform.playerData ?? NO_PLAYER_DATA;
  const ops: OperationSpec[] = [];
  if (playerData.openData) {
    ops.push(
      {
        method: "post",
        path: `/api/minigame/${name}/decrypt`,
        operationId: `${name}Decrypt`,
        tag: "Player data",
        summary: `Decrypt ${displayName} encryptedData`,
        description:
          `${KEY_NOTE} AES-128-CBC with PKCS#7, key = the kept session key. Checked in this order: \`encryptedData\` not ` +
          "base64 of whole AES blocks or `iv` not 16 bytes → 400 `invalid_request`; no kept key → 409 `session_key_missing`; " +
          "the key does not fit (the player called login again after the data was made) → 409 `session_key_stale`: get the " +
          "data again; `watermark.appid` not the app id of the session's app → 422 `watermark_mismatch`.",
        security: "bearer",
        body: { schema: s.decryptBody, examples: { sealed: { encryptedData: "<from the client API>", iv: "<from the client API>" } } },
        success: { status: 200, component: "DecryptedDataResponse", description: "The decrypted JSON object" },
        errors: [...AUTH_ERRORS, "session_key_missing", "session_key_stale", "watermark_mismatch"],
      },
      {
        method: "post",
        path: `/api/minigame/${name}/signature/verify`,
        operationId: `${name}VerifySignature`,
        tag: "Player data",
        summary: `Verify a ${displayName} rawData signature`,
        description: `${KEY_NOTE} Compares \`signature\` in constant time with hex \`sha1(rawData + session_key)\`. A mismatch is \`valid: false\`, not an error.`,
        security: "bearer",
        body: { schema: s.signatureVerifyBody, examples: { signed: { rawData: '{"nickName":"Band"}', signature: "75e81ceda165f4ffa64f4068af58c64b8f54b88c" } } },
        success: { status: 200, component: "ValidityResponse", description: "Whether the signature matches" },
        errors: [...AUTH_ERRORS, "session_key_missing"],
      },
    );
  }
  if (playerData.sessionCheck) {
    ops.push({
      method: "get",
      path: `/api/minigame/${name}/session_key/check`,
      operationId: `${name}CheckSessionKey`,
      tag: "Player data",
      summary: `Ask ${displayName} whether the kept session key is still valid`,
      description:
        `${KEY_NOTE} Signs the empty string with HMAC-SHA256 under the key and asks the platform. \`valid: false\` means ` +
        "the player logged in again elsewhere: log in again before decrypting. Limited per user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      success: { status: 200, component: "ValidityResponse", description: "The platform's answer" },
      errors: [...AUTH_ERRORS, "session_key_missing", "rate_limited", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
      errorFields: s.platformTokenErrorFields(name),
    });
  }
  if (playerData.phoneNumber) {
    ops.push({
      method: "post",
      path: `/api/minigame/${name}/phone_number`,
      operationId: `${name}PhoneNumber`,
      tag: "Player data",
      summary: `Exchange a ${displayName} phone-number code`,
      description:
        "Exchanges the code of the phone-number button (not a login code; single-use, 5 minutes) for the player's number. " +
        "Returned to the player, not stored. Limited per user (RATE_LIMIT_USER_MAX). With the simulator a code is the number " +
        "itself, `13800138000.1` (bump the suffix) or `1-5551234567.1` with a country code.",
      security: "bearer",
      body: { schema: s.phoneNumberBody, examples: { simulator: { code: "13800138000.1" } } },
      success: { status: 200, component: "PhoneNumberResponse", description: "The number" },
      errors: [...AUTH_ERRORS, "platform_code_invalid", "rate_limited", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
      errorFields: s.platformTokenErrorFields(name),
    });
  }
  return ops;
}


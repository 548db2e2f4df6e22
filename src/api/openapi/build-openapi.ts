/**
 * The OpenAPI 3.1 description, generated from the same zod schemas that validate requests and
 * from the platform registry, so a new platform or a changed constraint shows up without edits.
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../../core/errors";
import { NO_PLAYER_DATA, type PlatformDefinition } from "../../platforms/platform";
import { packageVersion } from "../../package-version";
import * as s from "../schemas";
import { API_DESCRIPTION, CODE_EXAMPLES, errorCodeTable, PASSWORD_BUDGET_NOTE, SESSION_NOTE } from "./descriptions";

export interface OpenApiOptions {
  platforms: readonly PlatformDefinition[];
  /** Registration refuses this email domain, so the register schema depends on it. */
  placeholderEmailDomain: string;
}

type Json = Record<string, unknown>;
type Method = "get" | "post" | "patch" | "put" | "delete";

interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  security?: "bearer" | "internalKey";
  query?: { schema: z.ZodType; examples: Record<string, string> };
  body?: { schema: z.ZodType; examples: Record<string, unknown> };
  success: { status: 200 | 201; component: string; description: string };
  errors: ErrorCode[];
  /** Optional `data` fields this route's failures may carry beside `code`. */
  errorFields?: z.ZodRawShape;
}

const AUTH_ERRORS: ErrorCode[] = ["token_missing", "token_invalid", "token_expired", "session_revoked", "user_disabled"];
/** express.json runs before every route, so every body-carrying method can fail to parse. */
const BODY_ERRORS: ErrorCode[] = ["invalid_request", "payload_too_large", "unsupported_media_type"];
/** Any route can hit a bug or lose its cache/database. */
const COMMON_ERRORS: ErrorCode[] = ["service_unavailable", "internal_error"];

const ref = (component: string) => ({ $ref: `#/components/schemas/${component}` });
const componentName = (platform: PlatformDefinition) => platform.displayName.replace(/[^A-Za-z0-9]/g, "");

export function buildOpenApiDocument(options: OpenApiOptions): Json {
  const registry = z.registry<{ id: string }>();
  const register = (id: string, schema: z.ZodType) => registry.add(schema, { id });
  register("User", s.userSchema);
  register("TokenPair", s.tokenPairSchema);
  register("Session", s.sessionSchema);
  register("PlatformAccessToken", s.platformAccessTokenSchema);
  register("UserResponse", s.okEnvelope(s.userSchema));
  register("SessionResponse", s.okEnvelope(s.sessionSchema));
  register("TokenPairResponse", s.okEnvelope(s.tokenPairSchema));
  register("PlatformAccessTokenResponse", s.okEnvelope(s.platformAccessTokenSchema));
  register("LogoutResponse", s.okEnvelope(s.emptyDataSchema));
  register("DeletedResponse", s.okEnvelope(s.nullDataSchema));
  register("DecryptedDataResponse", s.okEnvelope(s.decryptedDataSchema));
  register("ValidityResponse", s.okEnvelope(s.validitySchema));
  register("PhoneNumberResponse", s.okEnvelope(s.phoneNumberSchema));
  const allCodes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
  register("Error", s.errorEnvelope(allCodes).describe("Every failure; each operation lists the codes it can return"));

  const operations: OperationSpec[] = [];
  for (const platform of options.platforms) {
    const data = s.platformLoginDataSchema(platform.emptyResponseFields());
    register(`${componentName(platform)}LoginData`, data);
    register(`${componentName(platform)}LoginResponse`, s.okEnvelope(data));
    operations.push(...platformOperations(platform));
  }
  operations.push(...accountOperations(options.placeholderEmailDomain));

  const components = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` });
  const schemas = Object.fromEntries(Object.entries(components.schemas).map(([id, schema]) => [id, clean(schema as Json)]));

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op);

  return {
    openapi: "3.1.0",
    info: { title: "Mini-game login and room server", version: packageVersion(), description: API_DESCRIPTION + errorCodeTable() },
    // Relative, so "Try it out" calls whichever origin serves the page.
    servers: [{ url: "/", description: "This server" }],
    tags: [
      { name: "Mini-game login", description: "Log a player in with a code from their platform; no token needed" },
      { name: "Platform access tokens", description: "The app-level platform credential, for other servers of ours" },
      { name: "Player data", description: "What the server does with the player's platform session key, which it keeps. Bearer token required" },
      { name: "Accounts", description: "Username/email accounts, token refresh and logout" },
      { name: "Users", description: "The logged-in user. Bearer token required" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "`data.token` of any login, register, refresh or password change. Only the latest session's token works.",
        },
        internalKey: {
          type: "apiKey",
          in: "header",
          name: "X-Internal-Key",
          description: "Required on the access-token routes when the server sets ACCESS_TOKEN_ROUTE_KEY",
        },
      },
    },
  };
}

function platformOperations(platform: PlatformDefinition): OperationSpec[] {
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
      query: { schema: platform.loginQuerySchema, examples },
      success: { status: 200, component: `${name}LoginResponse`, description: "Logged in: the platform's fields, a session and the user" },
      errors: [
        "invalid_request",
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
        "server sets ACCESS_TOKEN_ROUTE_KEY (always, in production, unless made public deliberately).",
      security: "internalKey",
      success: { status: 200, component: "PlatformAccessTokenResponse", description: "The cached token" },
      errors: ["internal_key_invalid", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
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
        "gets the current token. Guarded like the GET route.",
      security: "internalKey",
      body: { schema: s.invalidateTokenBody, examples: { report: { access_token: "<the token that failed>" } } },
      success: { status: 200, component: "PlatformAccessTokenResponse", description: "The current token, by the rule above" },
      errors: ["internal_key_invalid", "platform_rate_limited", "platform_misconfigured", "platform_unavailable"],
      errorFields: s.platformTokenErrorFields(platform.name),
    },
    ...playerDataOperations(platform),
  ];
}

const KEY_NOTE =
  "Uses the player's platform `session_key`, which the server keeps from their latest login (whether or not the " +
  "login response shows it) and drops at logout.";

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
          "data again; `watermark.appid` not this server's app id → 422 `watermark_mismatch`.",
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

function accountOperations(placeholderEmailDomain: string): OperationSpec[] {
  const password = { currentPassword: "correct horse", newPassword: "battery staple" };
  return [
    {
      method: "post",
      path: "/api/auth/register",
      operationId: "register",
      tag: "Accounts",
      summary: "Register an account",
      description:
        `Creates an account and starts its session (201). Usernames start with a letter; the \`mg_\` prefix is ` +
        `reserved for mini-game users. Usernames and emails are unique ignoring letter case (\`Carol\` and \`carol\` ` +
        `are one account: 409 \`account_exists\`); the username keeps the form it was registered with. Emails are ` +
        `trimmed and lower-cased; \`@${placeholderEmailDomain}\` is reserved.`,
      body: { schema: s.registerBody(placeholderEmailDomain), examples: { account: { username: "carol", email: "carol@example.com", password: "correct horse" } } },
      success: { status: 201, component: "SessionResponse", description: "Registered and logged in" },
      errors: ["account_exists", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/login",
      operationId: "accountLogin",
      tag: "Accounts",
      summary: "Log in with a password",
      description:
        "Send exactly one of `username` or `email` (both matched ignoring letter case) with the password. A wrong " +
        `password and an unknown account get the same answer.\n\n${PASSWORD_BUDGET_NOTE}\n\n${SESSION_NOTE}`,
      body: {
        schema: s.loginBody,
        examples: { byUsername: { username: "carol", password: "correct horse" }, byEmail: { email: "carol@example.com", password: "correct horse" } },
      },
      success: { status: 200, component: "SessionResponse", description: "Logged in" },
      errors: ["invalid_credentials", "user_disabled", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/refresh",
      operationId: "refresh",
      tag: "Accounts",
      summary: "Rotate the token pair",
      description:
        "Each refresh token works once and yields a new pair in the same session. If the same refresh token comes " +
        "again within REFRESH_GRACE_SEC (default 10 s), the answer is the pair its rotation produced, so a client " +
        "that lost the response stays logged in. Later, it counts as theft: the session ends (`refresh_token_reused`).",
      body: { schema: s.refreshBody, examples: { refresh: { refreshToken: "<data.refreshToken of a login>" } } },
      success: { status: 200, component: "TokenPairResponse", description: "A new pair; the previous access token stops working" },
      errors: ["refresh_token_invalid", "refresh_token_reused", "user_disabled", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/logout",
      operationId: "logout",
      tag: "Accounts",
      summary: "End the session",
      description: "Ends the token's session: its access and refresh tokens stop working, and the server closes the user's room connections.",
      security: "bearer",
      success: { status: 200, component: "LogoutResponse", description: "Logged out; `data` is empty" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "get",
      path: "/api/users/me",
      operationId: "getMe",
      tag: "Users",
      summary: "The logged-in user",
      description: "The user of the token (spec 2.3). The password is never part of it.",
      security: "bearer",
      success: { status: 200, component: "UserResponse", description: "The user" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "patch",
      path: "/api/users/me",
      operationId: "updateMe",
      tag: "Users",
      summary: "Update nickname or avatar",
      description:
        "Optimistic locking: send the `version` you read; if the user changed since, the answer is 409 " +
        "`version_conflict` and you should reload. `null` clears a field; an absent field is left as it is. " +
        "No other fields are accepted. `nickname` and `avatar` follow the text rule (see **Names, chat and seats** " +
        "above): a nickname with control, bidi-override or invisible characters, or an avatar that is not a plain https " +
        "URL, gets 400 `invalid_request`. A new `nickname` then goes through content security (the platform of the " +
        "player's identity checks it as profile text: WeChat msgSecCheck v2 " +
        "scene 1, Douyin antidirt, QQ MsgSecCheck; players with only a password and Kuaishou players against the " +
        "server's word list): risky text is 422 `content_moderated` and nothing changes. While the platform's check " +
        "is unavailable the word list decides, or with CONTENT_CHECK_FALLBACK=refuse the answer is 502 " +
        "`platform_unavailable`.",
      security: "bearer",
      body: { schema: s.profilePatchBody, examples: { profile: { nickname: "Ace", avatar: "https://cdn.example.com/a.png", version: 1 } } },
      success: { status: 200, component: "UserResponse", description: "The updated user (`version` + 1)" },
      errors: [...AUTH_ERRORS, "version_conflict", "content_moderated", "platform_unavailable"],
    },
    {
      method: "put",
      path: "/api/users/me/password",
      operationId: "changePassword",
      tag: "Users",
      summary: "Set or change the password",
      description:
        "A mini-game user's password is random and unknown: they may set a first one without `currentPassword`, " +
        "but only with a token from a login less than RECENT_LOGIN_SEC (10 min) old (`recent_login_required`). " +
        "Afterwards `currentPassword` is required. The session ends and a new one starts: use the returned token. " +
        "Needs a full-grade session: an anonymous Douyin login (`anonymous_code` alone) gets `login_grade_insufficient`. " +
        `A \`currentPassword\` check spends the account's password budget.\n\n${PASSWORD_BUDGET_NOTE}`,
      security: "bearer",
      body: { schema: s.passwordChangeBody, examples: { firstPassword: { newPassword: password.newPassword }, change: password } },
      success: { status: 200, component: "SessionResponse", description: "Changed; a new session" },
      errors: [...AUTH_ERRORS, "invalid_credentials", "recent_login_required", "login_grade_insufficient", "rate_limited"],
    },
    {
      method: "delete",
      path: "/api/users/me",
      operationId: "deleteMe",
      tag: "Users",
      summary: "Delete the account",
      description:
        "Erases the logged-in user for good (the player's right to deletion): the user, its platform identities " +
        "and its session. The token stops working and the user's room connections close. Needs a token from a login " +
        "less than RECENT_LOGIN_SEC (10 min) old (`recent_login_required`): log in again first. An anonymous-grade " +
        "session may erase only an account whose one way in is that anonymous id (`login_grade_insufficient`). A later login with " +
        "the same platform account creates a new, empty user.",
      security: "bearer",
      success: { status: 200, component: "DeletedResponse", description: "Deleted; `data` is null" },
      errors: [...AUTH_ERRORS, "login_grade_insufficient", "recent_login_required"],
    },
  ];
}

function operationObject(op: OperationSpec): Json {
  const codes = unique([...(op.body || op.method !== "get" ? BODY_ERRORS : []), ...op.errors, ...COMMON_ERRORS]);
  const responses: Json = {
    [op.success.status]: { description: op.success.description, content: { "application/json": { schema: ref(op.success.component) } } },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) responses[status] = errorResponse(status, list, op.errorFields);

  const result: Json = {
    tags: [op.tag],
    summary: op.summary,
    operationId: op.operationId,
    description: `${op.description}\n\n**Failure codes:** ${codes.map((c) => `\`${c}\` (${ERROR_CODES[c].status})`).join(", ")}.`,
    responses,
  };
  if (op.security === "bearer") result.security = [{ bearerAuth: [] }];
  // `{}` makes the key optional: it is required only when the server sets one.
  if (op.security === "internalKey") result.security = [{ internalKey: [] }, {}];
  if (op.query) result.parameters = queryParameters(op.query.schema, op.query.examples);
  if (op.body) {
    const examples = Object.fromEntries(Object.entries(op.body.examples).map(([k, value]) => [k, { value }]));
    result.requestBody = { required: true, content: { "application/json": { schema: inputSchema(op.body.schema), examples } } };
  }
  return result;
}

function errorResponse(status: number, codes: ErrorCode[], fields: z.ZodRawShape | undefined): Json {
  const schema = clean(z.toJSONSchema(s.errorEnvelope(codes as [ErrorCode, ...ErrorCode[]], fields)) as Json);
  const example = { success: false, message: ERROR_CODES[codes[0]].message, data: { code: codes[0] } };
  const headers =
    status === 429 && codes.includes("rate_limited")
      ? { "Retry-After": { description: "rate_limited: seconds until a retry can succeed", schema: { type: "integer" } } }
      : undefined;
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].message}`).join("; "),
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema, example } },
  };
}

function queryParameters(schema: z.ZodType, examples: Record<string, string>): Json[] {
  const json = inputSchema(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries((json.properties as Record<string, Json>) ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: required.has(name),
    schema: property,
    example: examples[name],
  }));
}

/** The request side: what the client sends, before transforms. Refinements are in the descriptions. */
function inputSchema(schema: z.ZodType): Json {
  return clean(z.toJSONSchema(schema, { io: "input" }) as Json);
}

/** Drops the standalone-document keys zod adds; inside OpenAPI they would reset the base URI. */
function clean(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

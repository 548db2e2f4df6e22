/**
 * Request schemas: the single source for validation (and, later, the API description).
 */
import { z } from "zod";
import { AVATAR_MAX_LENGTH, AVATAR_URL_MESSAGE, FORBIDDEN_TEXT_MESSAGE, isCleanText, isSafeAvatarUrl, NICKNAME_MAX_LENGTH } from "../core/text-rules";

import { MAX_INT32, userSchema } from "../http/user-schema";

export { userSchema };

/** WeChat and Douyin issue tokens for 2 hours, Kuaishou for 48; a week leaves room for more. */
const MAX_PLATFORM_TOKEN_SEC = 7 * 24 * 3600;
const platformNumber = () => z.int().min(-MAX_INT32 - 1).max(MAX_INT32).meta({ example: 0 });

const RESERVED_USERNAME_PREFIX = "mg_";

/** The text rule (src/core/text-rules.ts), as the API description states it; lobby chat follows it too. */
export const TEXT_RULE_NOTE =
  "Refused with 400 invalid_request when it contains control characters (newlines and tabs included), bidi embeddings, overrides or isolates (U+202A–202E, U+2066–2069), directional marks, zero-width spaces, word joiners, soft hyphens, tag characters or Hangul fillers; ZWJ and ZWNJ are allowed (emoji, Persian, Indic scripts).";

const usernameSchema = z
  .string()
  .min(3, "must be at least 3 characters")
  .max(32, "must be at most 32 characters")
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, "must start with a letter and use only letters, digits and _")
  .refine((u) => !u.toLowerCase().startsWith(RESERVED_USERNAME_PREFIX), "the mg_ prefix is reserved for mini-game users");

const emailSchema = (placeholderDomain: string) =>
  z
    .string()
    .max(254, "must be at most 254 characters")
    .transform((e) => e.trim().toLowerCase())
    .pipe(z.email("must be an email address"))
    .refine((e) => !e.endsWith(`@${placeholderDomain.toLowerCase()}`), "that domain is reserved");

const passwordSchema = z.string().min(8, "must be at least 8 characters").max(128, "must be at most 128 characters");

export const registerBody = (placeholderDomain: string) =>
  z.object({ username: usernameSchema, email: emailSchema(placeholderDomain), password: passwordSchema });

/** Exactly one identifier: username or email. */
export const loginBody = z
  .object({
    username: z.string().min(1).max(254).optional(),
    email: z.string().min(1).max(254).optional(),
    password: z.string().min(1, "is required").max(128),
  })
  .refine((b) => (b.username === undefined) !== (b.email === undefined), {
    message: "send either username or email, not both",
    path: ["username"],
  })
  .transform((b) => ({
    identifier: b.username !== undefined ? { username: b.username } : { email: b.email!.trim().toLowerCase() },
    password: b.password,
  }));

export const refreshBody = z.object({ refreshToken: z.string().min(1, "is required").max(4096) });

export const profilePatchBody = z
  .object({
    nickname: z
      .string()
      // Before the trim, which would silently drop a leading or trailing BOM (U+FEFF) the rule refuses.
      .refine(isCleanText, FORBIDDEN_TEXT_MESSAGE)
      .trim()
      .min(1, "must not be empty")
      .max(NICKNAME_MAX_LENGTH, `must be at most ${NICKNAME_MAX_LENGTH} characters`)
      .nullable()
      .optional()
      .describe(`Shown to other players. ${TEXT_RULE_NOTE}`),
    avatar: z
      .string()
      .max(AVATAR_MAX_LENGTH, `must be at most ${AVATAR_MAX_LENGTH} characters`)
      .refine(isSafeAvatarUrl, AVATAR_URL_MESSAGE)
      .nullable()
      .optional()
      .describe("An https URL with a host, without spaces, quotes (\" ' `), angle brackets, backslashes or control characters; null clears it"),
    version: z.int().min(1).max(MAX_INT32).meta({ example: 1 }),
  })
  .strict();

export const passwordChangeBody = z.object({
  currentPassword: z.string().min(1).max(128).optional(),
  newPassword: passwordSchema,
});

/*
 * Response schemas: what the server answers. They are not used to build responses (the services
 * do that); they are the source of the API description, and the conformance test holds the real
 * responses to them, so the description cannot drift from the code.
 */

/** GET /users/me: the user, and the app of the token's session. */
export const meSchema = userSchema.extend({
  app: z.string().meta({
    description: "The app (game) of this session: `default` for the server's <PLATFORM>_APP_ID app, else its key in APPS_FILE",
    example: "default",
  }),
});

const tokenFields = {
  token: z.string().meta({
    description: "JWT access token (HS256). Send it as `Authorization: Bearer <token>` and as the `accessToken` room join option",
    example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOi…",
  }),
  refreshToken: z.string().meta({ description: "Works once, at POST /api/auth/refresh", example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJy…" }),
  expiresIn: z
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .meta({ description: "Seconds until the access token expires (ACCESS_TOKEN_TTL_SEC)", example: 7200 }),
};

export const tokenPairSchema = z.strictObject(tokenFields);
export const sessionSchema = z.strictObject({ ...tokenFields, user: userSchema });

/** Spec 2.2. */
export const platformAccessTokenSchema = z.strictObject({
  access_token: z.string().describe("The platform's server access token, shared through the cache"),
  expires_in: z.int().min(0).max(MAX_PLATFORM_TOKEN_SEC).meta({ description: "Seconds the token is still valid", example: 7000 }),
});

export const emptyDataSchema = z.strictObject({});
export const nullDataSchema = z.null();

const fieldProblemSchema = z.strictObject({ field: z.string(), message: z.string() });

export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.strictObject({ success: z.literal(true), message: z.string(), data });
}

/**
 * The failure envelope. `extra` adds the optional fields a route's failures may carry beside
 * `code`; the three generic ones can come from any route.
 */
export function errorEnvelope(codes: readonly [string, ...string[]], extra: z.ZodRawShape = {}) {
  return z.strictObject({
    success: z.literal(false),
    message: z.string().describe("Human-readable; do not parse it, use `data.code`"),
    data: z.strictObject({
      code: z.enum(codes).describe("Stable machine code"),
      fields: z.array(fieldProblemSchema).optional().describe("invalid_request from validation: every problem found"),
      retryAfterSec: z
        .int()
        .min(1)
        .max(24 * 3600)
        .optional()
        .meta({ description: "rate_limited: the Retry-After header, in the body too", example: 30 }),
      requestId: z.string().optional().describe("internal_error: quote it when reporting the problem"),
      disabledUntil: z.iso
        .datetime()
        .optional()
        .meta({ description: "user_disabled by a ban with an end: when it lifts (ISO 8601 UTC); absent while disabled indefinitely", example: "2025-02-01T00:00:00.000Z" }),
      ...extra,
    }),
  });
}

/** Meanings of the platform fields of a login's `data` (spec 4.3, 4.4). */
const PLATFORM_FIELD_NOTES: Record<string, string> = {
  error: "Platform error number; 0 on success",
  openid: "Platform user id; may be empty (anonymous login, or unionid only)",
  anonymous_openid: "Anonymous platform user id; may be empty",
  unionid: "May be empty",
  session_key: "Sensitive: never store it long-term or log it. Absent in production unless EXPOSE_SESSION_KEY=true (confirmed by EXPOSE_SESSION_KEY_CONFIRMED), and wherever EXPOSE_SESSION_KEY=false; the server keeps it for the player-data routes",
  errcode: "Platform error detail; 0 on success",
  errmsg: "Platform error text; empty on success",
  message: "Platform error detail; empty on success",
};

/** The platform's own fields, typed from the platform's empty reply, so a new platform needs no schema. */
function platformFieldShape(emptyFields: Record<string, unknown>, allOptional: boolean): z.ZodRawShape {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, empty] of Object.entries(emptyFields)) {
    let field: z.ZodType = typeof empty === "number" ? platformNumber() : z.string();
    if (PLATFORM_FIELD_NOTES[name]) field = field.describe(PLATFORM_FIELD_NOTES[name]);
    shape[name] = allOptional || name === "session_key" ? field.optional() : field;
  }
  return shape;
}

/** `data` of a successful login on one platform: the platform's fields plus our session. */
export function platformLoginDataSchema(emptyFields: Record<string, unknown>) {
  return z.strictObject({ ...platformFieldShape(emptyFields, false), ...tokenFields, user: userSchema });
}

/** Extra `data` fields of a failed login: the platform's fields (empty or as it answered) and no session. */
export function platformLoginErrorFields(platform: string, emptyFields: Record<string, unknown>): z.ZodRawShape {
  return {
    platform: z.literal(platform).optional(),
    reason: z.string().optional().describe("platform_unavailable: timeout, network_error, malformed_response, http_<status>"),
    ...platformFieldShape(emptyFields, true),
    token: z.literal("").optional().describe("Empty on failure (spec 7.2)"),
    user: z.null().optional(),
  };
}

/** Extra `data` fields of a failed platform access-token fetch: the platform's own error detail. */
/** A failed token fetch keeps the platform's own error fields: WeChat errcode/errmsg, Douyin err_no/err_tips. */
export function platformTokenErrorFields(platform: string): z.ZodRawShape {
  return {
    platform: z.literal(platform).optional(),
    reason: z
      .string()
      .optional()
      .describe("timeout, network_error, malformed_response, http_<status>, token_lock_timeout, access_token_rejected (twice, after a refresh)"),
    errcode: platformNumber().optional(),
    errmsg: z.string().optional(),
    err_no: platformNumber().optional(),
    err_tips: z.string().optional(),
  };
}

/* Platform token healing and player data (issue 12). */

/** Which app a mini-game route is for: the platform's own app id, as the game reads it at run time. */
export const appIdQuery = z.object({
  appId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "The platform's app id of the game (WeChat: `wx.getAccountInfoSync().miniProgram.appId`); without it, the default app " +
        "(the server's <PLATFORM>_APP_ID). An app id the server does not serve is 400 `unknown_app`, and nothing is sent to the platform.",
    ),
});

export const invalidateTokenBody = z.object({
  access_token: z.string().min(1, "is required").max(2048).describe("The platform access token a platform call just rejected"),
});

export const decryptBody = z.object({
  encryptedData: z.string().min(1, "is required").max(12_000).describe("Base64, as the platform's client API returned it"),
  iv: z.string().min(1, "is required").max(64).describe("Base64 of 16 bytes, as the client API returned it"),
});

export const signatureVerifyBody = z.object({
  rawData: z.string().max(8192).describe("The `rawData` string exactly as the client API returned it"),
  signature: z.string().min(1, "is required").max(128).describe("The `signature` the client API returned with it"),
});

export const phoneNumberBody = z.object({
  code: z
    .string()
    .min(1, "is required")
    .max(256)
    .describe("The code from the phone-number button (`getPhoneNumber`), not a login code; single-use, valid 5 minutes"),
});

export const decryptedDataSchema = z
  .record(z.string(), z.unknown())
  .describe("The decrypted JSON object, as the platform encrypted it, including `watermark` {appid, timestamp}");

export const validitySchema = z.strictObject({ valid: z.boolean() });

export const phoneNumberSchema = z.strictObject({
  phoneNumber: z.string().meta({ description: "With the country code for numbers outside China", example: "13580006666" }),
  purePhoneNumber: z.string().meta({ example: "13580006666" }),
  countryCode: z.string().meta({ description: "A string, as on the wire", example: "86" }),
});

/**
 * The platform port: what the service needs from one mini-game platform, and what a platform module
 * declares about itself. Everything platform-specific lives in `src/platforms/<name>/`; the registry
 * lists the modules and everything else (config, routes, docs, simulator, tests, bench) derives from it.
 */
import type { z } from "zod";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import type { PlatformSimulator } from "../simulator/platform-simulator";
import type { SocialClient } from "./social-port";

/** One platform's validated settings (`<NAME>_APP_ID`, `<NAME>_APP_SECRET`, `<NAME>_API_BASE_URL`, extras). */
export interface PlatformSettings {
  appId: string;
  appSecret: string;
  apiBaseUrl: string;
  /** Platform-specific settings declared by the platform module itself. */
  extra: Record<string, unknown>;
}

/** The codes a client obtained from its platform's login call. At least one is present. */
export interface LoginCodes {
  code?: string;
  anonymousCode?: string;
}

/** What the platform told us about the player, normalised; empty string means "not given". */
export interface PlatformIdentity {
  openid: string;
  anonymousOpenid: string;
  unionid: string;
  sessionKey: string;
}

export interface PlatformLoginResult {
  identity: PlatformIdentity;
  /**
   * The platform's reply shaped as the login response's `data` fields for this platform
   * (spec 4.3 / 4.4), including `session_key`. The service adds token and user.
   */
  responseFields: Record<string, unknown>;
}

export interface PlatformAccessToken {
  accessToken: string;
  /** Seconds the token is still valid, as the platform said. */
  expiresInSec: number;
}

export interface FetchAccessTokenOptions {
  /** Stable-token APIs only: replace the current token at once (the platforms allow 20 a day, 30 s apart). */
  forceRefresh?: boolean;
}

/** What a business call needs to check a player's session key with the platform. */
export interface SessionKeyCheck {
  accessToken: string;
  openid: string;
  /** HMAC-SHA256 of "" keyed by the session key's base64 text. */
  signature: string;
}

export interface PhoneNumber {
  phoneNumber: string;
  purePhoneNumber: string;
  /** A string on the wire ("86"), whatever the documentation's example says. */
  countryCode: string;
}

/** What a platform's content-security check says about a text (WeChat v2 `result.suggest`). */
export const TEXT_VERDICTS = ["pass", "review", "risky"] as const;
export type TextVerdict = (typeof TEXT_VERDICTS)[number];

export function isTextVerdict(value: unknown): value is TextVerdict {
  return typeof value === "string" && (TEXT_VERDICTS as readonly string[]).includes(value);
}

/** Where the text will be shown: WeChat v2 scene 1 (profile: nicknames) or 2 (chat/comments). */
export type TextScene = "profile" | "chat";

/** One content-security check of a player's text with the platform's access token. */
export interface TextCheck {
  accessToken: string;
  /** The player's openid from their latest login (WeChat requires a recent one); "" when unknown. */
  openid: string;
  text: string;
  scene: TextScene;
}

/**
 * The platform answered a business call with its "this access token is invalid or expired" code
 * (WeChat 40001/42001/40014, Douyin 28001003/28001008, …). The token helper heals the cached token
 * and retries once; a second rejection reaches the caller as this 502.
 */
export class PlatformTokenRejectedError extends AppError {
  constructor(
    readonly platform: string,
    readonly rejectedToken: string,
    detail: Record<string, unknown>,
  ) {
    super("platform_unavailable", {
      message: "The platform rejected this server's access token; retry later",
      data: { platform, reason: "access_token_rejected", ...detail },
    });
  }
}

/** Port to one platform's server API. Failures are thrown as AppError with a platform_* code. */
export interface PlatformClient {
  readonly platform: string;
  /** Which token API fetchAccessToken uses; only a stable one can be forced to a new token. */
  readonly tokenApi: "stable" | "ordinary";
  exchangeCode(codes: LoginCodes): Promise<PlatformLoginResult>;
  fetchAccessToken(options?: FetchAccessTokenOptions): Promise<PlatformAccessToken>;
  /** Whether the platform still accepts the session key behind `signature`; present where documented. */
  checkSessionKey?(check: SessionKeyCheck): Promise<boolean>;
  /** Exchanges a phone-number button code (not a login code); present where documented. */
  getPhoneNumber?(call: { accessToken: string; code: string }): Promise<PhoneNumber>;
  /**
   * The platform's text content-security check (part 2 §1, §4, §6.3); absent where none is documented
   * (Kuaishou). A token rejection throws PlatformTokenRejectedError; other failures a platform_* AppError.
   */
  checkText?(check: TextCheck): Promise<TextVerdict>;
}

/**
 * Player-data features a platform's references document; the routes exist only for these (any
 * other platform/route combination is 404 route_not_found).
 */
export interface PlayerDataFeatures {
  /** encryptedData (AES-128-CBC under the session key) and the rawData sha1 signature. */
  openData: boolean;
  /** The platform's session-key check; needs the client's checkSessionKey. */
  sessionCheck: boolean;
  /** Phone-number codes; needs the client's getPhoneNumber. */
  phoneNumber: boolean;
}

export const NO_PLAYER_DATA: PlayerDataFeatures = { openData: false, sessionCheck: false, phoneNumber: false };

export interface PlatformClientDeps {
  settings: PlatformSettings;
  timeoutMs: number;
  busyRetries: number;
  logger: Logger;
  /** Delay between busy retries; injectable so tests need not wait. */
  retryDelayMs?: (attempt: number) => number;
}

export type UserKeyField = keyof Pick<PlatformIdentity, "openid" | "anonymousOpenid" | "unionid">;

/** Settings a platform adds beyond app id, secret and base URL: env keys, parsed inside the config schema. */
export interface PlatformExtraSettings {
  /** zod fields keyed by environment variable name, e.g. `{ WECHAT_TOKEN_API: z.enum(...) }`. */
  shape: z.ZodRawShape;
  /** Turns the parsed values into `PlatformSettings.extra`. */
  read(values: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Everything the service knows about one platform. Adding a platform means writing one of these in
 * `src/platforms/<name>/` and adding it to `registry.ts`.
 */
export interface PlatformDefinition {
  /** Lowercase route segment and settings prefix (`wechat` → WECHAT_APP_ID, /api/minigame/wechat/login). */
  name: string;
  displayName: string;
  defaultApiBaseUrl: string;
  /** Credentials the simulator accepts by default; used when the embedded simulator serves this platform. */
  simulatorApp: { appId: string; appSecret: string };
  extraSettings?: PlatformExtraSettings;
  /** Validates the login query string and turns it into codes. */
  loginQuerySchema: z.ZodType<LoginCodes>;
  /** Query parameters of the login route that carry a code, the main one first (playground, bench, tests). */
  codeParams: readonly string[];
  /** Identity fields tried in order; the first non-empty one is the local user key. */
  userKeyOrder: UserKeyField[];
  /** Platform fields of a failed login's `data`, with empty values, so failures keep the success shape. */
  emptyResponseFields(): Record<string, unknown>;
  /** Player-data features; absent means none. */
  playerData?: PlayerDataFeatures;
  /**
   * The platform's game coins (docs/payments.md: spends, operator grants), when this server takes
   * them there; absent: its players get 404 payments_disabled. `refunds`: whether a spend can be
   * given back (the wallet has a cancel), so an operator is offered Refund only where it can work.
   */
  coins?: { refunds: boolean };
  /** Player storage for friend rankings and, where documented, subscribe messages (social-port.ts); absent means none. */
  social?: { subscribeMessages: boolean; createClient(deps: PlatformClientDeps): SocialClient };
  createClient(deps: PlatformClientDeps): PlatformClient;
  /** This platform's part of the simulator: its paths, handlers and id formats. */
  simulator: PlatformSimulator;
}

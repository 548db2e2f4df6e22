import type { Agent as HttpAgent } from "node:http";
import type { z } from "zod";
import type { PlatformSettings } from "../config/config";
import type { Logger } from "../logging/logger";

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

/** Port to one platform's server API. Failures are thrown as AppError with a platform_* code. */
export interface PlatformClient {
  readonly platform: string;
  exchangeCode(codes: LoginCodes): Promise<PlatformLoginResult>;
  fetchAccessToken(): Promise<PlatformAccessToken>;
}

export interface PlatformClientDeps {
  settings: PlatformSettings;
  timeoutMs: number;
  busyRetries: number;
  agent?: HttpAgent;
  logger: Logger;
  /** Delay between busy retries; injectable so tests need not wait. */
  retryDelayMs?: (attempt: number) => number;
}

export type UserKeyField = keyof Pick<PlatformIdentity, "openid" | "anonymousOpenid" | "unionid">;

/**
 * Everything the service needs to know about one platform. Adding a platform means writing one of
 * these and adding it to `registry.ts`; routes, settings and the login flow follow from it.
 */
export interface PlatformDefinition {
  /** Lowercase route segment and settings prefix (`wechat` → WECHAT_APP_ID, /api/minigame/wechat/login). */
  name: string;
  displayName: string;
  defaultApiBaseUrl: string;
  /** Credentials the embedded simulator accepts; used when the simulator serves this platform. */
  simulatorApp: { appId: string; appSecret: string };
  /** Platform-specific settings, read from the environment by the config module. */
  settingsSchema: z.ZodType<Record<string, unknown>>;
  /** Validates the login query string and turns it into codes. */
  loginQuerySchema: z.ZodType<LoginCodes>;
  /** Identity fields tried in order; the first non-empty one is the local user key. */
  userKeyOrder: UserKeyField[];
  /** Platform fields of a failed login's `data`, with empty values, so failures keep the success shape. */
  emptyResponseFields(): Record<string, unknown>;
  createClient(deps: PlatformClientDeps): PlatformClient;
}

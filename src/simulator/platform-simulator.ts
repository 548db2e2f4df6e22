/**
 * What a platform module contributes to the simulator, and what the simulator hands its handlers.
 * The server (simulator-server.ts) knows no platform: it mounts every module's routes.
 */
import type { SocialSimState } from "./social-state";
import type { TokenBook, TokenPolicy, TokenStatus } from "./tokens";

/** Stands for a POST body that was not a JSON object; handlers answer it as bad parameters. */
export const MALFORMED_BODY = Symbol("malformed body");

export interface SimRequest {
  query: URLSearchParams;
  /** Request headers, names lowercased (Douyin's `x-token`). */
  headers: Record<string, string>;
  body: Record<string, unknown> | typeof MALFORMED_BODY | undefined;
  /** The POST body exactly as received, for the APIs that sign it (player storage). */
  rawBody?: string;
}

export interface SimReply {
  contentType: string;
  body: unknown;
}

export const JSON_TYPE = "application/json";

/**
 * Which `/__simulator/stats` counter a route increments; "business" is any other API that takes an
 * access token, "contentCheck" a text content-security check, "gameContentCheck" WeChat's mini-game one.
 */
export type CallKind = "code2session" | "accessToken" | "business" | "contentCheck" | "gameContentCheck";
export const CALL_KINDS: readonly CallKind[] = ["code2session", "accessToken", "business", "contentCheck", "gameContentCheck"];

export type CredentialCheck = "ok" | "unknown_appid" | "wrong_secret";

/** Codes already exchanged (`ConsumedCodes`); keys come from `ConsumedCodes.key`. */
export interface CodeMemory {
  isUsed(key: string): boolean;
  markUsed(key: string): void;
}

/** The simulator's memory, seen from one platform: its apps, codes and tokens. */
export interface PlatformSimContext {
  readonly platform: string;
  checkCredentials(appId: string, secret: string): CredentialCheck;
  readonly consumed: CodeMemory;
  /** Token book of one app; call only after checkCredentials said "ok". */
  tokens(appId: string): TokenBook;
  /**
   * How a token a business API received stands, and whose app it belongs to (business APIs carry only
   * the token): "malformed" when it does not have this platform's token shape.
   */
  tokenStatus(token: string): { status: TokenStatus | "malformed"; appId?: string };
  /** Records a login's session key as the player's only valid one (a new login replaces it, part 1 §3). */
  issueSessionKey(appId: string, openid: string, sessionKey: string): void;
  currentSessionKey(appId: string, openid: string): string | undefined;
  /** Whether the player logged in within the content check's recent-login window (WeChat 61010). */
  loggedInRecently(appId: string, openid: string): boolean;
  /** Counts one content check against the app's per-minute and daily limits; false once past them. */
  takeContentCheckQuota(appId: string): boolean;
  /** The same for WeChat's mini-game content check, which has a limit of its own. */
  takeGameContentCheckQuota(appId: string): boolean;
  /** Player storage, subscribe grants and messages, the game content check's limit (every platform's). */
  readonly social: SocialSimState;
  now(): number;
}

export interface SimulatorRoute {
  method: "GET" | "POST";
  /** The platform's real path, e.g. `/sns/jscode2session`. */
  path: string;
  counts: CallKind;
  handle(req: SimRequest, sim: PlatformSimContext): SimReply;
}

export interface PlatformSimulator {
  routes: readonly SimulatorRoute[];
  /**
   * Code outcomes this platform has no error for, and which outcome it answers instead (Douyin has
   * no "blocked" or quota error on login). Tests and docs read it; omitted outcomes are the platform's own.
   */
  answersAs?: Partial<Record<"blocked" | "ratelimited", "invalid" | "busy">>;
  /** How this platform's access tokens look and live. */
  tokenPolicy: TokenPolicy;
}

/** Reads a string parameter; a missing, empty or non-string value counts as absent. */
export function param(source: URLSearchParams | Record<string, unknown>, name: string): string {
  const value = source instanceof URLSearchParams ? source.get(name) : source[name];
  return typeof value === "string" ? value : "";
}

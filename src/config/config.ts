/**
 * The one place that reads settings. Everything else receives the frozen `AppConfig` it returns.
 *
 * Sources, lowest priority first: built-in development defaults, the settings files (`.env` in
 * development; in production the `arena.env` template, then the operator's `arena.local.env`), then
 * the real process environment (see settings-files.ts).
 *
 * One schema (`configSchema`) holds every setting, the platform modules' included; `AppConfig` is what
 * it produces. Cross-field rules are refinements of it; production's extra rules live in
 * production-rules.ts. All problems are collected, one per setting, and reported together so an
 * operator fixes them in one pass.
 *
 * Adding a setting: one line in `settingsShape`, one field in `toAppConfig`, one commented line in arena.env.
 */
import { z } from "zod";
import type { PlatformDefinition, PlatformSettings } from "../platforms/platform";
import { platformDefinitions } from "../platforms/registry";
import { bool, int, type Env } from "./config-types";
import { DEV_JWT_SECRET, placeholderProblems, productionProblems } from "./production-rules";
import { readSettings } from "./settings-files";
import { compileTrust } from "../net/client-ip";
import { canonicalOrigin, type CorsOrigins } from "../net/cors-policy";

export { DEV_JWT_SECRET } from "./production-rules";

/** Platforms served when PLATFORMS is unset and the simulator is off: what every arena.env before PLATFORMS meant. */
const PLATFORMS_BEFORE_THE_SETTING = ["wechat", "douyin"];

const platformNames = platformDefinitions.map((p) => p.name) as [string, ...string[]];

const settingsShape = {
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: int(0, 65535).default(2567),
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, "must be an interface address (e.g. 127.0.0.1, 0.0.0.0, ::) or a host name")
    .optional(),
  CORS_ORIGINS: z
    .string()
    .refine(
      (v) => v === "*" || v === "none" || splitList(v).every((o) => canonicalOrigin(o) !== undefined),
      "must be *, none, or a comma-separated list of origins such as https://game.example.com",
    )
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  JWT_SECRET: z.string().min(1).optional(),
  JWT_PREVIOUS_SECRETS: z.string().optional(),
  ACCESS_TOKEN_TTL_SEC: int(60, 30 * 24 * 3600).default(7200),
  REFRESH_TOKEN_TTL_SEC: int(300, 365 * 24 * 3600).default(30 * 24 * 3600),
  REFRESH_GRACE_SEC: int(0, 300).default(10),
  RECENT_LOGIN_SEC: int(30, 24 * 3600).default(600),
  TRUST_PROXY: z
    .string()
    .refine(
      (v) => isValidTrustProxy(v),
      "must be true, false, a hop count, or a comma-separated list of proxy addresses/subnets (loopback, linklocal, uniquelocal allowed)",
    )
    .optional(),

  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_WINDOW_SEC: int(1, 3600).default(60),
  RATE_LIMIT_IP_MAX: int(1, 1_000_000).default(600),
  RATE_LIMIT_USER_MAX: int(1, 1_000_000).default(60),
  RATE_LIMIT_ACCOUNT_MAX: int(1, 10_000).default(10),
  RATE_LIMIT_ACCOUNT_WINDOW_SEC: int(1, 24 * 3600).default(300),

  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 60_000).default(1000),
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: int(100, 60_000).default(3000),
  DATABASE_QUERY_TIMEOUT_MS: int(100, 600_000).default(1000),
  SQLITE_PATH: z.string().min(1).default("./data/users.sqlite"),
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  LOBBY_MAX_CLIENTS: int(1, 10_000).default(500),
  USER_CACHE_TTL_MS: int(0, 60_000).default(5000),
  USER_CACHE_MAX_ENTRIES: int(1, 1_000_000).default(20_000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  CACHE_KEY_PREFIX: z.string().max(64).default(""),
  INSTANCES: int(1, 256).optional(),
  NODE_APP_INSTANCE: int(0, 255).default(0),
  PUBLIC_ADDRESS: z
    .string()
    .regex(/^[^\s/:]+(:(\d+|\{port\}))?(\/\S*)?$/, "must be host[:port][/path] without a scheme, e.g. game.example.com/{port}")
    .optional(),
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000).default(10_000),
  SHUTDOWN_ACCEPT_WINDOW_MS: int(0, 30_000).default(1000),
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),

  PLATFORM_SIMULATOR: z.enum(["embedded", "off"]).optional(),
  PLATFORMS: z
    .string()
    .transform((v) => [...new Set(v.split(",").map((x) => x.trim().toLowerCase()).filter(Boolean))])
    .pipe(z.array(z.enum(platformNames, `must list registered platforms only (${platformNames.join(", ")})`)).min(1))
    .optional(),
  PLATFORM_TIMEOUT_MS: int(100, 60_000).default(5000),
  PLATFORM_BUSY_RETRIES: int(0, 5).default(2),
  PLATFORM_TOKEN_REFRESH_MARGIN_SEC: int(0, 3600).default(300),

  CONTENT_CHECK_ENABLED: bool.default(true),
  CONTENT_CHECK_FALLBACK: z.enum(["word_list", "refuse"]).default("word_list"),
  CONTENT_CHECK_WORDS: z.string().optional(),
  CONTENT_CHECK_WORDS_FILE: z.string().min(1).optional(),
  CONTENT_CHECK_CACHE_TTL_SEC: int(0, 3600).default(60),
  CONTENT_CHECK_CACHE_ENTRIES: int(0, 1_000_000).default(4000),

  ACCESS_TOKEN_ROUTE_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  ACCESS_TOKEN_ROUTE_PUBLIC: bool.default(false),
  EXPOSE_SESSION_KEY: bool.default(true),
  PLACEHOLDER_EMAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "must be a domain name")
    .default("players.invalid"),
  API_DOCS_ENABLED: bool.default(true),
  PLAYGROUND_ENABLED: bool.optional(),

  // <NAME>_APP_ID, <NAME>_APP_SECRET, <NAME>_API_BASE_URL and each module's own keys.
  ...platformSettingsShape(platformDefinitions),
};

function platformSettingsShape(platforms: readonly PlatformDefinition[]): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const p of platforms) {
    const prefix = settingsPrefix(p);
    shape[`${prefix}_APP_ID`] = z.string().optional();
    shape[`${prefix}_APP_SECRET`] = z.string().optional();
    shape[`${prefix}_API_BASE_URL`] = z.string().regex(/^https?:\/\//, "must be an http(s) URL").optional();
    Object.assign(shape, p.extraSettings?.shape);
  }
  return shape;
}

export const settingsSchema = z.object(settingsShape);
export type Settings = z.output<typeof settingsSchema>;

function settingsPrefix(platform: Pick<PlatformDefinition, "name">): string {
  return platform.name.toUpperCase();
}

/** The simulator is embedded by default outside production. */
function simulatorMode(s: Settings): "embedded" | "off" {
  return s.PLATFORM_SIMULATOR ?? (s.NODE_ENV === "production" ? "off" : "embedded");
}

/** The platforms this server serves: PLATFORMS, else all of them beside the simulator, else WeChat and Douyin. */
function enabledPlatforms(s: Settings): PlatformDefinition[] {
  const names = s.PLATFORMS ?? (simulatorMode(s) === "embedded" ? platformNames : PLATFORMS_BEFORE_THE_SETTING);
  return platformDefinitions.filter((p) => names.includes(p.name));
}

/** A platform setting by name (platform keys are declared at run time, so the schema types them loosely). */
function platformSetting(s: Settings, platform: PlatformDefinition, suffix: string): string | undefined {
  const value = (s as Record<string, unknown>)[`${settingsPrefix(platform)}_${suffix}`];
  return typeof value === "string" ? value : undefined;
}

function crossFieldRules(s: Settings, ctx: z.RefinementCtx): void {
  const problem = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [key], message });
  const instances = s.INSTANCES ?? 1;
  if (instances > 1 && !s.REDIS_URL) problem("REDIS_URL", "INSTANCES > 1 requires REDIS_URL (the in-memory cache is per process)");
  if (instances > 1 && !s.DATABASE_URL) problem("DATABASE_URL", "INSTANCES > 1 requires DATABASE_URL (SQLite is per machine and per process lock)");
  if (instances > 1 && !s.PUBLIC_ADDRESS) {
    problem("PUBLIC_ADDRESS", "INSTANCES > 1 requires PUBLIC_ADDRESS (e.g. game.example.com/{port}) so room seats reach the right process");
  }
  if (s.REFRESH_TOKEN_TTL_SEC <= s.ACCESS_TOKEN_TTL_SEC) problem("REFRESH_TOKEN_TTL_SEC", "must be longer than ACCESS_TOKEN_TTL_SEC");
  if (simulatorMode(s) === "off") {
    for (const p of enabledPlatforms(s)) {
      for (const suffix of ["APP_ID", "APP_SECRET"]) {
        if (!platformSetting(s, p, suffix)) {
          problem(`${settingsPrefix(p)}_${suffix}`, `required for ${p.name} (in PLATFORMS) unless PLATFORM_SIMULATOR=embedded`);
        }
      }
    }
  }
}

function toAppConfig(s: Settings) {
  const simulator = simulatorMode(s);
  // The port @colyseus/tools' listen() binds: PORT plus pm2's NODE_APP_INSTANCE.
  const processPort = s.PORT + s.NODE_APP_INSTANCE;
  const platforms: Record<string, PlatformSettings> = {};
  for (const p of enabledPlatforms(s)) {
    platforms[p.name] = {
      appId: platformSetting(s, p, "APP_ID") ?? p.simulatorApp.appId,
      appSecret: platformSetting(s, p, "APP_SECRET") ?? p.simulatorApp.appSecret,
      apiBaseUrl: (platformSetting(s, p, "API_BASE_URL") ?? p.defaultApiBaseUrl).replace(/\/+$/, ""),
      extra: p.extraSettings?.read(s as Record<string, unknown>) ?? {},
    };
  }
  return {
    env: s.NODE_ENV,
    port: s.PORT,
    /** Interface to listen on: loopback in development (the built-in JWT secret stays on this machine), every interface in production. */
    host: s.HOST ?? (s.NODE_ENV === "production" ? "0.0.0.0" : "127.0.0.1"),
    /** Origins browsers may call /api and /matchmake from: any in development, none in production unless CORS_ORIGINS lists them. */
    corsOrigins: parseCorsOrigins(s.CORS_ORIGINS, s.NODE_ENV),
    logLevel: s.LOG_LEVEL,
    jwt: {
      secret: s.JWT_SECRET ?? DEV_JWT_SECRET,
      /** True when JWT_SECRET is unset and the built-in development secret signs tokens. */
      isDevelopmentSecret: !s.JWT_SECRET,
      previousSecrets: splitList(s.JWT_PREVIOUS_SECRETS),
      accessTtlSec: s.ACCESS_TOKEN_TTL_SEC,
      refreshTtlSec: s.REFRESH_TOKEN_TTL_SEC,
    },
    store: s.DATABASE_URL
      ? ({
          kind: "postgres",
          url: s.DATABASE_URL,
          connectTimeoutMs: s.DATABASE_CONNECT_TIMEOUT_MS,
          acquireTimeoutMs: s.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
          queryTimeoutMs: s.DATABASE_QUERY_TIMEOUT_MS,
        } as const)
      : ({ kind: "sqlite", path: s.SQLITE_PATH, synchronous: s.SQLITE_SYNCHRONOUS } as const),
    /** Seats per lobby room; a full lobby makes the next joiner a new one. */
    lobbyMaxClients: s.LOBBY_MAX_CLIENTS,
    /** Per-process cache of active user records for token verification (0 ms turns it off). */
    userCache: { ttlMs: s.USER_CACHE_TTL_MS, maxEntries: s.USER_CACHE_MAX_ENTRIES },
    cache: s.REDIS_URL ? ({ kind: "redis", url: s.REDIS_URL } as const) : ({ kind: "memory" } as const),
    cacheKeyPrefix: s.CACHE_KEY_PREFIX,
    /** Address room seats point clients at (host[:port][/path]); `{port}` becomes this process's port. */
    publicAddress: s.PUBLIC_ADDRESS?.replace("{port}", String(processPort)),
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
    /** After SIGTERM, keep accepting this long so queued connections are served rather than reset. */
    shutdownAcceptWindowMs: s.SHUTDOWN_ACCEPT_WINDOW_MS,
    metrics: { enabled: s.METRICS_ENABLED, token: s.METRICS_TOKEN },
    simulator,
    /** Settings of the enabled platforms only (PLATFORMS), keyed by platform name, in registry order. */
    platforms,
    platformTimeoutMs: s.PLATFORM_TIMEOUT_MS,
    platformBusyRetries: s.PLATFORM_BUSY_RETRIES,
    platformTokenRefreshMarginSec: s.PLATFORM_TOKEN_REFRESH_MARGIN_SEC,
    contentCheck: {
      enabled: s.CONTENT_CHECK_ENABLED,
      /** When the platform's check fails (timeout, quota, 5xx): decide by the word list, or refuse the text. */
      fallback: s.CONTENT_CHECK_FALLBACK,
      /** The local word list: CONTENT_CHECK_WORDS (comma-separated) plus the lines of CONTENT_CHECK_WORDS_FILE. */
      words: splitList(s.CONTENT_CHECK_WORDS),
      wordsFile: s.CONTENT_CHECK_WORDS_FILE,
      cacheTtlSec: s.CONTENT_CHECK_CACHE_TTL_SEC,
      cacheEntries: s.CONTENT_CHECK_CACHE_ENTRIES,
    },
    accessTokenRoute: { key: s.ACCESS_TOKEN_ROUTE_KEY, public: s.ACCESS_TOKEN_ROUTE_PUBLIC },
    exposeSessionKey: s.EXPOSE_SESSION_KEY,
    /** Seconds a rotated refresh token still gets the pair its rotation produced. */
    refreshGraceSec: s.REFRESH_GRACE_SEC,
    /** How fresh a login must be to set a first password without the current one. */
    recentLoginSec: s.RECENT_LOGIN_SEC,
    /** Which hops may speak for the client in X-Forwarded-For (Express "trust proxy" semantics; see src/net/client-ip.ts). */
    trustProxy: parseTrustProxy(s.TRUST_PROXY),
    rateLimit: {
      enabled: s.RATE_LIMIT_ENABLED,
      windowSec: s.RATE_LIMIT_WINDOW_SEC,
      /** Requests per client IP per window, per route group; generous, since carrier NAT shares IPs. */
      ipMax: s.RATE_LIMIT_IP_MAX,
      /** Requests per authenticated user per window (refresh, matchmaking). */
      userMax: s.RATE_LIMIT_USER_MAX,
      /**
       * Password attempts per account per account window, whichever identifier or route they come
       * through (account-service.ts): slows guessing, locks out only briefly.
       */
      accountMax: s.RATE_LIMIT_ACCOUNT_MAX,
      accountWindowSec: s.RATE_LIMIT_ACCOUNT_WINDOW_SEC,
    },
    placeholderEmailDomain: s.PLACEHOLDER_EMAIL_DOMAIN,
    /** Serve the OpenAPI description and Swagger UI at /api-docs.json and /api-docs. */
    apiDocsEnabled: s.API_DOCS_ENABLED,
    /** Serve the browser playground at /; by default only next to the embedded simulator. */
    playgroundEnabled: s.PLAYGROUND_ENABLED ?? simulator === "embedded",
  };
}

function productionRules(s: Settings, ctx: z.RefinementCtx): void {
  const problems = productionProblems({
    production: s.NODE_ENV === "production",
    jwtSecret: s.JWT_SECRET,
    previousSecrets: splitList(s.JWT_PREVIOUS_SECRETS),
    simulator: simulatorMode(s),
    platformSecrets: enabledPlatforms(s).map((p) => ({ key: `${settingsPrefix(p)}_APP_SECRET`, value: platformSetting(s, p, "APP_SECRET") })),
    accessTokenRouteKey: s.ACCESS_TOKEN_ROUTE_KEY,
    accessTokenRoutePublic: s.ACCESS_TOKEN_ROUTE_PUBLIC,
  });
  for (const { key, message } of problems) ctx.addIssue({ code: "custom", path: [key], message });
}

/** Every setting, checked together, producing the app's configuration. */
const configSchema = settingsSchema.superRefine(crossFieldRules).superRefine(productionRules).transform(toAppConfig);

export type AppConfig = Readonly<z.output<typeof configSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** The settings files of the environment under the real environment (see settings-files.ts). */
export function readEnvironment(processEnv: Env = process.env, root?: string): Env {
  return readSettings(processEnv, root);
}

/** Empty strings mean "not set": a blank `KEY=` line in an env file must not override a default. */
export function withoutBlanks(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== "") out[k] = v.trim();
  return out;
}

export function parseConfig(rawEnv: Env): AppConfig {
  const env = withoutBlanks(rawEnv);
  const parsed = configSchema.safeParse(env);
  // A placeholder is the clearest thing to say about a setting, so it wins over other complaints.
  const problems = new Map<string, string>();
  for (const p of placeholderProblems(env, Object.keys(settingsShape))) problems.set(p.key, p.message);
  for (const issue of parsed.error?.issues ?? []) {
    const key = String(issue.path[0] ?? "");
    if (!problems.has(key)) problems.set(key, issue.message);
  }
  if (problems.size > 0) throw new ConfigError([...problems].map(([key, message]) => (key ? `${key}: ${message}` : message)));
  return deepFreeze(parsed.data!);
}

/** Loads settings for the running process: env file plus environment, validated. */
export function loadConfig(processEnv: Env = process.env): AppConfig {
  return parseConfig(readEnvironment(processEnv));
}

function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

/** "true"/"false", a hop count, or a comma-separated list of trusted proxy addresses/subnets. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

function isValidTrustProxy(value: string): boolean {
  try {
    compileTrust(parseTrustProxy(value));
    return true;
  } catch {
    return false;
  }
}

function parseCorsOrigins(value: string | undefined, env: Settings["NODE_ENV"]): CorsOrigins {
  if (value === undefined) return env === "production" ? [] : "any";
  if (value === "*") return "any";
  if (value === "none") return [];
  return splitList(value).map((o) => canonicalOrigin(o)!);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The one place that reads settings. Everything else receives the frozen `AppConfig` it returns.
 *
 * Sources, lowest priority first: built-in development defaults, an env file (`.env` in development,
 * `arena.env` in production, as the design card asks), then the real process environment.
 * All problems are collected and reported together so an operator fixes them in one pass.
 */
import fs from "node:fs";
import path from "node:path";
import dotenv from "dotenv";
import { z } from "zod";
import { platformDefinitions } from "../platforms/registry";

export const DEV_JWT_SECRET = "development-only-jwt-secret-do-not-use-in-production";
const MIN_SECRET_BYTES = 32;

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const secret = z.string().min(1);

const baseSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: int(0, 65535).default(2567),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  JWT_SECRET: secret.optional(),
  JWT_PREVIOUS_SECRETS: z.string().optional(),
  ACCESS_TOKEN_TTL_SEC: int(60, 30 * 24 * 3600).default(7200),
  REFRESH_TOKEN_TTL_SEC: int(300, 365 * 24 * 3600).default(30 * 24 * 3600),
  REFRESH_GRACE_SEC: int(0, 300).default(10),
  RECENT_LOGIN_SEC: int(30, 24 * 3600).default(600),
  TRUST_PROXY: z.string().optional(),

  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_WINDOW_SEC: int(1, 3600).default(60),
  RATE_LIMIT_IP_MAX: int(1, 1_000_000).default(600),
  RATE_LIMIT_USER_MAX: int(1, 1_000_000).default(60),
  RATE_LIMIT_ACCOUNT_MAX: int(1, 10_000).default(10),
  RATE_LIMIT_ACCOUNT_WINDOW_SEC: int(1, 24 * 3600).default(300),

  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 60_000).default(1000),
  DATABASE_QUERY_TIMEOUT_MS: int(100, 600_000).default(1000),
  SQLITE_PATH: z.string().min(1).default("./data/users.sqlite"),
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
  PLATFORM_TIMEOUT_MS: int(100, 60_000).default(5000),
  PLATFORM_BUSY_RETRIES: int(0, 5).default(2),
  PLATFORM_TOKEN_REFRESH_MARGIN_SEC: int(0, 3600).default(300),

  ACCESS_TOKEN_ROUTE_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  ACCESS_TOKEN_ROUTE_PUBLIC: bool.default(false),
  EXPOSE_SESSION_KEY: bool.default(true),
  PLACEHOLDER_EMAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "must be a domain name")
    .default("players.invalid"),
  API_DOCS_ENABLED: bool.default(true),
  PLAYGROUND_ENABLED: bool.optional(),
});

export interface PlatformSettings {
  appId: string;
  appSecret: string;
  apiBaseUrl: string;
  /** Platform-specific settings declared by the platform module itself. */
  extra: Record<string, unknown>;
}

export interface AppConfig {
  env: "development" | "production" | "test";
  port: number;
  logLevel: string;
  jwt: {
    secret: string;
    previousSecrets: string[];
    accessTtlSec: number;
    refreshTtlSec: number;
  };
  store: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string; connectTimeoutMs: number; queryTimeoutMs: number };
  cache: { kind: "memory" } | { kind: "redis"; url: string };
  cacheKeyPrefix: string;
  instances: number;
  /** Port this process listens on: PORT plus pm2's NODE_APP_INSTANCE. */
  processPort: number;
  /** Address room seats point clients at (host[:port][/path]); `{port}` becomes processPort. */
  publicAddress?: string;
  shutdownTimeoutMs: number;
  /** After SIGTERM, keep accepting this long so queued connections are served rather than reset. */
  shutdownAcceptWindowMs: number;
  metrics: { enabled: boolean; token?: string };
  simulator: "embedded" | "off";
  platforms: Record<string, PlatformSettings>;
  platformTimeoutMs: number;
  platformBusyRetries: number;
  platformTokenRefreshMarginSec: number;
  accessTokenRoute: { key?: string; public: boolean };
  /** Seconds a rotated refresh token still gets the pair its rotation produced. */
  refreshGraceSec: number;
  /** How fresh a login must be to set a first password without the current one. */
  recentLoginSec: number;
  /** Express "trust proxy" value: false (ignore forwarded headers), a hop count, or addresses. */
  trustProxy: boolean | number | string;
  rateLimit: {
    enabled: boolean;
    windowSec: number;
    /** Requests per client IP per window, per route group; generous, since carrier NAT shares IPs. */
    ipMax: number;
    /** Requests per authenticated user per window (refresh, matchmaking). */
    userMax: number;
    /** Login attempts per account per account window: slows guessing, locks out only briefly. */
    accountMax: number;
    accountWindowSec: number;
  };
  exposeSessionKey: boolean;
  placeholderEmailDomain: string;
  /** Serve the OpenAPI description and Swagger UI at /api-docs.json and /api-docs. */
  apiDocsEnabled: boolean;
  /** Serve the browser playground at /; by default only next to the embedded simulator. */
  playgroundEnabled: boolean;
  /** Human-readable notes about defaults in use, logged once at boot. */
  notices: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Reads the env file that belongs to the environment; real environment variables win over it. */
export function readEnvironment(processEnv: Env = process.env, cwd = process.cwd()): Env {
  const nodeEnv = processEnv.NODE_ENV ?? "development";
  const fileName = nodeEnv === "production" ? "arena.env" : ".env";
  const filePath = path.resolve(cwd, fileName);
  const fromFile = fs.existsSync(filePath) ? dotenv.parse(fs.readFileSync(filePath)) : {};
  return { ...fromFile, ...processEnv };
}

/** Empty strings mean "not set": a blank `KEY=` line in an env file must not override a default. */
function withoutBlanks(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== "") out[k] = v.trim();
  return out;
}

export function parseConfig(rawEnv: Env): AppConfig {
  const env = withoutBlanks(rawEnv);
  const problems: string[] = [];
  const notices: string[] = [];

  // arena.env ships with "change-me" in every value an operator must fill in.
  if (env.NODE_ENV === "production") {
    for (const key of knownSettingNames()) {
      if (/change[-_]?me/i.test(env[key] ?? "")) problems.push(`${key}: still the arena.env placeholder`);
    }
  }
  const flagged = (key: string) => problems.some((p) => p.startsWith(`${key}:`));
  const parsed = baseSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.join(".");
      if (!flagged(key)) problems.push(`${key}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const s = parsed.data;
  const production = s.NODE_ENV === "production";
  const simulator = s.PLATFORM_SIMULATOR ?? (production ? "off" : "embedded");

  const platforms: Record<string, PlatformSettings> = {};
  for (const def of platformDefinitions) {
    const prefix = def.name.toUpperCase();
    const extraParsed = def.settingsSchema.safeParse(env);
    if (!extraParsed.success) {
      for (const issue of extraParsed.error.issues) problems.push(`${issue.path.join(".")}: ${issue.message}`);
    }
    const appId = env[`${prefix}_APP_ID`];
    const appSecret = env[`${prefix}_APP_SECRET`];
    const baseUrl = env[`${prefix}_API_BASE_URL`] ?? def.defaultApiBaseUrl;
    if (!/^https?:\/\//.test(baseUrl)) problems.push(`${prefix}_API_BASE_URL: must be an http(s) URL`);
    if (simulator === "off" && (!appId || !appSecret)) {
      problems.push(`${prefix}_APP_ID and ${prefix}_APP_SECRET are required unless PLATFORM_SIMULATOR=embedded`);
    }
    platforms[def.name] = {
      appId: appId ?? def.simulatorApp.appId,
      appSecret: appSecret ?? def.simulatorApp.appSecret,
      apiBaseUrl: baseUrl.replace(/\/+$/, ""),
      extra: extraParsed.success ? (extraParsed.data as Record<string, unknown>) : {},
    };
  }

  const jwtSecret = s.JWT_SECRET ?? DEV_JWT_SECRET;
  const previousSecrets = (s.JWT_PREVIOUS_SECRETS ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  const instances = s.INSTANCES ?? 1;

  if (production) {
    if (!s.JWT_SECRET) problems.push("JWT_SECRET: required in production");
    else if (isWeakSecret(s.JWT_SECRET) && !flagged("JWT_SECRET")) {
      problems.push(`JWT_SECRET: must be at least ${MIN_SECRET_BYTES} bytes and not a placeholder`);
    }
    for (const prev of previousSecrets) {
      if (isWeakSecret(prev)) problems.push("JWT_PREVIOUS_SECRETS: every entry must be a strong secret");
    }
    if (simulator === "embedded") problems.push("PLATFORM_SIMULATOR: the simulator is not allowed in production");
    for (const def of platformDefinitions) {
      const prefix = def.name.toUpperCase();
      const secretValue = env[`${prefix}_APP_SECRET`];
      if (secretValue && isPlaceholder(secretValue) && !flagged(`${prefix}_APP_SECRET`)) problems.push(`${prefix}_APP_SECRET: still a placeholder`);
    }
    if (!s.ACCESS_TOKEN_ROUTE_KEY && !s.ACCESS_TOKEN_ROUTE_PUBLIC) {
      problems.push(
        "ACCESS_TOKEN_ROUTE_KEY: required in production (or set ACCESS_TOKEN_ROUTE_PUBLIC=true to expose platform access tokens deliberately)",
      );
    }
    if (s.ACCESS_TOKEN_ROUTE_KEY && isPlaceholder(s.ACCESS_TOKEN_ROUTE_KEY) && !flagged("ACCESS_TOKEN_ROUTE_KEY")) {
      problems.push("ACCESS_TOKEN_ROUTE_KEY: still a placeholder");
    }

  }
  if (instances > 1 && !s.REDIS_URL) problems.push("INSTANCES > 1 requires REDIS_URL (the in-memory cache is per process)");
  if (instances > 1 && !s.DATABASE_URL) problems.push("INSTANCES > 1 requires DATABASE_URL (SQLite is per machine and per process lock)");
  if (instances > 1 && !s.PUBLIC_ADDRESS) {
    problems.push("INSTANCES > 1 requires PUBLIC_ADDRESS (e.g. game.example.com/{port}) so room seats reach the right process");
  }
  if (s.REFRESH_TOKEN_TTL_SEC <= s.ACCESS_TOKEN_TTL_SEC) {
    problems.push("REFRESH_TOKEN_TTL_SEC: must be longer than ACCESS_TOKEN_TTL_SEC");
  }

  if (problems.length > 0) throw new ConfigError(problems);

  if (!s.JWT_SECRET) notices.push("JWT_SECRET not set: using the built-in development secret");
  if (simulator === "embedded") notices.push("platform simulator embedded: WeChat and Douyin logins are simulated");
  if (!s.DATABASE_URL) notices.push(`users in SQLite at ${s.SQLITE_PATH}`);
  if (!s.REDIS_URL) notices.push("in-memory cache (single process)");

  return deepFreeze({
    env: s.NODE_ENV,
    port: s.PORT,
    logLevel: s.LOG_LEVEL,
    jwt: {
      secret: jwtSecret,
      previousSecrets,
      accessTtlSec: s.ACCESS_TOKEN_TTL_SEC,
      refreshTtlSec: s.REFRESH_TOKEN_TTL_SEC,
    },
    store: s.DATABASE_URL
      ? { kind: "postgres", url: s.DATABASE_URL, connectTimeoutMs: s.DATABASE_CONNECT_TIMEOUT_MS, queryTimeoutMs: s.DATABASE_QUERY_TIMEOUT_MS }
      : { kind: "sqlite", path: s.SQLITE_PATH },
    cache: s.REDIS_URL ? { kind: "redis", url: s.REDIS_URL } : { kind: "memory" },
    cacheKeyPrefix: s.CACHE_KEY_PREFIX,
    instances,
    processPort: s.PORT + s.NODE_APP_INSTANCE,
    publicAddress: s.PUBLIC_ADDRESS?.replace("{port}", String(s.PORT + s.NODE_APP_INSTANCE)),
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
    shutdownAcceptWindowMs: s.SHUTDOWN_ACCEPT_WINDOW_MS,
    metrics: { enabled: s.METRICS_ENABLED, token: s.METRICS_TOKEN },
    simulator,
    platforms,
    platformTimeoutMs: s.PLATFORM_TIMEOUT_MS,
    platformBusyRetries: s.PLATFORM_BUSY_RETRIES,
    platformTokenRefreshMarginSec: s.PLATFORM_TOKEN_REFRESH_MARGIN_SEC,
    accessTokenRoute: { key: s.ACCESS_TOKEN_ROUTE_KEY, public: s.ACCESS_TOKEN_ROUTE_PUBLIC },
    exposeSessionKey: s.EXPOSE_SESSION_KEY,
    refreshGraceSec: s.REFRESH_GRACE_SEC,
    recentLoginSec: s.RECENT_LOGIN_SEC,
    trustProxy: parseTrustProxy(s.TRUST_PROXY),
    rateLimit: {
      enabled: s.RATE_LIMIT_ENABLED,
      windowSec: s.RATE_LIMIT_WINDOW_SEC,
      ipMax: s.RATE_LIMIT_IP_MAX,
      userMax: s.RATE_LIMIT_USER_MAX,
      accountMax: s.RATE_LIMIT_ACCOUNT_MAX,
      accountWindowSec: s.RATE_LIMIT_ACCOUNT_WINDOW_SEC,
    },
    placeholderEmailDomain: s.PLACEHOLDER_EMAIL_DOMAIN,
    apiDocsEnabled: s.API_DOCS_ENABLED,
    playgroundEnabled: s.PLAYGROUND_ENABLED ?? simulator === "embedded",
    notices,
  } satisfies AppConfig) as AppConfig;
}

/** Loads settings for the running process: env file plus environment, validated. */
export function loadConfig(processEnv: Env = process.env): AppConfig {
  return parseConfig(readEnvironment(processEnv));
}

function knownSettingNames(): string[] {
  const platformKeys = platformDefinitions.flatMap((d) =>
    ["APP_ID", "APP_SECRET", "API_BASE_URL"].map((suffix) => `${d.name.toUpperCase()}_${suffix}`),
  );
  return [...Object.keys(baseSchema.shape), ...platformKeys];
}

/** "true"/"false", a hop count, or a comma-separated list of trusted proxy addresses/subnets. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

const PLACEHOLDER = /change[-_ ]?me|placeholder|replace[-_ ]?me|your[-_]|example|xxx|todo|development-only/i;

function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

function isWeakSecret(value: string): boolean {
  return Buffer.byteLength(value, "utf8") < MIN_SECRET_BYTES || isPlaceholder(value) || value === DEV_JWT_SECRET;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Settings read by the standalone simulator (`npm run simulator`). */
export function loadSimulatorConfig(processEnv: Env = process.env): { port: number; host: string } {
  const env = withoutBlanks(processEnv);
  const parsed = z
    .object({ SIMULATOR_PORT: int(0, 65535).default(3999), SIMULATOR_HOST: z.string().default("127.0.0.1") })
    .safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  return { port: parsed.data.SIMULATOR_PORT, host: parsed.data.SIMULATOR_HOST };
}

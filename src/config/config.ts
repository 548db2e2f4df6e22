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
 * Settings live per area in settings/ (server, sessions, storage, platforms, apps), each a zod shape and the
 * part of `AppConfig` it produces. Adding a setting: one line in its area's shape, one field in that
 * area's config function, one commented line in arena.env.
 */
import { z } from "zod";
import { DEFAULT_APP } from "../core/apps";
import { splitList, type Env } from "./config-types";
import { isPlaceholder, placeholderProblems, productionProblems } from "./production-rules";
import { readSettings } from "./settings-files";
import { analyticsConfig, analyticsShape } from "./settings/analytics";
import { consoleConfig, consoleProductionProblems, consoleShape } from "./settings/console";
import { appSecrets, appsConfig, appsProblems, appsShape } from "./settings/apps";
import { catalogAppProblems, economyConfig, economyShape } from "./settings/economy";
import { liveopsDefinitions, liveopsShape } from "./settings/liveops";
import { leaderboardsConfig, leaderboardsShape } from "./settings/leaderboards";
import { paymentProductionProblems, paymentsConfig, paymentsShape } from "./settings/payments";
import { growthConfig, growthProductionProblems, growthShape } from "./settings/growth";
import { giftPushesWithoutAesKey, rewardProductionProblems, rewardsConfig, rewardsShape } from "./settings/rewards";
import { savesConfig, savesShape } from "./settings/saves";
import { platformCredentialProblems, platformsConfig, platformsShape, enabledPlatforms, platformSetting, settingsPrefix, simulatorMode } from "./settings/platforms";
import { serverConfig, serverShape } from "./settings/server";
import { sessionsConfig, sessionsShape } from "./settings/sessions";
import { socialConfig, socialShape } from "./settings/social";
import { douyinLiveConfig, douyinLiveProblems, douyinLiveShape } from "./settings/douyin-live";
import { storageConfig, storageShape } from "./settings/storage";

export { DEV_JWT_SECRET } from "./production-rules";


const settingsShape = { ...serverShape, ...sessionsShape, ...storageShape, ...platformsShape, ...appsShape, ...paymentsShape, ...socialShape, ...economyShape, ...liveopsShape, ...leaderboardsShape, ...rewardsShape, ...growthShape, ...savesShape, ...consoleShape, ...analyticsShape, ...douyinLiveShape };

export const settingsSchema = z.object(settingsShape);
export type Settings = z.output<typeof settingsSchema>;

/** Rules between settings of different areas. */
function crossFieldRules(s: Settings, ctx: z.RefinementCtx): void {
  const problem = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [key], message });
  const instances = s.INSTANCES ?? 1;
  const sharedRedis = Boolean(s.REDIS_URL || s.REDIS_CLUSTER_NODES);
  if (s.REDIS_URL && s.REDIS_CLUSTER_NODES) problem("REDIS_CLUSTER_NODES", "set either REDIS_URL or REDIS_CLUSTER_NODES, not both");
  if (instances > 1 && !sharedRedis) problem("REDIS_URL", "INSTANCES > 1 requires REDIS_URL (the in-memory cache is per process)");
  if (instances > 1 && !s.DATABASE_URL) problem("DATABASE_URL", "INSTANCES > 1 requires DATABASE_URL (SQLite is per machine and per process lock)");
  if (s.REDIS_CLUSTER_NODES && /[{}]/.test(s.CACHE_KEY_PREFIX)) {
    // Braces in the prefix would be every key's hash tag: the whole cache on one cluster node.
    problem("CACHE_KEY_PREFIX", "must not contain { or } with REDIS_CLUSTER_NODES (a hash tag there puts every key in one slot)");
  }
  if (instances > 1 && !s.PUBLIC_ADDRESS) {
    problem("PUBLIC_ADDRESS", "INSTANCES > 1 requires PUBLIC_ADDRESS (e.g. game.example.com/{port}) so room seats reach the right process");
  } else if (s.NODE_ENV === "production" && sharedRedis && !s.PUBLIC_ADDRESS) {
    // Shared Redis means rooms may be listed by other hosts: a seat for a room here must name this host.
    problem("PUBLIC_ADDRESS", "required in production with shared Redis (e.g. game.example.com/a or game.example.com/a/{port}) so seats reach the host holding the room");
  }
  if (s.STUDIO_TIME_ZONE && s.ANALYTICS_TIME_ZONE && s.STUDIO_TIME_ZONE !== s.ANALYTICS_TIME_ZONE) {
    problem("ANALYTICS_TIME_ZONE", `is the deprecated name of STUDIO_TIME_ZONE and differs from it (${s.ANALYTICS_TIME_ZONE} vs ${s.STUDIO_TIME_ZONE}): set only STUDIO_TIME_ZONE`);
  }
  if (s.REFRESH_TOKEN_TTL_SEC <= s.ACCESS_TOKEN_TTL_SEC) problem("REFRESH_TOKEN_TTL_SEC", "must be longer than ACCESS_TOKEN_TTL_SEC");
  for (const { key, message } of platformCredentialProblems(s)) problem(key, message);
  const embedded = simulatorMode(s) === "embedded";
  const apps = appsProblems(s, enabledPlatforms(s), (p) => platformSetting(s, p, "APP_ID") ?? (embedded ? p.simulatorApp.appId : undefined));
  if (apps.length > 0) problem("APPS_FILE", apps.join("; "));
  const catalogs = catalogAppProblems(s, [DEFAULT_APP, ...(s.APPS_FILE?.apps ?? []).map((a) => a.key)]);
  if (catalogs.length > 0) problem("CATALOG_FILE", catalogs.join("; "));
  // Reward ids are checked against the catalogs this deployment starts with (economyConfig's).
  const boards = leaderboardsConfig(s.LEADERBOARDS_FILE, s.APPS_FILE?.apps ?? [], s.NODE_ENV === "production", economyConfig(s).economy.catalogs);
  if (boards.problems.length > 0) problem("LEADERBOARDS_FILE", boards.problems.join("; "));
  const liveops = liveopsDefinitions(s, [DEFAULT_APP, ...(s.APPS_FILE?.apps ?? []).map((a) => a.key)], economyConfig(s).economy.catalogs);
  if (liveops.problems.length > 0) problem("LIVEOPS_FILE", liveops.problems.join("; "));
}

function toAppConfig(s: Settings) {
  const platforms = platformsConfig(s);
  return {
    ...serverConfig(s, platforms.simulator),
    ...sessionsConfig(s),
    ...storageConfig(s),
    ...platforms,
    ...appsConfig(s, platforms.platforms),
    ...paymentsConfig(s),
    ...rewardsConfig(s),
    ...growthConfig(s),
    ...socialConfig(s),
    ...economyConfig(s),
    liveops: {
      /** Each app's definitions from the settings (version 0); an operator's stored version replaces it. */
      definitions: liveopsDefinitions(s, [DEFAULT_APP, ...(s.APPS_FILE?.apps ?? []).map((a) => a.key)], economyConfig(s).economy.catalogs).definitions,
      refreshMs: s.LIVEOPS_REFRESH_MS,
    },
    /** Boards per app key (docs/leaderboards.md). */
    leaderboards: leaderboardsConfig(s.LEADERBOARDS_FILE, s.APPS_FILE?.apps ?? [], s.NODE_ENV === "production").boards,
    leaderboardTickMs: s.LEADERBOARD_TICK_MS,
    leaderboardPeriodRetentionMs: s.LEADERBOARD_PERIOD_RETENTION_DAYS * 24 * 3600_000,
    ...savesConfig(s),
    ...consoleConfig(s),
    ...analyticsConfig(s),
    ...douyinLiveConfig(s),
  };
}

function productionRules(s: Settings, ctx: z.RefinementCtx): void {
  const problems = productionProblems({
    production: s.NODE_ENV === "production",
    jwtSecret: s.JWT_SECRET,
    previousSecrets: splitList(s.JWT_PREVIOUS_SECRETS),
    simulator: simulatorMode(s),
    platformSecrets: enabledPlatforms(s).map((p) => ({ key: `${settingsPrefix(p)}_APP_SECRET`, value: platformSetting(s, p, "APP_SECRET") })),
    appSecrets: appSecrets(s),
    accessTokenRouteKey: s.ACCESS_TOKEN_ROUTE_KEY,
    accessTokenRoutePublic: s.ACCESS_TOKEN_ROUTE_PUBLIC,
    exposeSessionKey: s.EXPOSE_SESSION_KEY,
    exposeSessionKeyConfirmed: s.EXPOSE_SESSION_KEY_CONFIRMED,
    giftPushesWithoutAesKey: giftPushesWithoutAesKey(s, s.APPS_FILE?.apps ?? []),
  });
  if (s.NODE_ENV === "production") problems.push(...paymentProductionProblems(s, isPlaceholder), ...rewardProductionProblems(s, isPlaceholder), ...growthProductionProblems(s, isPlaceholder));
  if (s.NODE_ENV === "production" && s.ECONOMY_CRASH_POINT) problems.push({ key: "ECONOMY_CRASH_POINT", message: "is for fault tests only; not allowed in production" });
  problems.push(...consoleProductionProblems(s));
  problems.push(...douyinLiveProblems(s, s.NODE_ENV === "production", isPlaceholder));
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

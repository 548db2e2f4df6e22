/**
 * Settings of the platforms: which are served, their apps' credentials (each platform module
 * declares its own extra keys), the simulator, the calls to them and content security.
 */
import { z } from "zod";
import type { PlatformDefinition, PlatformSettings } from "../../platforms/platform";
import { platformDefinitions } from "../../platforms/registry";
import { bool, int, splitList } from "../config-types";

/** Platforms served when PLATFORMS is unset and the simulator is off: what every arena.env before PLATFORMS meant. */
const PLATFORMS_BEFORE_THE_SETTING = ["wechat", "douyin"];

const platformNames = platformDefinitions.map((p) => p.name) as [string, ...string[]];

export const platformsShape = {
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

  // <NAME>_APP_ID, <NAME>_APP_SECRET, <NAME>_API_BASE_URL and each module's own keys.
  ...platformSettingsShape(platformDefinitions),
};

/** What deciding the simulator and the served platforms needs; NODE_ENV comes from the server's settings. */
type PlatformsSettings = z.output<z.ZodObject<typeof platformsShape>> & { NODE_ENV: string };

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

export function settingsPrefix(platform: Pick<PlatformDefinition, "name">): string {
  return platform.name.toUpperCase();
}

/** The simulator is embedded by default outside production. */
export function simulatorMode(s: Pick<PlatformsSettings, "NODE_ENV" | "PLATFORM_SIMULATOR">): "embedded" | "off" {
  return s.PLATFORM_SIMULATOR ?? (s.NODE_ENV === "production" ? "off" : "embedded");
}

/** The platforms this server serves: PLATFORMS, else all of them beside the simulator, else WeChat and Douyin. */
export function enabledPlatforms(s: PlatformsSettings): PlatformDefinition[] {
  const names = s.PLATFORMS ?? (simulatorMode(s) === "embedded" ? platformNames : PLATFORMS_BEFORE_THE_SETTING);
  return platformDefinitions.filter((p) => names.includes(p.name));
}

/** A platform setting by name (platform keys are declared at run time, so the schema types them loosely). */
export function platformSetting(s: PlatformsSettings, platform: PlatformDefinition, suffix: string): string | undefined {
  const value = (s as Record<string, unknown>)[`${settingsPrefix(platform)}_${suffix}`];
  return typeof value === "string" ? value : undefined;
}

/** Without the simulator every served platform needs its real app id and secret. */
export function platformCredentialProblems(s: PlatformsSettings): Array<{ key: string; message: string }> {
  if (simulatorMode(s) !== "off") return [];
  return enabledPlatforms(s).flatMap((p) =>
    ["APP_ID", "APP_SECRET"]
      .filter((suffix) => !platformSetting(s, p, suffix))
      .map((suffix) => ({
        key: `${settingsPrefix(p)}_${suffix}`,
        message: `required for ${p.name} (in PLATFORMS) unless PLATFORM_SIMULATOR=embedded`,
      })),
  );
}

export function platformsConfig(s: PlatformsSettings) {
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
    simulator: simulatorMode(s),
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
  };
}

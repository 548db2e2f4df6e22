/**
 * Settings of the apps a deployment serves. The platform settings (`WECHAT_APP_ID`…) define the app
 * `default`; a studio's other games come from the JSON file named by APPS_FILE:
 * `{"apps": [{"key": "puzzle", "wechat": {"appId": "…", "appSecret": "…", "apiBaseUrl"?: "…"}, …}]}`.
 * The file is read and checked while the settings are parsed, so its problems are reported with
 * every other setting's, all of them in one message (config.ts keeps one message per setting).
 */
import fs from "node:fs";
import { z } from "zod";
import { DEFAULT_APP } from "../../core/apps";
import { checkCatalog, type Catalog } from "../../core/catalog";
import type { PlatformDefinition, PlatformSettings } from "../../platforms/platform";
import { platformDefinitions } from "../../platforms/registry";
import { bool } from "../config-types";
import { appPaymentSecrets, appPaymentsSchema, type AppPaymentsSettings } from "./payments";

/** Lowercase, short, no separators of our cache keys (`:`) or identity namespaces (`@`). */
const APP_KEY = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const platformAppSchema = z.strictObject({
  appId: z.string().trim().min(1, "is required"),
  appSecret: z.string().min(1, "is required"),
  apiBaseUrl: z.string().regex(/^https?:\/\//, "must be an http(s) URL").optional(),
  /** The keys the platform issued this app for payments (settings/payments.ts); payments stay off without them. */
  payments: appPaymentsSchema.optional(),
});

/** One app of the file: its key and one entry per platform; any other field is an unknown platform. */
const appKeySchema = z.string().regex(APP_KEY, "must be 1–32 of a-z 0-9 _ - (starting with a letter or digit)");

/** Each app is checked on its own (appProblems), so one bad app never hides another's problems. */
const appsFileSchema = z.strictObject({ apps: z.array(z.unknown()).min(1, "must list at least one app") });

export interface AppFileEntry {
  key: string;
  /** Platform name → the app's credentials there. */
  platforms: Record<string, z.output<typeof platformAppSchema>>;
  /** The app's catalog (core/catalog.ts), when the entry has one. */
  catalog?: Catalog;
  /** The app's boards as written; checked with LEADERBOARDS_FILE (settings/leaderboards.ts). */
  leaderboards?: unknown;
  /** The app's LiveOps definitions as written; checked with its catalog (settings/liveops.ts). */
  liveops?: unknown;
}

export const appsShape = {
  /**
   * Read and checked here, and never failed here: the usable apps and the file's problems go on to
   * config.ts's rules between settings (appsProblems), which report them together with the problems
   * that need the other settings (served platforms, the default app), all in one message.
   */
  APPS_FILE: z
    .string()
    .min(1)
    .transform((file) => readAppsFile(file))
    .optional(),
  LINK_APPS_BY_UNIONID: bool.default(true),
};

type AppsSettings = z.output<z.ZodObject<typeof appsShape>>;

/** The file's apps, or every problem with it (file, JSON, shape), each naming where it is. */
export function readAppsFile(file: string): { apps: AppFileEntry[]; problems: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    return { apps: [], problems: [`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { apps: [], problems: [`${file} is not valid JSON: ${(err as Error).message}`] };
  }
  const parsed = appsFileSchema.safeParse(json);
  if (!parsed.success) return { apps: [], problems: parsed.error.issues.map((i) => `${where(i.path)}${i.message}`) };

  // Every app, and every field of each, in one pass: an operator fixes the file once, not stage by stage.
  const problems: string[] = [];
  const apps: AppFileEntry[] = [];
  const names = new Set(platformDefinitions.map((p) => p.name));
  const seenKeys = new Map<string, number>();
  const seenAppIds = new Map<string, string>();
  parsed.data.apps.forEach((raw, index) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      problems.push(`apps[${index}]: must be an object with a key and one entry per platform`);
      return;
    }
    const fields = raw as Record<string, unknown>;
    const key = appKeySchema.safeParse(fields.key);
    if (!key.success) problems.push(`apps[${index}].key: ${fields.key === undefined ? "is required" : key.error.issues[0].message}`);
    const label = key.success ? key.data : `apps[${index}]`;
    if (key.success && key.data === DEFAULT_APP) problems.push(`app key "default" is reserved for the app of the platform settings`);
    else if (key.success) {
      const first = seenKeys.get(key.data);
      if (first !== undefined) problems.push(`app key "${key.data}" is listed twice (apps[${first}] and apps[${index}])`);
      else seenKeys.set(key.data, index);
    }
    const platforms: AppFileEntry["platforms"] = {};
    let catalog: Catalog | undefined;
    let platformProblems = 0;
    for (const [field, value] of Object.entries(fields)) {
      if (field === "key" || field === "leaderboards" || field === "liveops") continue;
      if (field === "catalog") {
        const checked = checkCatalog(value, `${file} apps[${index}].catalog (app ${label})`);
        if ("problems" in checked) problems.push(...checked.problems);
        else catalog = checked.catalog;
        continue;
      }
      if (!names.has(field)) {
        problems.push(`apps[${index}].${field}: unknown platform (registered: ${[...names].join(", ")})`);
        platformProblems++;
        continue;
      }
      const entry = platformAppSchema.safeParse(value);
      if (!entry.success) {
        for (const i of entry.error.issues) problems.push(`${where(["apps", index, field, ...i.path])}${i.message}`);
        platformProblems++;
        continue;
      }
      platforms[field] = entry.data;
      const owner = seenAppIds.get(`${field}\0${entry.data.appId}`);
      if (owner !== undefined) problems.push(`${label}.${field}: app id ${entry.data.appId} is already the app id of "${owner}"`);
      else seenAppIds.set(`${field}\0${entry.data.appId}`, label);
    }
    if (Object.keys(platforms).length === 0 && platformProblems === 0) problems.push(`apps[${index}]: names no platform`);
    if (key.success && key.data !== DEFAULT_APP && seenKeys.get(key.data) === index) {
      apps.push({ key: key.data, platforms, ...(catalog ? { catalog } : {}), ...(fields.leaderboards !== undefined ? { leaderboards: fields.leaderboards } : {}), ...(fields.liveops !== undefined ? { liveops: fields.liveops } : {}) });
    }
  });
  return { apps, problems };
}

/** Problems between the file's apps, the default app and the served platforms. */
export function appsProblems(
  s: AppsSettings,
  served: readonly PlatformDefinition[],
  defaultAppIds: (platform: PlatformDefinition) => string | undefined,
): string[] {
  const apps = s.APPS_FILE?.apps ?? [];
  const problems: string[] = [...(s.APPS_FILE?.problems ?? [])];
  const keys = new Set([DEFAULT_APP]);
  const appIds = new Map<string, string>();
  for (const p of served) {
    const id = defaultAppIds(p);
    if (id) appIds.set(`${p.name}\0${id}`, DEFAULT_APP);
  }
  // The file's own duplicates were reported by readAppsFile; here only what needs the other settings.
  for (const app of apps) {
    if (keys.has(app.key)) continue;
    keys.add(app.key);
    for (const [platform, entry] of Object.entries(app.platforms)) {
      if (!served.some((p) => p.name === platform)) problems.push(`${app.key}.${platform}: ${platform} is not served (PLATFORMS)`);
      const owner = appIds.get(`${platform}\0${entry.appId}`);
      if (owner === DEFAULT_APP) problems.push(`${app.key}.${platform}: app id ${entry.appId} is already the app id of "${owner}"`);
      if (owner === undefined) appIds.set(`${platform}\0${entry.appId}`, app.key);
    }
  }
  return problems;
}

/** Every placeholder secret of the file's apps, for production's rules: `key.platform` → secret. */
export function appSecrets(s: AppsSettings): Array<{ where: string; value: string }> {
  return (s.APPS_FILE?.apps ?? []).flatMap((app) =>
    Object.entries(app.platforms).flatMap(([platform, e]) => [{ where: `${app.key}.${platform}`, value: e.appSecret }, ...appPaymentSecrets(`${app.key}.${platform}`, e.payments)]),
  );
}

/** One app as the services see it: its key and its settings per platform it is on. */
export interface AppSettings {
  key: string;
  platforms: Record<string, PlatformSettings>;
  /** Payment keys per platform as the APPS_FILE entry gives them (the default app's: the payments settings). */
  payments?: Record<string, AppPaymentsSettings>;
}

/**
 * The apps, the default first. Another app's platform shares the default app's base URL and extra
 * settings unless its entry names a base URL of its own.
 */
export function appsConfig(s: AppsSettings, defaultPlatforms: Record<string, PlatformSettings>) {
  const others: AppSettings[] = (s.APPS_FILE?.apps ?? []).map((app) => ({
    key: app.key,
    platforms: Object.fromEntries(
      Object.entries(app.platforms)
        .filter(([platform]) => platform in defaultPlatforms)
        .map(([platform, e]) => {
          const base = defaultPlatforms[platform];
          const apiBaseUrl = (e.apiBaseUrl ?? base.apiBaseUrl).replace(/\/+$/, "");
          return [platform, { appId: e.appId, appSecret: e.appSecret, apiBaseUrl, extra: base.extra }];
        }),
    ),
    payments: Object.fromEntries(Object.entries(app.platforms).flatMap(([platform, e]) => (e.payments ? [[platform, e.payments]] : []))),
  }));
  return {
    /** Every app served, `default` (the platform settings) first. */
    apps: [{ key: DEFAULT_APP, platforms: defaultPlatforms }, ...others] as AppSettings[],
    /** A player's unionid leads to the same user in every app of the studio (else: users per app). */
    linkAppsByUnionid: s.LINK_APPS_BY_UNIONID,
  };
}

/** The apps for an operator (start-up line, config:check): keys and platform app ids, never a secret. */
export function describeApps(apps: readonly AppSettings[]): string {
  const each = apps.map((a) => `${a.key} (${Object.entries(a.platforms).map(([platform, p]) => `${platform} ${p.appId}`).join(", ")})`);
  return `apps: ${each.join("; ")}`;
}

function where(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "";
  return `${path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("")}: `;
}

/**
 * Settings of the economy: where each app's catalog comes from at start (CATALOG_FILE for the
 * default app, or `{"catalogs": {"<app key>": catalog}}` for several; an app's `catalog` in
 * APPS_FILE), and how often every process looks for an operator's newer catalog in the store.
 * Catalog files are read and checked with the settings, so their problems come with the others'.
 */
import fs from "node:fs";
import { z } from "zod";
import { DEFAULT_APP } from "../../core/apps";
import { ECONOMY_CRASH_POINTS } from "../../core/ports/economy-store";
import { checkCatalog, exampleCatalog, type Catalog } from "../../core/catalog";
import { int } from "../config-types";

export const economyShape = {
  /**
   * Read and checked here, and never failed here (like APPS_FILE): its problems go on to config.ts's
   * rules between settings (catalogProblems), so they come in one message with every other problem.
   */
  CATALOG_FILE: z
    .string()
    .min(1)
    .transform((file) => readCatalogFile(file))
    .optional(),
  CATALOG_REFRESH_SEC: int(1, 3600).default(5),
  /** Test-only: `<step>:<source>` (e.g. after_claim:purchase): the process kills itself there. Refused in production. */
  ECONOMY_CRASH_POINT: z
    .string()
    .regex(new RegExp(`^(${ECONOMY_CRASH_POINTS.join("|")}):[a-z_]+$`), `must be <${ECONOMY_CRASH_POINTS.join("|")}>:<source>`)
    .optional(),
};

type EconomySettings = z.output<z.ZodObject<typeof economyShape>> & { NODE_ENV?: string; APPS_FILE?: { apps: Array<{ key: string; catalog?: Catalog }> } };

/** The file's catalogs by app key, or every problem with it (each naming the file, the app and the item). */
export function readCatalogFile(file: string): { catalogs: Record<string, Catalog>; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { catalogs: {}, problems: [e.code ? `cannot read ${file}: ${e.code}` : `${file} is not valid JSON: ${e.message}`] };
  }
  const perApp = json && typeof json === "object" && "catalogs" in json ? (json as { catalogs: unknown }).catalogs : { [DEFAULT_APP]: json };
  if (!perApp || typeof perApp !== "object" || Array.isArray(perApp)) return { catalogs: {}, problems: [`${file}: catalogs must be an object of app key → catalog`] };
  const problems: string[] = [];
  const catalogs: Record<string, Catalog> = {};
  for (const [app, body] of Object.entries(perApp)) {
    const result = checkCatalog(body, app === DEFAULT_APP && !("catalogs" in (json as object)) ? file : `${file} (app ${app})`);
    if ("problems" in result) problems.push(...result.problems);
    else catalogs[app] = result.catalog;
  }
  return { catalogs, problems };
}

/** CATALOG_FILE's own problems, and the app keys it names that this deployment does not serve. */
export function catalogAppProblems(s: EconomySettings, appKeys: readonly string[]): string[] {
  const unserved = Object.keys(s.CATALOG_FILE?.catalogs ?? {})
    .filter((key) => !appKeys.includes(key))
    .map((key) => `names app "${key}", which is not served (apps: ${appKeys.join(", ")})`);
  return [...(s.CATALOG_FILE?.problems ?? []), ...unserved];
}

/** The catalogs for an operator (config:check): per app, how many items, ad units and gift packs. */
export function describeCatalogs(catalogs: Readonly<Record<string, Catalog>>): string {
  const each = Object.entries(catalogs).map(([app, c]) => `${app} (${c.items.length} items, ${c.ads.length} ad units, ${c.giftPacks.length} gift packs)`);
  return `catalogs: ${each.join("; ") || "none (nothing on sale until an operator loads one)"}`;
}

export function economyConfig(s: EconomySettings) {
  const catalogs: Record<string, Catalog> = {};
  // Development and the embedded defaults sell the example game's shop; production sells what it is told.
  if (s.NODE_ENV !== "production") catalogs[DEFAULT_APP] = exampleCatalog();
  for (const app of s.APPS_FILE?.apps ?? []) if (app.catalog) catalogs[app.key] = app.catalog;
  Object.assign(catalogs, s.CATALOG_FILE?.catalogs ?? {});
  return {
    economy: {
      /** Each app's catalog from the settings (version 0); an operator's stored version replaces it. */
      catalogs,
      /** How often each process reads the latest stored catalog version. */
      catalogRefreshSec: s.CATALOG_REFRESH_SEC,
      crashPoint: s.ECONOMY_CRASH_POINT,
    },
  };
}

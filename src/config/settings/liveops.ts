/**
 * Settings of LiveOps (docs/liveops.md): each app's definitions at start — LIVEOPS_FILE (the
 * default app's definitions, or `{"liveops": {"<app key>": definitions}}` for several) or an app's
 * `liveops` in APPS_FILE — and how often every process looks for a newer stored version. Files are
 * read and checked with the settings (against the apps' catalogs), every problem at once.
 */
import fs from "node:fs";
import { z } from "zod";
import { DEFAULT_APP } from "../../core/apps";
import type { Catalog } from "../../core/catalog";
import { checkDefinitions, exampleDefinitions, type LiveOpsDefinitions } from "../../core/liveops";
import { int } from "../config-types";

export const liveopsShape = {
  /** Read here, checked with the catalogs by config.ts's rules between settings (liveopsProblems). */
  LIVEOPS_FILE: z
    .string()
    .min(1)
    .transform((file) => readLiveOpsFile(file))
    .optional(),
  /** How often every process reads the latest stored version's number (a change is served within it). */
  LIVEOPS_REFRESH_MS: int(100, 60_000).default(1000),
};

type LiveOpsSettings = z.output<z.ZodObject<typeof liveopsShape>> & { NODE_ENV?: string; APPS_FILE?: { apps: Array<{ key: string; liveops?: unknown }> } };

/** The file's definitions by app key as written (checked later, against the catalogs), or why it could not be read. */
export function readLiveOpsFile(file: string): { file: string; perApp: Record<string, unknown>; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { file, perApp: {}, problems: [e.code ? `cannot read ${file}: ${e.code}` : `${file} is not valid JSON: ${e.message}`] };
  }
  const several = !!json && typeof json === "object" && "liveops" in json;
  const perApp = several ? (json as { liveops: unknown }).liveops : { [DEFAULT_APP]: json };
  if (!perApp || typeof perApp !== "object" || Array.isArray(perApp)) return { file, perApp: {}, problems: [`${file}: liveops must be an object of app key → definitions`] };
  return { file, perApp: perApp as Record<string, unknown>, problems: [] };
}

/**
 * Each app's definitions from the settings (version 0; an operator's stored version replaces it),
 * and every problem: unreadable files, unserved apps, and each definition's own, checked against
 * the app's catalog. Development and the embedded defaults ship the example game's definitions.
 */
export function liveopsDefinitions(s: LiveOpsSettings, appKeys: readonly string[], catalogs: Readonly<Record<string, Catalog>>): { definitions: Record<string, LiveOpsDefinitions>; problems: string[] } {
  const definitions: Record<string, LiveOpsDefinitions> = {};
  if (s.NODE_ENV !== "production") definitions[DEFAULT_APP] = exampleDefinitions();
  const problems = [...(s.LIVEOPS_FILE?.problems ?? [])];
  const take = (app: string, body: unknown, where: string) => {
    if (!appKeys.includes(app)) return problems.push(`${where}: names app "${app}", which is not served (apps: ${appKeys.join(", ")})`);
    const checked = checkDefinitions(body, where, { catalog: catalogs[app] });
    if ("problems" in checked) problems.push(...checked.problems);
    else definitions[app] = checked.definitions;
  };
  for (const app of s.APPS_FILE?.apps ?? []) if (app.liveops !== undefined) take(app.key, app.liveops, `APPS_FILE app ${app.key} liveops`);
  const file = s.LIVEOPS_FILE;
  for (const [app, body] of Object.entries(file?.perApp ?? {})) take(app, body, app === DEFAULT_APP ? file!.file : `${file!.file} (app ${app})`);
  return { definitions, problems };
}

/** The definitions for an operator (config:check): per app, how many flags, experiments and events. */
export function describeLiveOps(definitions: Readonly<Record<string, LiveOpsDefinitions>>): string {
  const each = Object.entries(definitions).map(([app, d]) => `${app} (${d.flags.length} flags, ${d.experiments.length} experiments, ${d.events.length} events)`);
  return `liveops: ${each.join("; ") || "none"}`;
}

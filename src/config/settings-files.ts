/**
 * Where settings come from, lowest priority first:
 * - production (`NODE_ENV=production`): `arena.env` (the tracked, documented template), then
 *   `arena.local.env` (the operator's real values; git-ignored), then the process environment;
 * - otherwise: `.env`, then the process environment.
 * The local file is deliberately not a `.env*` name: @colyseus/tools loads those into
 * process.env by itself when imported, which would put the file above the template's precedence
 * rules instead of under the environment. The server, `npm run config:check`, `npm run admin` and
 * ecosystem.config.js all read settings through this module.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import dotenv from "dotenv";

export type Env = Record<string, string | undefined>;

export const SETTINGS_TEMPLATE = "arena.env";
export const LOCAL_SETTINGS = "arena.local.env";
const DEVELOPMENT_SETTINGS = ".env";

/** The settings files read for this environment, lowest priority first. */
export function settingsFiles(processEnv: Env = process.env, root = projectRoot()): string[] {
  const names = processEnv.NODE_ENV === "production" ? [SETTINGS_TEMPLATE, LOCAL_SETTINGS] : [DEVELOPMENT_SETTINGS];
  return names.map((name) => path.resolve(root, name));
}

/** The raw settings: the files of the environment, overridden by real environment variables. */
export function readSettings(processEnv: Env = process.env, root = projectRoot()): Env {
  const merged: Env = {};
  for (const file of settingsFiles(processEnv, root)) {
    if (fs.existsSync(file)) Object.assign(merged, dotenv.parse(fs.readFileSync(file)));
  }
  return { ...merged, ...processEnv };
}

/**
 * Operators' commands (config:check, start:prod, admin) act on the production deployment unless
 * told otherwise: with NODE_ENV unset they read the production settings, as the pm2 processes do.
 */
export function operatorEnvironment(processEnv: Env = process.env): Env {
  return { ...processEnv, NODE_ENV: processEnv.NODE_ENV || "production" };
}

/** The process count pm2 starts: INSTANCES from the settings, else one per CPU core. */
export function processCount(settings: Env): number {
  const configured = Number(settings.INSTANCES);
  return Number.isInteger(configured) && configured > 0 ? configured : os.cpus().length;
}

/**
 * How long pm2 lets a process stop before it kills it: the shutdown budget (SHUTDOWN_TIMEOUT_MS,
 * default 10 s) plus 5 s for the rooms and connections to close, and never under 15 s. A fixed
 * 15 s killed drains that an operator had given longer. Read raw like INSTANCES: start:prod checks
 * the settings against the schema before pm2 reads this file.
 */
export function pm2KillTimeoutMs(settings: Env): number {
  const budget = Number(settings.SHUTDOWN_TIMEOUT_MS);
  return Math.max(15_000, (Number.isInteger(budget) && budget >= 0 ? budget : 10_000) + 5_000);
}

/** The folder holding package.json, whether this runs from src/ (tsx) or build/src/ (node). */
export function projectRoot(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

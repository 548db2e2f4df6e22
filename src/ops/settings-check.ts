/**
 * The check behind `npm run config:check` and the first step of `npm run start:prod`: the server's
 * own validator over the settings the production processes will read, every problem at once.
 */
import fs from "node:fs";
import { describeUserStore } from "../adapters/store/describe-user-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { describeApps } from "../config/settings/apps";
import { describeCatalogs } from "../config/settings/economy";
import { operatorEnvironment, processCount, readSettings, settingsFiles, type Env } from "../config/settings-files";

export type SettingsCheck =
  | { ok: true; config: AppConfig; instances: number; filesRead: string[]; summary: string }
  | { ok: false; problems: string[]; filesRead: string[] };

/**
 * Validates what a production start would run with: NODE_ENV=production unless the environment
 * says otherwise, and under pm2 the process count ecosystem.config.js will use.
 */
export function checkSettings(processEnv: Env = process.env, root?: string): SettingsCheck {
  const env = operatorEnvironment(processEnv);
  const filesRead = settingsFiles(env, root).filter((file) => fs.existsSync(file));
  const settings = readSettings(env, root);
  if (settings.NODE_ENV === "production") settings.INSTANCES = String(processCount(settings));
  const instances = Number(settings.INSTANCES ?? 1);
  try {
    const config = parseConfig(settings);
    return { ok: true, config, instances, filesRead, summary: describe(config, instances) };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, problems: err.problems, filesRead };
    throw err;
  }
}

/** The check as an operator reads it. */
export function formatCheck(check: SettingsCheck): string {
  const files = check.filesRead.length > 0 ? check.filesRead.join(", ") : "none (environment only)";
  if (check.ok) return `settings OK: ${check.summary}\nfiles read: ${files}`;
  const count = check.problems.length;
  return [`${count} problem${count === 1 ? "" : "s"} in the settings:`, ...check.problems.map((p) => `  - ${p}`), `files read: ${files}`].join("\n");
}

function describe(config: AppConfig, instances: number): string {
  return [
    `${config.env} mode`,
    `${instances} process${instances === 1 ? "" : "es"} from port ${config.port}`,
    describeUserStore(config.store),
    { redis: "Redis cache", "redis-cluster": "Redis Cluster cache", memory: "in-memory cache" }[config.cache.kind],
    describeApps(config.apps),
    describeCatalogs(config.economy.catalogs),
  ].join(", ");
}

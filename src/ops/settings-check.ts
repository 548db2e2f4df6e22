/**
 * The check behind `npm run config:check` and the first step of `npm run start:prod`: the server's
 * own validator over the settings the production processes will read, every problem at once.
 */
import fs from "node:fs";
import { describeUserStore } from "../adapters/store/describe-user-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { operatorEnvironment, processCount, projectRoot, readSettings, settingsFiles, type Env } from "../config/settings-files";
import { describeCatalogs } from "../config/settings/economy";
import { describeLiveOps } from "../config/settings/liveops";
import { appPayments, withSimulatorKeys } from "../config/settings/payments";
import { DEFAULT_APP } from "../core/apps";
import { unknownSettingProblems } from "./settings-vocabulary";

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
  // A misspelt name in a file would be ignored and its default used: refused, with the name meant.
  const unknown = unknownSettingProblems(filesRead, root ?? projectRoot());
  try {
    const config = parseConfig(settings);
    if (unknown.length > 0) return { ok: false, problems: unknown, filesRead };
    return { ok: true, config, instances, filesRead, summary: describe(config, instances) };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, problems: [...unknown, ...err.problems], filesRead };
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
    describeAppsAndPayments(config),
    describeCatalogs(config.economy.catalogs),
    describeLiveOps(config.liveops.definitions),
  ].join(", ");
}

/** Per app, its platforms with their app ids, and whether payments are on there: `puzzle (wechat wx_p, payments on)`. */
export function describeAppsAndPayments(config: AppConfig): string {
  const embedded = config.simulator === "embedded";
  const each = config.apps.map((app) => {
    const platforms = Object.entries(app.platforms).map(([platform, p]) => {
      const given = app.key === DEFAULT_APP ? config.payments.defaultApp[platform] : app.payments?.[platform];
      const settings = embedded && (platform === "wechat" || platform === "douyin") ? withSimulatorKeys(platform, p.appId, given) : given;
      const on = settings !== undefined && appPayments(platform, settings).wallet !== undefined;
      return `${platform} ${p.appId}, payments ${on ? "on" : "off"}`;
    });
    return `${app.key} (${platforms.join("; ")})`;
  });
  return `apps: ${each.join(" | ")}`;
}

/**
 * `npm run admin -- analytics <command>`: roll up days of analytics and export the rollups
 * (docs/analytics.md), with the server's own settings and store. A rollup recomputes its days from
 * the events, so running it beside the servers (or twice) gives the same numbers.
 */
import { parseArgs } from "node:util";
import { createAnalyticsStore } from "../adapters/store/create-analytics-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { operatorEnvironment, readSettings } from "../config/settings-files";
import { AnalyticsReports, toCsv } from "../services/analytics/analytics-reports";
import { RollupService } from "../services/analytics/rollup-service";
import { addDays, DATE } from "../services/analytics/zoned-days";

export const ANALYTICS_USAGE = `  analytics rollup [--from <YYYY-MM-DD>] [--to <YYYY-MM-DD>]
                                               recompute the daily and retention rollups of those days (default:
                                               the last 3 days, in STUDIO_TIME_ZONE); safe beside the servers
  analytics export --table daily|retention [--format csv|json] [--app <key>] [--platform <name>] [--from …] [--to …]
                                               the rollups (default: all apps and platforms, the last 30 days)`;

export async function runAnalyticsCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { from: { type: "string" }, to: { type: "string" }, table: { type: "string" }, format: { type: "string" }, app: { type: "string" }, platform: { type: "string" } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  if (command !== "rollup" && command !== "export") return usage(command ? `unknown analytics command "${command}"` : "an analytics command is required");
  if (rest.length > 0) return usage(`analytics ${command} takes no arguments`);
  const { from, to, table, format = "csv", app, platform } = parsed.values;
  for (const [name, value] of [["--from", from], ["--to", to]] as const) if (value !== undefined && (!DATE.test(value) || Number.isNaN(Date.parse(value)))) return usage(`${name} must be a day, YYYY-MM-DD`);
  if (command === "export" && table !== "daily" && table !== "retention") return usage("--table must be daily or retention");
  if (format !== "csv" && format !== "json") return usage("--format must be csv or json");

  let config: AppConfig;
  try {
    config = parseConfig(readSettings(operatorEnvironment()));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const store = await createAnalyticsStore(config.store);
  try {
    const rollups = new RollupService(store, { timeZone: config.analytics.timeZone, eventRetentionDays: config.analytics.eventRetentionDays });
    const today = rollups.today();
    if (command === "rollup") {
      const range = { from: from ?? addDays(to ?? today, -2), to: to ?? today };
      if (range.from > range.to) return usage("--from must not be after --to");
      const written = await rollups.rollup(range.from, range.to);
      const pruned = await rollups.prune();
      process.stdout.write(`${JSON.stringify({ ...range, timeZone: config.analytics.timeZone, ...written, pruned })}\n`);
      return 0;
    }
    const range = { app, platform, from: from ?? addDays(to ?? today, -29), to: to ?? today };
    const reports = new AnalyticsReports(store);
    const rows = table === "daily" ? await reports.daily(range) : await reports.retention(range);
    process.stdout.write(format === "csv" ? toCsv(rows) : `${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** `admin erase`'s part: the player's analytics events (the rollups, being counts, stay). */
export async function eraseAnalyticsEvents(config: AppConfig, userId: string): Promise<void> {
  const store = await createAnalyticsStore(config.store);
  try {
    await store.eraseUser(userId);
  } finally {
    await store.close();
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\nusage: npm run admin -- analytics <command>\n${ANALYTICS_USAGE}\n`);
  return 2;
}

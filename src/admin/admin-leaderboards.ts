/**
 * `npm run admin -- leaderboards <command>`: operators' actions on leaderboards, with the server's
 * own settings (read as every other command reads them: admin-settings.ts), store and Redis rank
 * index. Every command writes one audit line (stderr, JSON) and one entry in the console's audit
 * trail (`cli.leaderboards.<command>`, with its outcome), a board reset included.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import { MemoryCache } from "../adapters/cache/memory-cache";
import { RedisRankIndex } from "../adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../adapters/store/create-leaderboard-store";
import { sharedSqliteConnection } from "../adapters/store/create-user-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { readSettings } from "../config/settings-files";
import { DEFAULT_APP } from "../core/apps";
import { AppError } from "../core/errors";
import { createLogger } from "../logging/logger";
import { LeaderboardService } from "../services/leaderboards/leaderboard-service";
import { openAdminContext } from "./admin-context";
import { recordCliCommand } from "./admin-operators";
import { adminEnvironment, describeSettings } from "./admin-settings";

export const LEADERBOARD_USAGE = `  leaderboards list [--app <key>]             the app's boards, their current period and record count
  leaderboards records <user> [--app <key>]   the player's records on every board of the app
  leaderboards remove <board> <user> [--app <key>] [--period previous]
                                               remove a record (a cheater's) from a board's period
  leaderboards ban <board> <user> [--app <key>]   refuse the player's scores on the board, removing the current record
  leaderboards unban <board> <user> [--app <key>]
  leaderboards reset <board> [--app <key>]     end the board's period now and start the next (its rewards are paid by the servers)`;

const ARITY: Record<string, number> = { list: 0, records: 1, remove: 2, ban: 2, unban: 2, reset: 1 };

export async function runLeaderboardCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { app: { type: "string" }, by: { type: "string" }, period: { type: "string" } } });
  } catch (err) {
    return usage((err as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  if (!(command in ARITY)) return usage(command ? `unknown leaderboards command "${command}"` : "a leaderboards command is required");
  if (args.length !== ARITY[command]) return usage(`leaderboards ${command} takes ${ARITY[command]} argument(s)`);
  const period = parsed.values.period;
  if (period !== undefined && (command !== "remove" || period !== "previous")) return usage("--period previous belongs to remove");
  const app = parsed.values.app ?? DEFAULT_APP;
  const by = parsed.values.by?.trim() || os.userInfo().username;

  let config: AppConfig;
  const environment = adminEnvironment();
  try {
    config = parseConfig(readSettings(environment.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${describeSettings(environment)}\n${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (!config.apps.some((a) => a.key === app)) return usage(`no app "${app}"`);
  const stderr = pino.destination({ fd: 2, sync: true });
  const logger = createLogger({ level: config.logLevel, destination: stderr, name: "admin" });
  const audit = createLogger({ level: "info", destination: stderr, name: "admin-audit" });
  const context = await openAdminContext(config, logger, audit);
  const store = await createLeaderboardStore(config.store, config.store.kind === "sqlite" ? { sqlite: sharedSqliteConnection(config.store.path) } : {});
  const cache = config.cache;
  const index = cache.kind === "memory" ? undefined : new RedisRankIndex(cache.kind === "redis" ? cache.url : { nodes: cache.nodes }, config.cacheKeyPrefix);
  const service = new LeaderboardService({ boards: config.leaderboards, store, users: { findById: async () => null }, cache: new MemoryCache(), index, logger, periodRetentionMs: config.leaderboardPeriodRetentionMs });
  let resolved: string | undefined;
  const userId = async (reference: string) => (resolved = (await context.admin.resolve(reference)).id);
  const record = (action: string, fields: object) => audit.info({ event: "admin_action", by, action, app, ...fields }, `admin leaderboards ${action}`);
  const trail = (outcome: "ok" | "refused" | "failed", detail: Record<string, unknown> = {}) =>
    recordCliCommand(config, logger, { by, command: `leaderboards.${command}`, target: resolved ?? args.at(-1) ?? `app:${app}`, outcome, detail: { app, ...(command === "list" || command === "records" ? {} : { board: args[0] }), ...(period ? { period } : {}), ...detail } });
  try {
    let result: unknown;
    if (command === "list") result = await service.describe(app);
    else if (command === "records") result = await service.recordsOf(app, await userId(args[0]));
    else if (command === "remove") {
      service.board(app, args[0]);
      const id = await userId(args[1]);
      record("leaderboard_remove", { board: args[0], userId: id, period: period ?? "current" });
      result = { removed: await service.removeRecord(app, args[0], id, period === "previous" ? "previous" : "current") };
    } else if (command === "ban") {
      service.board(app, args[0]);
      const id = await userId(args[1]);
      record("leaderboard_ban", { board: args[0], userId: id });
      result = { banned: true, ...(await service.ban(app, args[0], id, by)) };
    } else if (command === "unban") {
      service.board(app, args[0]);
      const id = await userId(args[1]);
      record("leaderboard_unban", { board: args[0], userId: id });
      await service.unban(app, args[0], id);
      result = { banned: false };
    } else {
      service.board(app, args[0]);
      const reset = await service.reset(app, args[0], by);
      record("leaderboard_reset", { board: args[0], period: reset.period.seq, started: reset.started });
      result = reset;
    }
    await trail("ok", command === "reset" ? { period: (result as { period: { seq: number } }).period.seq } : {});
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    await trail(err instanceof AppError && err.status < 500 ? "refused" : "failed", { code: err instanceof AppError ? err.code : "internal_error" });
    if (err instanceof AppError && err.status < 500) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await index?.close();
    await store.close();
    await context.close();
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\nusage: npm run admin -- leaderboards <command> [--by <name>]\n${LEADERBOARD_USAGE}\n`);
  return 2;
}


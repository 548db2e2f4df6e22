/**
 * `npm run admin -- saves <command>`: operators read, edit and delete a player's cloud saves
 * (docs/saves.md) through the same service the servers use — an edit is compare-and-set on the
 * version the operator read, so it never overwrites a write the operator did not see. Every change
 * writes one audit line (stderr, JSON).
 */
import os from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { operatorEnvironment, readSettings } from "../config/settings-files";
import { DEFAULT_APP } from "../core/apps";
import { AppError } from "../core/errors";
import { createLogger } from "../logging/logger";
import { openAdminContext } from "./admin-context";

export const SAVES_USAGE = `  saves list <user> <collection> [--app <key>] [--cursor <key>]   the player's objects of a collection
  saves get <user> <collection> <key> [--app <key>]                one object with its version
  saves put <user> <collection> <key> --value <json> (--version <n> | --create) [--app <key>]
                                               change an object from the version read (or create it)
  saves delete <user> <collection> <key> --version <n> [--app <key>]`;

const ARITY: Record<string, number> = { list: 2, get: 3, put: 3, delete: 3 };

export async function runSavesCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { app: { type: "string" }, by: { type: "string" }, cursor: { type: "string" }, value: { type: "string" }, version: { type: "string" }, create: { type: "boolean" } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values } = parsed;
  const [command, reference, collection, key, ...extra] = parsed.positionals;
  if (!(command in ARITY)) return usage(command ? `unknown saves command "${command}"` : "a saves command is required");
  if ([reference, collection, key].filter((x) => x !== undefined).length !== ARITY[command] || extra.length > 0) return usage(`saves ${command} takes ${ARITY[command]} argument(s)`);
  const version = values.version === undefined ? undefined : Number(values.version);
  if (version !== undefined && (!Number.isSafeInteger(version) || version < 1)) return usage("--version must be a positive whole number");
  if (command === "put" && (values.value === undefined || (version === undefined) === (values.create !== true))) return usage("saves put needs --value and one of --version or --create");
  if (command === "delete" && version === undefined) return usage("saves delete needs --version");
  let value: unknown;
  if (values.value !== undefined) {
    try {
      value = JSON.parse(values.value);
    } catch (err) {
      return usage(`--value is not JSON: ${(err as Error).message}`);
    }
  }
  const app = values.app ?? DEFAULT_APP;
  const by = values.by?.trim() || os.userInfo().username;

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
  if (!config.apps.some((a) => a.key === app)) return usage(`no app "${app}"`);
  const stderr = pino.destination({ fd: 2, sync: true });
  const logger = createLogger({ level: config.logLevel, destination: stderr, name: "admin" });
  const audit = createLogger({ level: "info", destination: stderr, name: "admin-audit" });
  const context = await openAdminContext(config, logger, audit);
  try {
    const saves = await context.saves();
    const userId = (await context.admin.resolve(reference)).id;
    const record = (action: string, fields: object) => audit.info({ event: "admin_action", by, action, app, userId, collection, key, ...fields }, `admin saves ${action}`);
    let result: unknown;
    if (command === "list") result = await saves.list(app, userId, { collection, limit: 100, cursor: values.cursor });
    else if (command === "get") result = await saves.get(app, userId, { collection, key });
    else if (command === "put") {
      // Operators write as the server does: server collections too.
      result = await saves.put(app, userId, { collection, key, value, version }, "server");
      record("save_put", { version: (result as { version: number }).version });
    } else {
      result = await saves.delete(app, userId, { collection, key, version }, "server");
      record("save_delete", { version: (result as { version: number }).version });
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      process.stderr.write(`${err.message}${err.code === "version_conflict" ? ` (version now: ${String(err.data.version)})` : ""}\n`);
      return 1;
    }
    throw err;
  } finally {
    await context.close();
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\nusage: npm run admin -- saves <command> [--by <name>]\n${SAVES_USAGE}\n`);
  return 2;
}

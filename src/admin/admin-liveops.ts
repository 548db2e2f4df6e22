/**
 * `npm run admin -- liveops publish|show|history|rollback --app <key>` (docs/liveops.md): an app's
 * LiveOps definitions as versions in the store; every server process serves a new one within
 * LIVEOPS_REFRESH_MS. A publish is checked whole (every problem listed, nothing stored on any);
 * publishes and rollbacks are recorded in the audit trail.
 */
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { createLiveOpsStore } from "../adapters/store/create-liveops-store";
import type { AppConfig } from "../config/config";
import { DEFAULT_APP } from "../core/apps";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import { openOperatorStore } from "../server/operator-wiring";
import { AuditLog } from "../services/console/audit-log";
import { LiveOpsService } from "../services/liveops/liveops-service";
import { openAdminEconomy } from "./admin-economy";

export const LIVEOPS_USAGE = `usage: npm run admin -- liveops <command> [--app <key>] [--by <name>]
  liveops publish <file.json> [--expect-version <n>]   check and store the definitions as the app's next version
  liveops show                                         the version in use and its definitions
  liveops history                                      the stored versions, newest first
  liveops rollback --to <version>                      publish an older version's content again as the next version`;

type Write = (text: string) => void;

export async function runLiveOpsCommand(argv: string[], config: AppConfig, logger: Logger, out: Write, err: Write): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { app: { type: "string" }, by: { type: "string" }, to: { type: "string" }, "expect-version": { type: "string" } } });
  } catch (e) {
    err(`${(e as Error).message}\n${LIVEOPS_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [action, file] = positionals;
  const app = values.app ?? DEFAULT_APP;
  const by = values.by?.trim() || os.userInfo().username;
  const usage = (problem: string) => (err(`${problem}\n${LIVEOPS_USAGE}\n`), 2);
  if (!["publish", "show", "history", "rollback"].includes(action ?? "")) return usage(action ? `unknown liveops command "${action}"` : "a liveops command is required");
  if (action === "publish" && (!file || positionals.length !== 2)) return usage("liveops publish needs one file");
  if (action !== "publish" && positionals.length !== 1) return usage(`liveops ${action} takes no file`);
  const to = Number(values.to);
  if (action === "rollback" && !(values.to && Number.isSafeInteger(to) && to >= 0)) return usage("liveops rollback needs --to <version>");
  const expect = values["expect-version"] === undefined ? undefined : Number(values["expect-version"]);
  if (expect !== undefined && !(Number.isSafeInteger(expect) && expect >= 0)) return usage("--expect-version must be a version number");
  if (!config.apps.some((a) => a.key === app)) return usage(`no app "${app}" (apps: ${config.apps.map((a) => a.key).join(", ")})`);

  const store = await createLiveOpsStore(config.store);
  const economy = await openAdminEconomy(config, logger);
  const facts = async () => ({ payer: false, totalPaid: 0, leaderboardBest: {}, properties: {} });
  const liveops = new LiveOpsService(store, config.liveops.definitions, config.apps.map((a) => a.key), facts, (key) => economy.catalogs.get(key).catalog, logger);
  try {
    await liveops.refresh();
    if (action === "show") return write(out, liveops.current(app));
    if (action === "history") return write(out, await liveops.history(app, { limit: 50 }));
    const operators = await openOperatorStore(config, logger);
    const audit = new AuditLog(operators, logger);
    try {
      const saved = action === "publish" ? await liveops.publish(app, readDefinitions(file!, app), by, expect) : await liveops.rollback(app, to, by);
      await audit.record({ actor: by, via: "cli", action: `liveops.${action}`, target: app, outcome: "ok", detail: { app, version: saved.version, ...(action === "rollback" ? { from: to } : {}) } });
      return write(out, { app, ...saved });
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      await audit.record({ actor: by, via: "cli", action: `liveops.${action}`, target: app, outcome: "refused", detail: { app, code: e.code } });
      const problems = (e.data as { problems?: string[] } | undefined)?.problems;
      err(problems ? `${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was published, the running version stays:\n${problems.map((p) => `  - ${p}`).join("\n")}\n` : `${e.code}: ${e.message}\n`);
      return 1;
    } finally {
      await operators.close();
    }
  } finally {
    await economy.close();
    await store.close();
  }
}

function write(out: Write, value: unknown): number {
  out(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
}

/** The file's definitions; a file of several apps' ({"liveops": {...}}, as LIVEOPS_FILE) gives the one of --app. */
function readDefinitions(file: string, app: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new AppError("invalid_request", { message: `cannot read ${file}: ${(e as Error).message}` });
  }
  if (body && typeof body === "object" && "liveops" in body) body = (body as { liveops: Record<string, unknown> }).liveops[app];
  if (body === undefined) throw new AppError("invalid_request", { message: `${file} has no definitions for app ${app}` });
  return body;
}

/**
 * `npm run admin -- audit prune [--days <n>]`: removes the console's audit entries older than the
 * retention (CONSOLE_AUDIT_RETENTION_DAYS, or --days), as every server with the console on does
 * each hour: for deployments with the console off, or to apply a shorter retention now (a cron job).
 * The prune itself is recorded in the audit trail.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { openOperatorStore } from "../server/operator-wiring";
import type { AppConfig } from "../config/config";
import type { Logger } from "../logging/logger";
import { AuditLog } from "../services/console/audit-log";
import { pruneAudit } from "../services/console/audit-retention";

export const AUDIT_USAGE = `usage: npm run admin -- audit prune [--days <n>] [--by <name>]
  audit prune [--days <n>]                                     remove audit entries older than n days (default: CONSOLE_AUDIT_RETENTION_DAYS; 0 keeps all)`;

type Write = (text: string) => void;

export async function runAuditCommand(argv: string[], config: AppConfig, logger: Logger, out: Write, err: Write): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { days: { type: "string" }, by: { type: "string" } } });
  } catch (e) {
    err(`${(e as Error).message}\n${AUDIT_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== "prune") {
    err(`${positionals[0] ? `unknown audit command "${positionals.join(" ")}"` : "an audit command is required"}\n${AUDIT_USAGE}\n`);
    return 2;
  }
  const days = values.days === undefined ? config.console.auditRetentionDays : Number(values.days);
  if (!Number.isInteger(days) || days < 0 || days > 36_500) {
    err(`--days must be a whole number of days, 0 to 36500\n${AUDIT_USAGE}\n`);
    return 2;
  }
  const by = values.by?.trim() || os.userInfo().username;
  const store = await openOperatorStore(config, logger);
  try {
    const result = await pruneAudit(store, days);
    await new AuditLog(store, logger).record({ actor: by, via: "cli", action: "audit.prune", target: null, outcome: "ok", detail: { days, ...result } });
    out(`${JSON.stringify(days === 0 ? { ...result, note: "retention 0: every entry is kept" } : result, null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

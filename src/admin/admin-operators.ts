/**
 * `npm run admin -- operator add|list|disable|enable|reset|role`: the console's operator accounts. `add`
 * and `reset` print a one-time password (changed at first sign-in) and, with --totp (always for an
 * admin in production), the otpauth:// link for the authenticator app: shown once, here only.
 * Every command is recorded in the console's audit trail (via "cli").
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { openOperatorStore } from "../server/operator-wiring";
import type { AppConfig } from "../config/config";
import { AppError } from "../core/errors";
import { OPERATOR_ROLES, type AuditOutcome, type OperatorRole, type OperatorStore } from "../core/ports/operator-store";
import type { Logger } from "../logging/logger";
import { AuditLog } from "../services/console/audit-log";
import { OperatorAccounts } from "../services/console/operator-accounts";

export const OPERATOR_USAGE = `usage: npm run admin -- operator <add|list|disable|enable|reset|role> [name] [options] [--by <name>]
  operator add <name> --role <viewer|support|admin> [--totp]   a new operator with a one-time password
  operator list                                                every operator, role and state
  operator disable <name>                                      refuse its sign-in and end its sessions
  operator enable <name>                                       allow its sign-in again
  operator reset <name> [--totp]                               a new one-time password (and TOTP seed), ending its sessions
  operator role <name> <viewer|support|admin>                  change its role, ending its sessions (never the last active admin's away)`;

type Write = (text: string) => void;

export async function runOperatorCommand(argv: string[], config: AppConfig, logger: Logger, out: Write, err: Write): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { role: { type: "string" }, totp: { type: "boolean" }, by: { type: "string" } } });
  } catch (e) {
    err(`${(e as Error).message}\n${OPERATOR_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, name, ...rest] = positionals;
  // `role` takes the role as a second positional; every other command takes one name.
  const role = command === "role" ? rest[0] : undefined;
  const extra = command === "role" ? rest.slice(1) : rest;
  const usage = (problem: string) => {
    err(`${problem}\n${OPERATOR_USAGE}\n`);
    return 2;
  };
  if (!["add", "list", "disable", "enable", "reset", "role"].includes(command ?? "")) return usage(command ? `unknown operator command "${command}"` : "an operator command is required");
  if (command === "role" && !OPERATOR_ROLES.includes(role as OperatorRole)) return usage(`role needs <name> <${OPERATOR_ROLES.join("|")}>`);
  if (command === "list" ? name !== undefined : !name || extra.length > 0) return usage(command === "list" ? "list takes no name" : `${command} needs exactly one operator name`);
  if (command === "add" && !OPERATOR_ROLES.includes(values.role as OperatorRole)) return usage(`add needs --role ${OPERATOR_ROLES.join("|")}`);
  if (command !== "add" && values.role !== undefined) return usage("--role belongs to add");
  if (values.totp && command !== "add" && command !== "reset") return usage("--totp belongs to add and reset");
  const by = values.by?.trim() || os.userInfo().username;

  const store = await openOperatorStore(config, logger);
  const audit = new AuditLog(store, logger);
  const accounts = new OperatorAccounts(store, { production: config.env === "production" });
  const action = `operator.${command}`;
  const target = name?.trim().toLowerCase() ?? null;
  try {
    const result = await run(accounts, store, command!, name, { ...values, role: (role ?? values.role) as OperatorRole | undefined });
    await audit.record({ actor: by, via: "cli", action, target, outcome: "ok", detail: role ?? values.role ? { role: role ?? values.role } : {} });
    out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (e) {
    await audit.record({ actor: by, via: "cli", action, target, outcome: e instanceof AppError && e.status < 500 ? "refused" : "failed", detail: { code: e instanceof AppError ? e.code : "internal_error" } });
    if (e instanceof AppError && e.status < 500) {
      err(`${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await store.close();
  }
}

async function run(accounts: OperatorAccounts, _store: OperatorStore, command: string, name: string | undefined, values: { role?: OperatorRole; totp?: boolean }): Promise<unknown> {
  switch (command) {
    case "add":
      return accounts.add(name!, values.role!, { totp: values.totp });
    case "list":
      return accounts.list();
    case "disable":
      return accounts.setDisabled(name!, true);
    case "enable":
      return accounts.setDisabled(name!, false);
    case "role":
      return accounts.setRole(name!, values.role!);
    default:
      return accounts.reset(name!, { totp: values.totp });
  }
}

/** One audit entry for a player command of the CLI (main.ts), whatever its outcome. */
export async function recordCliCommand(config: AppConfig, logger: Logger, entry: { by: string; command: string; target: string | null; outcome: AuditOutcome; detail?: Record<string, unknown> }): Promise<void> {
  let store: OperatorStore | undefined;
  try {
    store = await openOperatorStore(config, logger);
    await new AuditLog(store, logger).record({ actor: entry.by, via: "cli", action: `cli.${entry.command}`, target: entry.target, outcome: entry.outcome, detail: entry.detail ?? {} });
  } catch (err) {
    logger.error({ err, event: "operator_audit_unrecorded", ...entry }, "the command could not be recorded in the audit trail");
  } finally {
    await store?.close().catch(() => undefined);
  }
}

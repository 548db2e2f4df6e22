/**
 * The audit trail of operators' changes (console and CLI): who, what, on whom, when, the outcome.
 * Recording never fails the action it describes: a store that cannot take the entry is logged as
 * an error with the entry itself, so the fact survives in the log.
 */
import crypto from "node:crypto";
import type { AuditEntry, AuditOutcome, AuditQuery, OperatorStore } from "../../core/ports/operator-store";
import type { Logger } from "../../logging/logger";

export interface AuditRecord {
  actor: string;
  via: AuditEntry["via"];
  action: string;
  target?: string | null;
  outcome: AuditOutcome;
  detail?: Record<string, unknown>;
}

export class AuditLog {
  constructor(
    private readonly store: Pick<OperatorStore, "appendAudit" | "searchAudit">,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async record(record: AuditRecord): Promise<void> {
    const entry: AuditEntry = {
      id: crypto.randomUUID(),
      at: new Date(this.now()).toISOString(),
      actor: record.actor,
      via: record.via,
      action: record.action,
      target: record.target ?? null,
      outcome: record.outcome,
      detail: record.detail ?? {},
    };
    // One log line as well: the log is where alerts look, the store where the console searches.
    this.logger.info({ event: "operator_audit", ...entry }, `audit ${entry.action} ${entry.outcome}`);
    try {
      await this.store.appendAudit(entry);
    } catch (err) {
      this.logger.error({ err, event: "operator_audit_unrecorded", entry }, "an audit entry could not be stored");
    }
  }

  search(query: AuditQuery): Promise<AuditEntry[]> {
    return this.store.searchAudit(query);
  }
}

const CSV_COLUMNS = ["at", "actor", "via", "action", "target", "outcome", "detail"] as const;

/** RFC 4180 CSV; a cell starting with = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const cell = (value: unknown) => {
    let text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [CSV_COLUMNS.join(",")];
  for (const e of entries) lines.push(CSV_COLUMNS.map((c) => cell(e[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

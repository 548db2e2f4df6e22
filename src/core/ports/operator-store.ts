/**
 * Operators of the console (support and operations staff), kept apart from players, and the audit
 * trail of what they and the admin CLI did. One contract suite runs over every backend
 * (test/integration/operator-store.contract.test.ts).
 */

export const OPERATOR_ROLES = ["viewer", "support", "admin"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export interface Operator {
  id: string;
  /** Sign-in name: unique, lower case. */
  name: string;
  role: OperatorRole;
  /** KDF hash (password-hasher.ts); never leaves the service. */
  passwordHash: string;
  /** A one-time password from `operator add|reset` must be replaced at first sign-in. */
  mustChangePassword: boolean;
  /** Base32 TOTP seed (RFC 6238), or null without a second factor; never leaves the service. */
  totpSecret: string | null;
  disabled: boolean;
  /** Raised whenever the operator's sessions must end (disable, reset, password change). */
  sessionEpoch: number;
  createdAt: string;
  updatedAt: string;
}

export type NewOperator = Omit<Operator, "updatedAt" | "disabled" | "sessionEpoch">;
export type OperatorChanges = Partial<Pick<Operator, "role" | "passwordHash" | "mustChangePassword" | "totpSecret" | "disabled" | "sessionEpoch">>;

/**
 * `started`: written before a change that moves value, so one the process died in is still on record.
 * `repeated`: an idempotent change sent again (the same grant or mail id): nothing new was given.
 */
export const AUDIT_OUTCOMES = ["ok", "refused", "failed", "started", "repeated"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export interface AuditEntry {
  id: string;
  /** ISO 8601 UTC. */
  at: string;
  /** The operator's name (console) or the `--by` name (CLI); "anonymous" for a refused sign-in of nobody known. */
  actor: string;
  /** Where it came from: the console or the admin CLI. */
  via: "console" | "cli";
  /** What was attempted, e.g. `player.disable`, `order.refund`, `operator.add`, `session.sign_in`. */
  action: string;
  /** On whom or what: a user id, an order id, an operator name; null when nothing in particular. */
  target: string | null;
  outcome: AuditOutcome;
  /** Public facts of the action (reason, coins, error code); never a password, seed, key or token. */
  detail: Record<string, unknown>;
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  target?: string;
  outcome?: AuditOutcome;
  /** Inclusive lower and exclusive upper bound on `at` (ISO). */
  since?: string;
  until?: string;
  /** Newest first; at most this many (default 100, at most 1000). */
  limit?: number;
}

export interface OperatorStore {
  migrate(): Promise<void>;
  /** Creates the operator, or answers "name_taken" (nothing written). */
  createOperator(operator: NewOperator): Promise<Operator | "name_taken">;
  findById(id: string): Promise<Operator | null>;
  findByName(name: string): Promise<Operator | null>;
  /** Every operator, by name. */
  list(): Promise<Operator[]>;
  /**
   * Applies the changes and sets updatedAt; null when there is no such operator. Last writer wins,
   * unless `ifSeed` is given: then only while the stored TOTP seed is still exactly that (else null).
   */
  update(id: string, changes: OperatorChanges, at: string, ifSeed?: string): Promise<Operator | null>;
  /** Appends one entry; entries are never changed, and removed only by `pruneAudit` (the retention). */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** Removes up to `limit` entries older than `before` (ISO), oldest first; answers how many it removed. */
  pruneAudit(before: string, limit: number): Promise<number>;
  /** Entries matching every given filter, newest first. */
  searchAudit(query: AuditQuery): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

/**
 * Operators and the audit trail over Kysely, for SQLite and PostgreSQL. The tables are created here
 * ("if not exists", under an advisory lock on PostgreSQL so processes starting together do not race),
 * apart from the user store's migrations: the console's schema evolves on its own.
 */
import { sql, type ColumnType, type Kysely, type Selectable } from "kysely";
import type { AuditEntry, AuditQuery, NewOperator, Operator, OperatorChanges, OperatorRole, OperatorStore } from "../../../core/ports/operator-store";
import type { SqlDialect } from "./migrations";

type Timestamp = ColumnType<Date | string, string, string>;

interface OperatorsTable {
  id: string;
  name: string;
  role: string;
  password_hash: string;
  must_change_password: number;
  totp_secret: string | null;
  disabled: number;
  session_epoch: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface AuditTable {
  id: string;
  at: Timestamp;
  actor: string;
  via: string;
  action: string;
  target: string | null;
  outcome: string;
  detail: string;
}

export interface OperatorDatabase {
  console_operators: OperatorsTable;
  console_audit: AuditTable;
}

const PG_LOCK_KEY = 7_413_290_118_624_038n;
const MAX_AUDIT_LIMIT = 1000;

export class KyselyOperatorStore implements OperatorStore {
  constructor(
    private readonly db: Kysely<OperatorDatabase>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  async migrate(): Promise<void> {
    const create = async (db: Kysely<any>) => {
      const timestamp = this.dialect === "postgres" ? "timestamptz" : "text";
      await db.schema
        .createTable("console_operators")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull().unique())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("must_change_password", "integer", (c) => c.notNull())
        .addColumn("totp_secret", "text")
        .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("session_epoch", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("console_audit")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("at", timestamp, (c) => c.notNull())
        .addColumn("actor", "text", (c) => c.notNull())
        .addColumn("via", "text", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("target", "text")
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("detail", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("console_audit_at_idx").ifNotExists().on("console_audit").columns(["at", "id"]).execute();
    };
    if (this.dialect === "sqlite") return create(this.db as Kysely<any>);
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${PG_LOCK_KEY})`.execute(trx);
      await create(trx as Kysely<any>);
    });
  }

  async createOperator(operator: NewOperator): Promise<Operator | "name_taken"> {
    const row = await this.db
        .insertInto("console_operators")
        .values({
          id: operator.id,
          name: operator.name,
          role: operator.role,
          password_hash: operator.passwordHash,
          must_change_password: operator.mustChangePassword ? 1 : 0,
          totp_secret: operator.totpSecret,
          disabled: 0,
          session_epoch: 0,
          created_at: operator.createdAt,
          updated_at: operator.createdAt,
        })
        // The name's unique key decides; a taken one writes nothing.
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
    return row ? toOperator(row) : "name_taken";
  }

  async findById(id: string): Promise<Operator | null> {
    const row = await this.db.selectFrom("console_operators").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toOperator(row) : null;
  }

  async findByName(name: string): Promise<Operator | null> {
    const row = await this.db.selectFrom("console_operators").selectAll().where("name", "=", name).executeTakeFirst();
    return row ? toOperator(row) : null;
  }

  async list(): Promise<Operator[]> {
    const rows = await this.db.selectFrom("console_operators").selectAll().orderBy("name").execute();
    return rows.map(toOperator);
  }

  async update(id: string, changes: OperatorChanges, at: string, ifSeed?: string): Promise<Operator | null> {
    const values: Record<string, unknown> = { updated_at: at };
    if (changes.role !== undefined) values.role = changes.role;
    if (changes.passwordHash !== undefined) values.password_hash = changes.passwordHash;
    if (changes.mustChangePassword !== undefined) values.must_change_password = changes.mustChangePassword ? 1 : 0;
    if (changes.totpSecret !== undefined) values.totp_secret = changes.totpSecret;
    if (changes.disabled !== undefined) values.disabled = changes.disabled ? 1 : 0;
    if (changes.sessionEpoch !== undefined) values.session_epoch = changes.sessionEpoch;
    let query = this.db.updateTable("console_operators").set(values).where("id", "=", id);
    if (ifSeed !== undefined) query = query.where("totp_secret", "=", ifSeed);
    const row = await query.returningAll().executeTakeFirst();
    return row ? toOperator(row) : null;
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto("console_audit")
      .values({ ...entry, detail: JSON.stringify(entry.detail) })
      .execute();
  }

  async pruneAudit(before: string, limit: number): Promise<number> {
    // In batches (the caller loops): one statement over years of entries would hold the table too long.
    const rows = await this.db.selectFrom("console_audit").select("id").where("at", "<", before).orderBy("at").limit(limit).execute();
    if (rows.length === 0) return 0;
    const result = await this.db.deleteFrom("console_audit").where("id", "in", rows.map((r) => r.id)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async searchAudit(query: AuditQuery): Promise<AuditEntry[]> {
    let q = this.db.selectFrom("console_audit").selectAll();
    if (query.actor) q = q.where("actor", "=", query.actor);
    if (query.action) q = q.where("action", "=", query.action);
    if (query.target) q = q.where("target", "=", query.target);
    if (query.outcome) q = q.where("outcome", "=", query.outcome);
    if (query.since) q = q.where("at", ">=", query.since);
    if (query.until) q = q.where("at", "<", query.until);
    const limit = Math.min(Math.max(query.limit ?? 100, 1), MAX_AUDIT_LIMIT);
    const rows = await q.orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute();
    return rows.map(toAuditEntry);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

function toOperator(row: Selectable<OperatorsTable>): Operator {
  return {
    id: row.id,
    name: row.name,
    role: row.role as OperatorRole,
    passwordHash: row.password_hash,
    mustChangePassword: Boolean(row.must_change_password),
    totpSecret: row.totp_secret,
    disabled: Boolean(row.disabled),
    sessionEpoch: Number(row.session_epoch),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function toAuditEntry(row: Selectable<AuditTable>): AuditEntry {
  let detail: Record<string, unknown> = {};
  try {
    detail = JSON.parse(row.detail) as Record<string, unknown>;
  } catch {
    // a row written by hand; the rest of the entry still reads
  }
  return { id: row.id, at: iso(row.at), actor: row.actor, via: row.via as AuditEntry["via"], action: row.action, target: row.target, outcome: row.outcome as AuditEntry["outcome"], detail };
}

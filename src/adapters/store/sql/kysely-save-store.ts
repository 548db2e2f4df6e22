/**
 * The SaveStore over Kysely, for SQLite and PostgreSQL. Each change is one conditional statement
 * (UPDATE … WHERE version = ?, or INSERT … ON CONFLICT DO UPDATE … WHERE the row is a tombstone),
 * which PostgreSQL re-checks on the newest row once a concurrent writer's lock is released and
 * SQLite runs alone: of the writers that read one version, exactly one changes a row. A batch runs
 * its changes in one transaction, in key order (no two batches wait on each other's rows in
 * opposite orders), and rolls back at the first change that does not apply.
 */
import type { Kysely, Transaction } from "kysely";
import type { SaveChange, SaveObject, SavePage, SaveRef, SaveStore, SaveWriteResult, SaveWritten } from "../../../core/ports/save-store";
import { migrateFeatureToLatest, type SqlDialect } from "./migrations";
import { SAVE_MIGRATIONS } from "./save-schema";

interface SaveRow {
  app: string;
  owner_id: string;
  collection: string;
  key: string;
  value: string | null;
  version: number;
  deleted: number;
  permission_read: string;
  permission_write: string;
  created_at: string;
  updated_at: string;
}

export interface SaveDatabase {
  saves: SaveRow;
}

type Executor = Kysely<SaveDatabase> | Transaction<SaveDatabase>;
type Applied = { ok: true; written: SaveWritten } | { ok: false; current: number | null };

/** How often a last-writer-wins change re-reads after losing to a concurrent writer. */
const ANY_ATTEMPTS = 50;

class Conflict extends Error {
  constructor(
    readonly index: number,
    readonly current: number | null,
  ) {
    super("save conflict");
  }
}

export class KyselySaveStore implements SaveStore {
  constructor(
    private readonly db: Kysely<SaveDatabase>,
    private readonly dialect: SqlDialect,
    /** Closes the database when the store owns it; one sharing the user store's SQLite connection leaves that to the store. */
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateFeatureToLatest(this.db as Kysely<any>, this.dialect, "save_migration", SAVE_MIGRATIONS);
  }

  async read(ref: SaveRef): Promise<SaveObject | null> {
    const row = await this.row(this.db, ref);
    return row && !row.deleted ? toObject(row) : null;
  }

  async write(changes: SaveChange[]): Promise<SaveWriteResult> {
    if (changes.length === 1) {
      const applied = await this.apply(this.db, changes[0]);
      return applied.ok ? { ok: true, written: [applied.written] } : { ok: false, index: 0, current: applied.current };
    }
    const order = changes.map((_, i) => i).sort((a, b) => compareRefs(changes[a], changes[b]));
    try {
      const written = await this.db.transaction().execute(async (trx) => {
        const out: SaveWritten[] = new Array(changes.length);
        for (const i of order) {
          const applied = await this.apply(trx, changes[i]);
          if (!applied.ok) throw new Conflict(i, applied.current);
          out[i] = applied.written;
        }
        return out;
      });
      return { ok: true, written };
    } catch (err) {
      if (err instanceof Conflict) return { ok: false, index: err.index, current: err.current };
      throw err;
    }
  }

  async list(app: string, ownerId: string, collection: string, options: { limit: number; after?: string; publicOnly?: boolean }): Promise<SavePage> {
    let query = this.db.selectFrom("saves").selectAll().where("app", "=", app).where("owner_id", "=", ownerId).where("collection", "=", collection).where("deleted", "=", 0);
    if (options.after !== undefined) query = query.where("key", ">", options.after);
    if (options.publicOnly) query = query.where("permission_read", "=", "public");
    const rows = await query.orderBy("key").limit(options.limit + 1).execute();
    const objects = rows.slice(0, options.limit).map(toObject);
    return rows.length > options.limit ? { objects, next: objects[objects.length - 1].key } : { objects };
  }

  async count(app: string, ownerId: string): Promise<number> {
    const row = await this.db
      .selectFrom("saves")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("app", "=", app)
      .where("owner_id", "=", ownerId)
      .where("deleted", "=", 0)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async listByOwner(ownerId: string): Promise<SaveObject[]> {
    const rows = await this.db.selectFrom("saves").selectAll().where("owner_id", "=", ownerId).where("deleted", "=", 0).orderBy("app").orderBy("collection").orderBy("key").execute();
    return rows.map(toObject);
  }

  async erase(ownerId: string): Promise<void> {
    await this.db.deleteFrom("saves").where("owner_id", "=", ownerId).execute();
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private row(db: Executor, ref: SaveRef): Promise<SaveRow | undefined> {
    return db
      .selectFrom("saves")
      .selectAll()
      .where("app", "=", ref.app)
      .where("owner_id", "=", ref.ownerId)
      .where("collection", "=", ref.collection)
      .where("key", "=", ref.key)
      .executeTakeFirst();
  }

  private async apply(db: Executor, change: SaveChange): Promise<Applied> {
    if (change.expected !== "any") return this.applyExpecting(db, change, change.expected);
    // Last writer wins: a compare-and-set on what was just read, again while others get in first.
    for (let attempt = 0; attempt < ANY_ATTEMPTS; attempt++) {
      const row = await this.row(db, change);
      const live = row && !row.deleted ? row.version : null;
      if (change.kind === "delete" && live === null) return { ok: false, current: null };
      const applied = await this.applyExpecting(db, change, live ?? "absent");
      if (applied.ok) return applied;
    }
    // A retryable 503 (unavailable-errors.ts), never a 500: the write did not happen.
    throw Object.assign(new Error(`could not write ${change.collection}/${change.key}: ${ANY_ATTEMPTS} concurrent writers got in first`), { code: "STORE_CONTENTION" });
  }

  private async applyExpecting(db: Executor, change: SaveChange, expected: number | "absent"): Promise<Applied> {
    let version: number | undefined;
    if (change.kind === "delete") {
      if (expected === "absent") return { ok: false, current: await this.currentVersion(db, change) };
      const row = await db
        .updateTable("saves")
        .set((eb) => ({ value: null, deleted: 1, version: eb("version", "+", 1), updated_at: change.at }))
        .where("app", "=", change.app)
        .where("owner_id", "=", change.ownerId)
        .where("collection", "=", change.collection)
        .where("key", "=", change.key)
        .where("version", "=", expected)
        .where("deleted", "=", 0)
        .returning("version")
        .executeTakeFirst();
      version = row?.version;
    } else if (expected === "absent") {
      const values = { app: change.app, owner_id: change.ownerId, collection: change.collection, key: change.key, value: JSON.stringify(change.value), version: 1, deleted: 0, permission_read: change.permissionRead, permission_write: change.permissionWrite, created_at: change.at, updated_at: change.at };
      const row = await db
        .insertInto("saves")
        .values(values)
        .onConflict((oc) =>
          oc
            .columns(["app", "owner_id", "collection", "key"])
            .doUpdateSet((eb) => ({
              value: eb.ref("excluded.value"),
              version: eb("saves.version", "+", 1),
              deleted: 0,
              permission_read: eb.ref("excluded.permission_read"),
              permission_write: eb.ref("excluded.permission_write"),
              created_at: eb.ref("excluded.created_at"),
              updated_at: eb.ref("excluded.updated_at"),
            }))
            .where("saves.deleted", "=", 1),
        )
        .returning("version")
        .executeTakeFirst();
      if (row) return { ok: true, written: { ...refOf(change), version: Number(row.version), updatedAt: change.at, created: true } };
    } else {
      const row = await db
        .updateTable("saves")
        .set((eb) => ({
          value: JSON.stringify(change.value),
          version: eb("version", "+", 1),
          permission_read: change.permissionRead,
          permission_write: change.permissionWrite,
          updated_at: change.at,
        }))
        .where("app", "=", change.app)
        .where("owner_id", "=", change.ownerId)
        .where("collection", "=", change.collection)
        .where("key", "=", change.key)
        .where("version", "=", expected)
        .where("deleted", "=", 0)
        .returning("version")
        .executeTakeFirst();
      version = row?.version;
    }
    if (version === undefined) return { ok: false, current: await this.currentVersion(db, change) };
    return { ok: true, written: { ...refOf(change), version: Number(version), updatedAt: change.at, created: false } };
  }

  private async currentVersion(db: Executor, ref: SaveRef): Promise<number | null> {
    const row = await this.row(db, ref);
    return row && !row.deleted ? Number(row.version) : null;
  }
}

function refOf(ref: SaveRef): SaveRef {
  return { app: ref.app, collection: ref.collection, key: ref.key, ownerId: ref.ownerId };
}

function compareRefs(a: SaveRef, b: SaveRef): number {
  for (const field of ["app", "ownerId", "collection", "key"] as const) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}

function toObject(row: SaveRow): SaveObject {
  return {
    app: row.app,
    collection: row.collection,
    key: row.key,
    ownerId: row.owner_id,
    value: JSON.parse(row.value ?? "{}") as Record<string, unknown>,
    version: Number(row.version),
    permissionRead: row.permission_read as SaveObject["permissionRead"],
    permissionWrite: row.permission_write as SaveObject["permissionWrite"],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

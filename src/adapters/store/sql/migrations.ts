/**
 * The schema, as Kysely migrations kept in code (no migration folder to ship next to the build).
 * Both dialects share the migrations; only column types differ (see `types`).
 */
import { Migrator, sql, type Kysely, type Migration } from "kysely";
import { createAnalyticsTables } from "./analytics-schema";
import { createEconomyTables } from "./economy-schema";
import { createErasureMarksTable } from "./erasure-marks";
import { createLiveGiftTables } from "./live-gift-schema";
import { createLiveOpsTables } from "./liveops-schema";
import { createSupportTables } from "./support-schema";
import { addOrderLiveEvent, addOrderTerms, createOrderTables, separateOrderKeysByKind } from "./order-ledger-schema";

export type SqlDialect = "sqlite" | "postgres";

/** Arbitrary, but fixed: every process of this service must use the same key. */
const PG_MIGRATION_LOCK_KEY = 7_413_290_118_624_003n;
const PG_LOCK_POLL_MS = 100;
const PG_LOCK_WAIT_MS = 120_000;

function types(dialect: SqlDialect) {
  // PG: timestamptz comes back as a Date, so toISOString() gives the API's format.
  // SQLite has no date type; ISO 8601 text sorts and round-trips exactly.
  return { timestamp: dialect === "postgres" ? "timestamptz" : "text" } as const;
}

function migrations(dialect: SqlDialect): Record<string, Migration> {
  const t = types(dialect);
  return {
    // Every statement is "if not exists": SQLite runs migrations outside a DDL transaction in
    // Kysely, so a migration interrupted half-way must be safe to run again.
    "0001_users_and_identities": {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable("users")
          .ifNotExists()
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("username", "text", (c) => c.notNull())
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("password_hash", "text", (c) => c.notNull())
          .addColumn("password_set_at", t.timestamp)
          .addColumn("nickname", "text")
          .addColumn("avatar", "text")
          .addColumn("openid", "text")
          .addColumn("guild_id", "text")
          .addColumn("status", "integer", (c) => c.notNull().defaultTo(1))
          .addColumn("created_at", t.timestamp, (c) => c.notNull())
          .addColumn("updated_at", t.timestamp, (c) => c.notNull())
          .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
          // Named so PG unique violations can be told apart by constraint name.
          .addUniqueConstraint("users_username_key", ["username"])
          .addUniqueConstraint("users_email_key", ["email"])
          .execute();

        await db.schema
          .createTable("user_identities")
          .ifNotExists()
          .addColumn("platform", "text", (c) => c.notNull())
          .addColumn("platform_id", "text", (c) => c.notNull())
          .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
          .addColumn("created_at", t.timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint("user_identities_pkey", ["platform", "platform_id"])
          .execute();

        await db.schema
          .createIndex("user_identities_user_id_idx")
          .ifNotExists()
          .on("user_identities")
          .column("user_id")
          .execute();
      },
    },
    // Operators' bans: a reason, and an end after which the user reads as active again.
    // Each column is added only if missing, so an interrupted run is safe to repeat (see above).
    "0004_bans": {
      async up(db: Kysely<any>) {
        const columns = new Set((await db.introspection.getTables()).find((t) => t.name === "users")?.columns.map((c) => c.name));
        if (!columns.has("disabled_reason")) await db.schema.alterTable("users").addColumn("disabled_reason", "text").execute();
        if (!columns.has("disabled_until")) await db.schema.alterTable("users").addColumn("disabled_until", t.timestamp).execute();
      },
    },
    // Usernames and emails are one account whatever their letter case; the display form stays
    // as registered. Expression indexes on lower() work on both dialects, and the stored
    // values are ASCII (the API admits nothing else), where lower() agrees on both.
    // Rows that already collide stop the migration: merging or renaming accounts is an
    // operator's decision, never the schema's.
    // The payments' order ledger (order-ledger-schema.ts).
    "0006_order_ledger": {
      async up(db: Kysely<any>) {
        await createOrderTables(db, dialect);
      },
    },
    // The economy's ledger, wallets, inventories and catalogs (economy-schema.ts).
    "0007_economy": {
      async up(db: Kysely<any>) {
        await createEconomyTables(db, dialect);
      },
    },
    // Each kind of order its own keys: an item purchase's trade number no longer collides with a coin orderId.
    "0008_order_keys_by_kind": {
      async up(db: Kysely<any>) {
        await separateOrderKeysByKind(db, dialect);
      },
    },
    // An operator grant's reason, apart from the item id (which it used to fill).
    "0009_order_reason": {
      async up(db: Kysely<any>) {
        const columns = new Set((await db.introspection.getTables()).find((t) => t.name === "orders")?.columns.map((c) => c.name));
        if (!columns.has("reason")) await db.schema.alterTable("orders").addColumn("reason", "text").execute();
      },
    },
    // Operators' mutes: the player's chat in rooms is refused until muted_until.
    "0010_mutes": {
      async up(db: Kysely<any>) {
        const columns = new Set((await db.introspection.getTables()).find((t) => t.name === "users")?.columns.map((c) => c.name));
        if (!columns.has("mute_reason")) await db.schema.alterTable("users").addColumn("mute_reason", "text").execute();
        if (!columns.has("muted_until")) await db.schema.alterTable("users").addColumn("muted_until", t.timestamp).execute();
      },
    },
    // Erases begun (core/ports/erasure-marks.ts); the reward tables' migrations create it too.
    "0011_user_erasures": {
      up: (db: Kysely<any>) => createErasureMarksTable(db, dialect),
    },
    // A coin order's terms as priced (quantity, unit price, catalog version), and room in `coins`
    // for every price a platform may push (addOrderTerms in order-ledger-schema.ts).
    "0012_order_terms": {
      async up(db: Kysely<any>) {
        await addOrderTerms(db, dialect);
      },
    },
    // Analytics events and daily rollups (analytics-schema.ts).
    "0013_analytics": {
      up: (db: Kysely<any>) => createAnalyticsTables(db, dialect),
    },
    // The Douyin live gift ledger and failed-data cursors (live-gift-schema.ts).
    "0014_douyin_live_ledger": {
      async up(db: Kysely<any>) {
        await createLiveGiftTables(db, dialect);
      },
    },
    // LiveOps definitions' versions and players' experiment assignments (liveops-schema.ts).
    "0015_liveops": {
      up: (db: Kysely<any>) => createLiveOpsTables(db, dialect),
    },
    // The live event whose sale priced a coin spend (order-ledger-schema.ts).
    "0016_order_live_event": {
      up: (db: Kysely<any>) => addOrderLiveEvent(db),
    },
    // Customer-service messages and replies (support-schema.ts).
    "0017_support_messages": {
      up: (db: Kysely<any>) => createSupportTables(db, dialect),
    },
    "0005_case_insensitive_accounts": {
      async up(db: Kysely<any>) {
        await refuseCaseCollisions(db);
        for (const column of ["username", "email"] as const) {
          await db.schema
            .createIndex(caseInsensitiveIndexName(column))
            .ifNotExists()
            .unique()
            .on("users")
            .expression(sql`lower(${sql.ref(column)})`)
            .execute();
        }
      },
    },
  };
}

/** Named so a unique violation can be told apart (see kysely-user-store.ts). */
export function caseInsensitiveIndexName(column: "username" | "email"): string {
  return `users_${column}_ci_key`;
}

/** Throws, listing every account (id and stored form) whose username or email collides with another's ignoring case. */
async function refuseCaseCollisions(db: Kysely<any>): Promise<void> {
  const problems: string[] = [];
  for (const column of ["username", "email"] as const) {
    const { rows } = await sql<{ id: string; value: string }>`
      select id, ${sql.ref(column)} as value from users
      where lower(${sql.ref(column)}) in (
        select lower(${sql.ref(column)}) from users group by lower(${sql.ref(column)}) having count(*) > 1
      )
      order by lower(${sql.ref(column)}), id`.execute(db);
    for (const row of rows) problems.push(`${column} ${JSON.stringify(row.value)} (user ${row.id})`);
  }
  if (problems.length > 0) {
    throw new Error(
      `Cannot make usernames and emails case-insensitive: these accounts collide when letter case is ignored. ` +
        `Rename or remove the duplicates yourself, then start again (nothing was changed): ${problems.join("; ")}`,
    );
  }
}

/** Brings the schema to the latest version; other processes doing the same wait for the first. */
export async function migrateToLatest(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const run = async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(dialect) } });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  };
  if (dialect === "postgres") await withPgAdvisoryLock(db, run);
  else await withSqliteWriteLock(db, run);
}

/**
 * Runs a feature's own migrations (own bookkeeping table, e.g. the leaderboards'), under the same
 * cross-process lock as the store's, so features ship schema changes without ordering against
 * each other's migration names.
 */
export async function migrateFeatureToLatest(db: Kysely<any>, dialect: SqlDialect, table: string, feature: Record<string, Migration>): Promise<void> {
  const run = async () => {
    const migrator = new Migrator({ db, migrationTableName: table, migrationLockTableName: `${table}_lock`, provider: { getMigrations: async () => feature } });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  };
  if (dialect === "postgres") await withPgAdvisoryLock(db, run);
  else await withSqliteWriteLock(db, run);
}

/**
 * Kysely's own lock is taken only after it has created its bookkeeping tables, and concurrent
 * CREATE TABLE IF NOT EXISTS can still fail on PG; so the whole run is serialised by our lock.
 * The lock lives on one pooled session while the migrator uses other pooled connections.
 * We poll pg_try_advisory_lock rather than block in pg_advisory_lock so that a waiting process is
 * not cut off by statement/query timeouts.
 */
async function withPgAdvisoryLock(db: Kysely<any>, fn: () => Promise<void>): Promise<void> {
  await db.connection().execute(async (session) => {
    const deadline = Date.now() + PG_LOCK_WAIT_MS;
    for (;;) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${sql.lit(PG_MIGRATION_LOCK_KEY)}) as locked`.execute(session);
      if (rows[0]?.locked) break;
      if (Date.now() > deadline) throw new Error("timed out waiting for the schema migration lock");
      await new Promise((resolve) => setTimeout(resolve, PG_LOCK_POLL_MS));
    }
    try {
      await fn();
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(PG_MIGRATION_LOCK_KEY)})`.execute(session);
    }
  });
}

/** Tail of the in-process queue of SQLite migrations (see withSqliteWriteLock). */
let sqliteQueue: Promise<unknown> = Promise.resolve();

/**
 * SQLite: BEGIN IMMEDIATE takes the database write lock, so another process migrating the same
 * file waits (busy_timeout), and the migrations apply all-or-nothing. The Kysely SQLite driver has
 * one connection, so the migrator's statements all run inside this transaction.
 * better-sqlite3 waits for a lock synchronously, blocking the event loop, so a second connection
 * in this process would wait on a holder that can never continue: hence the in-process queue.
 */
function withSqliteWriteLock(db: Kysely<any>, fn: () => Promise<void>): Promise<void> {
  const run = async () => {
    await sql`begin immediate`.execute(db);
    try {
      await fn();
    } catch (err) {
      await sql`rollback`.execute(db);
      throw err;
    }
    await sql`commit`.execute(db);
  };
  const result = sqliteQueue.then(run, run);
  sqliteQueue = result.catch(() => undefined);
  return result;
}

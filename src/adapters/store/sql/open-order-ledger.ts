/**
 * A ledger on a database connection of its own, for processes that keep no user store open beside
 * it (the admin CLI, tests). The server shares the user store's connection instead (create-user-store.ts):
 * better-sqlite3 waits for a lock synchronously, so two connections to one SQLite file in one process
 * could wait on each other forever.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { KyselyOrderLedger, type OrderDatabase } from "./kysely-order-ledger";
import { createPostgresPool, type PostgresTimeouts } from "./postgres-pool";
import { openSqliteFile } from "./sqlite-file";

/** A SQL database's settings: SQLite's file, or PostgreSQL's URL and timeouts. */
export type SqlStoreConfig = { kind: "sqlite"; path: string; synchronous?: "FULL" | "NORMAL" } | ({ kind: "postgres"; url: string } & PostgresTimeouts);

export async function openOrderLedger(config: SqlStoreConfig): Promise<KyselyOrderLedger> {
  let db: Kysely<OrderDatabase>;
  if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous ?? "FULL");
    db = new Kysely<OrderDatabase>({ dialect: new SqliteDialect({ database }) });
  } else {
    db = new Kysely<OrderDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 4) }) });
  }
  const ledger = new KyselyOrderLedger(db, config.kind, () => db.destroy());
  try {
    await ledger.migrate();
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw err;
  }
  return ledger;
}

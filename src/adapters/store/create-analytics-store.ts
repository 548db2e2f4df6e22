/**
 * Opens the analytics store on the configured database. The server on SQLite shares the user
 * store's connection (see create-order-ledger.ts for why); the CLI and tests open one of their own.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { AnalyticsStore } from "../../core/ports/analytics-store";
import { MongoAnalyticsStore } from "./mongo/mongo-analytics-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyAnalyticsStore, type AnalyticsDatabase } from "./sql/kysely-analytics-store";
import { createPostgresPool } from "./sql/postgres-pool";
import { sharedSqliteConnection } from "./create-user-store";
import { openSqliteFile } from "./sql/sqlite-file";

export async function createAnalyticsStore(config: AppConfig["store"], options: { shareSqlite?: boolean } = {}): Promise<AnalyticsStore> {
  let store: AnalyticsStore;
  const shared = config.kind === "sqlite" && options.shareSqlite ? sharedSqliteConnection(config.path) : undefined;
  if (shared) {
    store = new KyselyAnalyticsStore(shared as unknown as Kysely<AnalyticsDatabase>, "sqlite");
  } else if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous);
    const db = new Kysely<AnalyticsDatabase>({ dialect: new SqliteDialect({ database }) });
    store = new KyselyAnalyticsStore(db, "sqlite", () => db.destroy());
  } else if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 3);
    store = new MongoAnalyticsStore(connection, () => connection.close());
  } else {
    const db = new Kysely<AnalyticsDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 3) }) });
    store = new KyselyAnalyticsStore(db, "postgres", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

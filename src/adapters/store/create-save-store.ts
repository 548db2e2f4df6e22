/**
 * Opens the cloud saves' store on the configured database. The server on SQLite passes the user
 * store's connection (`sharedSqliteConnection`): better-sqlite3 waits for a lock synchronously, so
 * a second connection to one file in one process could wait on the first forever.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { SaveStore } from "../../core/ports/save-store";
import { MongoSaveStore } from "./mongo/mongo-save-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselySaveStore, type SaveDatabase } from "./sql/kysely-save-store";
import { createPostgresPool } from "./sql/postgres-pool";
import { failFastWhenUnavailable } from "./unavailable-errors";
import { openSqliteFile } from "./sql/sqlite-file";

export async function createSaveStore(config: AppConfig["store"], shared?: { sqlite?: Kysely<unknown> }): Promise<SaveStore> {
  let store: SaveStore;
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 10);
    store = new MongoSaveStore(connection, () => connection.close());
  } else if (config.kind === "postgres") {
    const db = new Kysely<SaveDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 10) }) });
    store = new KyselySaveStore(db, "postgres", () => db.destroy());
  } else if (shared?.sqlite) {
    store = new KyselySaveStore(shared.sqlite as Kysely<SaveDatabase>, "sqlite");
  } else {
    const database = openSqliteFile((config as { path: string }).path, config.synchronous ?? "FULL");
    const db = new Kysely<SaveDatabase>({ dialect: new SqliteDialect({ database }) });
    store = new KyselySaveStore(db, "sqlite", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return failFastWhenUnavailable(store, "The saves store");
}

/**
 * Opens the cloud saves' store on the configured database. The server on SQLite shares the user
 * store's connection: better-sqlite3 waits for a lock synchronously, so a second connection to one
 * file in one process could wait on the first forever.
 */
import type { AppConfig } from "../../config/config";
import type { SaveStore } from "../../core/ports/save-store";
import { MongoSaveStore } from "./mongo/mongo-save-store";
import { openStore } from "./open-store";
import { KyselySaveStore, type SaveDatabase } from "./sql/kysely-save-store";

export async function createSaveStore(config: AppConfig["store"]): Promise<SaveStore> {
  return openStore<SaveStore, SaveDatabase>(
    config,
    {
      sql: (db, dialect, close) => new KyselySaveStore(db, dialect, close),
      mongo: (connection, close) => new MongoSaveStore(connection, close),
    },
    { shareSqlite: true, connections: 10, synchronousDefault: "FULL", what: "The saves store" },
  );
}

/**
 * Opens the customer-service messages' store on the configured database: on SQLite the user store's
 * connection where this process has one (a second connection waits on its locks: "database is locked"), else its own
 * (a push now and then, an operator's screen).
 */
import type { AppConfig } from "../../config/config";
import type { SupportMessageStore } from "../../core/ports/support-messages";
import { openStore } from "./open-store";
import { MongoSupportStore } from "./mongo/mongo-support-store";
import { KyselySupportStore, type SupportDatabase } from "./sql/kysely-support-store";

export function createSupportStore(config: AppConfig["store"]): Promise<SupportMessageStore> {
  return openStore<SupportMessageStore, SupportDatabase>(
    config,
    { sql: (db, dialect, close) => new KyselySupportStore(db, dialect, close), mongo: (connection, close) => new MongoSupportStore(connection, close) },
    { shareSqlite: true, connections: 2, synchronousDefault: "FULL", what: "The support store" },
  );
}

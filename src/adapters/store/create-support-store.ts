/**
 * Opens the customer-service messages' store on the configured database, on a connection of its own
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
    { connections: 2, synchronousDefault: "FULL" },
  );
}

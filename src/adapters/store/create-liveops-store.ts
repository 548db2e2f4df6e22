/**
 * Opens the LiveOps store on the configured database: on SQLite the user store's connection where
 * this process has one (a second connection waits on its locks), else its own.
 */
import type { AppConfig } from "../../config/config";
import { openStore } from "./open-store";
import type { LiveOpsStore } from "../../core/ports/liveops-store";
import { MongoLiveOpsStore } from "./mongo/mongo-liveops-store";
import { KyselyLiveOpsStore, type LiveOpsDatabase } from "./sql/kysely-liveops-store";

export function createLiveOpsStore(config: AppConfig["store"]): Promise<LiveOpsStore> {
  return openStore<LiveOpsStore, LiveOpsDatabase>(
    config,
    { sql: (db, dialect, close) => new KyselyLiveOpsStore(db, dialect, close), mongo: (connection, close) => new MongoLiveOpsStore(connection, close) },
    { shareSqlite: true, connections: 2, synchronousDefault: "FULL", what: "The LiveOps store" },
  );
}

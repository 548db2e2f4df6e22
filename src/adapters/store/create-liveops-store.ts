/**
 * Opens the LiveOps store on the configured database, on a connection of its own (few, small
 * queries: a version poll a second, a player's assignments when their evaluation is not cached).
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
    { connections: 2, synchronousDefault: "FULL" },
  );
}

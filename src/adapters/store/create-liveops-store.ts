/**
 * Opens the LiveOps store on the configured database, on a connection of its own (few, small
 * queries: a version poll a second, a player's assignments when their evaluation is not cached).
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { LiveOpsStore } from "../../core/ports/liveops-store";
import { MongoLiveOpsStore } from "./mongo/mongo-liveops-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyLiveOpsStore, type LiveOpsDatabase } from "./sql/kysely-liveops-store";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";

export async function createLiveOpsStore(config: AppConfig["store"]): Promise<LiveOpsStore> {
  let store: LiveOpsStore;
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 2);
    store = new MongoLiveOpsStore(connection, () => connection.close());
  } else if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous ?? "FULL");
    const db = new Kysely<LiveOpsDatabase>({ dialect: new SqliteDialect({ database }) });
    store = new KyselyLiveOpsStore(db, "sqlite", () => db.destroy());
  } else {
    const db = new Kysely<LiveOpsDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 2) }) });
    store = new KyselyLiveOpsStore(db, "postgres", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

/**
 * Opens the leaderboards' store on the configured database. The server on SQLite passes the user
 * store's connection (`sharedSqliteConnection`): better-sqlite3 waits for a lock synchronously, so
 * a second connection to one file in one process could wait on the first forever.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { LeaderboardStore } from "../../core/ports/leaderboard-store";
import { MongoLeaderboardStore } from "./mongo/mongo-leaderboard-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyLeaderboardStore } from "./sql/kysely-leaderboard-store";
import { createPostgresPool, type PostgresTimeouts } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";
import { failFastWhenUnavailable } from "./unavailable-errors";

export async function createLeaderboardStore(config: AppConfig["store"], shared?: { sqlite?: Kysely<unknown> }): Promise<LeaderboardStore> {
  let store: LeaderboardStore;
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 10);
    store = new MongoLeaderboardStore(connection, () => connection.close());
  } else if (config.kind === "postgres") {
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: createPostgresPool((config as { url: string }).url, config as unknown as PostgresTimeouts, 10) }) });
    store = new KyselyLeaderboardStore(db, "postgres", () => db.destroy());
  } else if (shared?.sqlite) {
    store = new KyselyLeaderboardStore(shared.sqlite, "sqlite");
  } else {
    const file = (config as { path: string }).path;
    const database = openSqliteFile(file, (config as { synchronous?: "FULL" | "NORMAL" }).synchronous ?? "FULL");
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
    store = new KyselyLeaderboardStore(db, "sqlite", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  // A database that cannot answer now is a 503, never a 500.
  return failFastWhenUnavailable(store, "The leaderboard store");
}

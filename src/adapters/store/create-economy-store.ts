/**
 * Opens the economy store on the configured database, on a connection of its own (the admin CLI,
 * tests, and the server on PostgreSQL and MongoDB). The server on SQLite shares the user store's
 * connection instead (`sharedSqliteEconomy` in create-user-store.ts), as the order ledger does.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { EconomyStore } from "../../core/ports/economy-store";
import type { EconomyCrashHook } from "./economy-chain";
import { MongoEconomyStore } from "./mongo/mongo-economy-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyEconomyStore, type EconomyDatabase } from "./sql/kysely-economy-store";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";
import { failFastWhenUnavailable } from "./unavailable-errors";

export async function createEconomyStore(config: AppConfig["store"], crashPoint?: EconomyCrashHook): Promise<EconomyStore> {
  let store: EconomyStore;
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 5);
    store = new MongoEconomyStore(connection, () => connection.close(), crashPoint);
  } else if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous ?? "FULL");
    const db = new Kysely<EconomyDatabase>({ dialect: new SqliteDialect({ database }) });
    store = new KyselyEconomyStore(db, "sqlite", () => db.destroy(), crashPoint);
  } else {
    const db = new Kysely<EconomyDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 4) }) });
    store = new KyselyEconomyStore(db, "postgres", () => db.destroy(), crashPoint);
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  // A database that cannot answer now is a 503 the game retries with the same source id, never a 500.
  return failFastWhenUnavailable(store, "The economy store");
}

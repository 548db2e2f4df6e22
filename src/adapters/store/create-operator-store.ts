/**
 * Opens the operator store on the configured database. The server on SQLite shares the user store's
 * connection (see create-order-ledger.ts for why); the CLI and tests open one of their own.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { OperatorStore } from "../../core/ports/operator-store";
import { MongoOperatorStore } from "./mongo/mongo-operator-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyOperatorStore, type OperatorDatabase } from "./sql/kysely-operator-store";
import { createPostgresPool } from "./sql/postgres-pool";
import { sharedSqliteConnection } from "./create-user-store";
import { openSqliteFile } from "./sql/sqlite-file";

export interface OperatorStoreOptions {
  /** Use this process's user-store connection to the SQLite file (the server). */
  shareSqlite?: boolean;
}

export async function createOperatorStore(config: AppConfig["store"], options: OperatorStoreOptions = {}): Promise<OperatorStore> {
  let store: OperatorStore;
  if (config.kind === "sqlite" && options.shareSqlite) {
    store = new KyselyOperatorStore(sharedSqliteConnection(config.path) as unknown as Kysely<OperatorDatabase>, "sqlite");
  } else if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous);
    const db = new Kysely<OperatorDatabase>({ dialect: new SqliteDialect({ database }) });
    store = new KyselyOperatorStore(db, "sqlite", () => db.destroy());
  } else if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 3);
    store = new MongoOperatorStore(connection, () => connection.close());
  } else {
    const db = new Kysely<OperatorDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 3) }) });
    store = new KyselyOperatorStore(db, "postgres", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

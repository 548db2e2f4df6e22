/**
 * Opens the operator store on the configured database. The server on SQLite shares the user store's
 * connection (see create-order-ledger.ts for why); the CLI and tests open one of their own.
 */
import type { AppConfig } from "../../config/config";
import { openStore } from "./open-store";
import type { OperatorStore } from "../../core/ports/operator-store";
import { MongoOperatorStore } from "./mongo/mongo-operator-store";
import { KyselyOperatorStore, type OperatorDatabase } from "./sql/kysely-operator-store";

export interface OperatorStoreOptions {
  /** Use this process's user-store connection to the SQLite file (the server). */
  shareSqlite?: boolean;
}

export function createOperatorStore(config: AppConfig["store"], options: OperatorStoreOptions = {}): Promise<OperatorStore> {
  return openStore<OperatorStore, OperatorDatabase>(
    config,
    { sql: (db, dialect, close) => new KyselyOperatorStore(db, dialect, close), mongo: (connection, close) => new MongoOperatorStore(connection, close) },
    { ...options, what: "The operator store" },
  );
}

/**
 * Opens the order ledger on the configured database, on a connection of its own (the admin CLI,
 * tests, and the server on PostgreSQL and MongoDB). The server on SQLite shares the user store's
 * connection instead (`sharedSqliteLedger` in create-user-store.ts): better-sqlite3 waits for a lock
 * synchronously, so two connections to one file in one process could wait on each other forever.
 */
import type { AppConfig } from "../../config/config";
import type { OrderLedger } from "../../core/ports/order-ledger";
import { openMongoOrderLedger } from "./mongo/open-mongo-order-ledger";
import { openOrderLedger } from "./sql/open-order-ledger";

export async function createOrderLedger(config: AppConfig["store"]): Promise<OrderLedger> {
  if (config.kind === "sqlite") return openOrderLedger(config);
  if (config.kind === "mongodb") return openMongoOrderLedger(config.url, config);
  return openOrderLedger({ ...config, kind: "postgres" });
}

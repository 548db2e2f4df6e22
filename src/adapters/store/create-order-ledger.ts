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
import { failFastWhenUnavailable } from "./unavailable-errors";

/** A database that cannot answer fails a ledger call with 503 `service_unavailable`, as for the user store. */
export async function createOrderLedger(config: AppConfig["store"]): Promise<OrderLedger> {
  if (config.kind === "sqlite") return failFastWhenUnavailable(await openOrderLedger(config), LEDGER);
  if (config.kind === "mongodb") return failFastWhenUnavailable(await openMongoOrderLedger(config.url, config), LEDGER);
  return failFastWhenUnavailable(await openOrderLedger({ ...config, kind: "postgres" }), LEDGER);
}

export const LEDGER = "The order ledger";

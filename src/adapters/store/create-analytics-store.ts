/**
 * Opens the analytics store on the configured database. The server on SQLite shares the user
 * store's connection (see create-order-ledger.ts for why); the CLI and tests open one of their own.
 */
import type { AppConfig } from "../../config/config";
import { openStore } from "./open-store";
import type { AnalyticsStore } from "../../core/ports/analytics-store";
import { MongoAnalyticsStore } from "./mongo/mongo-analytics-store";
import { KyselyAnalyticsStore, type AnalyticsDatabase } from "./sql/kysely-analytics-store";

export function createAnalyticsStore(config: AppConfig["store"], options: { shareSqlite?: boolean } = {}): Promise<AnalyticsStore> {
  return openStore<AnalyticsStore, AnalyticsDatabase>(
    config,
    { sql: (db, dialect, close) => new KyselyAnalyticsStore(db, dialect, close), mongo: (connection, close) => new MongoAnalyticsStore(connection, close) },
    { ...options, what: "The analytics store" },
  );
}

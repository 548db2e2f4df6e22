/**
 * Opens the Douyin live gift ledger on the configured database: on SQLite the user store's own
 * connection when this process has one open (create-order-ledger.ts says why), otherwise a
 * connection of its own.
 */
import type { AppConfig } from "../../config/config";
import type { LiveGiftLedger } from "../../core/ports/live-gift-ledger";
import { MongoLiveGiftLedger } from "./mongo/mongo-live-gift-ledger";
import { openStore } from "./open-store";
import { KyselyLiveGiftLedger, type LiveLedgerDatabase } from "./sql/kysely-live-gift-ledger";

export type ClosableLiveGiftLedger = LiveGiftLedger & { close(): Promise<void> };

export async function createLiveGiftLedger(config: AppConfig["store"]): Promise<ClosableLiveGiftLedger> {
  return openStore<KyselyLiveGiftLedger | MongoLiveGiftLedger, LiveLedgerDatabase>(
    config,
    {
      sql: (db, dialect, close) => new KyselyLiveGiftLedger(db, dialect, close),
      mongo: (connection, close) => new MongoLiveGiftLedger(connection, close),
    },
    { shareSqlite: true, connections: 5, synchronousDefault: "FULL", what: "The Douyin live gift ledger" },
  );
}

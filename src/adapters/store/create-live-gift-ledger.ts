/**
 * Opens the Douyin live gift ledger on the configured database: on SQLite the user store's own
 * connection when this process has one open (create-order-ledger.ts says why), otherwise a
 * connection of its own.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { LiveGiftLedger } from "../../core/ports/live-gift-ledger";
import { sharedSqliteConnection } from "./create-user-store";
import { MongoLiveGiftLedger } from "./mongo/mongo-live-gift-ledger";
import { openMongoConnection } from "./mongo/open-mongo";
import { KyselyLiveGiftLedger, type LiveLedgerDatabase } from "./sql/kysely-live-gift-ledger";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";
import { failFastWhenUnavailable } from "./unavailable-errors";

export type ClosableLiveGiftLedger = LiveGiftLedger & { close(): Promise<void> };

export async function createLiveGiftLedger(config: AppConfig["store"]): Promise<ClosableLiveGiftLedger> {
  let ledger: KyselyLiveGiftLedger | MongoLiveGiftLedger;
  let close: () => Promise<void>;
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 5);
    close = () => connection.close();
    ledger = new MongoLiveGiftLedger(connection, close);
  } else if (config.kind === "sqlite") {
    const shared = sharedSqliteConnection(config.path) as Kysely<LiveLedgerDatabase> | undefined;
    const db = shared ?? new Kysely<LiveLedgerDatabase>({ dialect: new SqliteDialect({ database: openSqliteFile(config.path, config.synchronous ?? "FULL") }) });
    close = shared ? async () => undefined : () => db.destroy();
    ledger = new KyselyLiveGiftLedger(db, "sqlite", close);
  } else {
    const db = new Kysely<LiveLedgerDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 4) }) });
    close = () => db.destroy();
    ledger = new KyselyLiveGiftLedger(db, "postgres", close);
  }
  try {
    await ledger.migrate();
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  return failFastWhenUnavailable(ledger, "The Douyin live gift ledger");
}

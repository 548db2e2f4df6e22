/**
 * Opens the reward sources' stores (ad views, mail) on the configured database. On SQLite they
 * share the user store's connection when one is open in this process (better-sqlite3 waits for a
 * lock synchronously: two connections to one file in one process could wait on each other forever).
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { AdView, AdViewStore } from "../../core/ports/ad-views";
import type { Mail, MailClaim, MailStore } from "../../core/ports/mail-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { MongoRewardStores } from "./mongo/mongo-reward-stores";
import { sharedSqliteConnection } from "./create-user-store";
import { KyselyRewardStores, type RewardDatabase } from "./sql/kysely-reward-stores";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";

/** What the reward stores keep about one player, in every app (the operator's export). */
export interface PlayerRewardRecords {
  mail: Mail[];
  claims: MailClaim[];
  adViews: AdView[];
}

export type RewardStores = AdViewStore &
  MailStore & {
    /** The player's own mail, mail claims and ad views, in every app. */
    recordsOf(userId: string): Promise<PlayerRewardRecords>;
    /** Removes them (erase); mail to every player stays, it names no one. */
    eraseUser(userId: string): Promise<void>;
  };

export async function createRewardStores(config: AppConfig["store"]): Promise<RewardStores> {
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 4);
    return migrated(new MongoRewardStores(connection, () => connection.close()), () => connection.close());
  }
  if (config.kind === "sqlite") {
    const shared = sharedSqliteConnection(config.path);
    if (shared) return migrated(new KyselyRewardStores(shared as unknown as Kysely<RewardDatabase>, "sqlite"), async () => undefined);
    const database = openSqliteFile(config.path, config.synchronous ?? "FULL");
    const db = new Kysely<RewardDatabase>({ dialect: new SqliteDialect({ database }) });
    return migrated(new KyselyRewardStores(db, "sqlite", () => db.destroy()), () => db.destroy());
  }
  const db = new Kysely<RewardDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 4) }) });
  return migrated(new KyselyRewardStores(db, "postgres", () => db.destroy()), () => db.destroy());
}

async function migrated<T extends { migrate(): Promise<void> }>(stores: T, release: () => Promise<void>): Promise<T> {
  try {
    await stores.migrate();
    return stores;
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}

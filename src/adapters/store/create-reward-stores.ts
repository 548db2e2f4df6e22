/**
 * Opens the reward sources' stores (ad views, mail) on the configured database. On SQLite they
 * share the user store's connection when one is open in this process (better-sqlite3 waits for a
 * lock synchronously: two connections to one file in one process could wait on each other forever).
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { NewAdView } from "../../core/ports/ad-views";
import type { ErasureMarks } from "../../core/ports/erasure-marks";
import { fenced, type EraseFence } from "./erase-fence";
import { MongoErasureMarks } from "./mongo/erasure-marks";
import { SqlErasureMarks } from "./sql/erasure-marks";
import type { Mail, MailClaim } from "../../core/ports/mail-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { MongoRewardStores } from "./mongo/mongo-reward-stores";
import { sharedSqliteConnection } from "./create-user-store";
import { KyselyRewardStores, type RewardDatabase } from "./sql/kysely-reward-stores";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";
import { failFastWhenUnavailable } from "./unavailable-errors";

export type { PlayerRewardRecords, RewardStores } from "../../core/ports/mail-store";
import type { RewardStores } from "../../core/ports/mail-store";

export async function createRewardStores(config: AppConfig["store"]): Promise<RewardStores> {
  if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, 4);
    const stores = new MongoRewardStores(connection, () => connection.close());
    return migrated(fenceRewardWrites(stores, new MongoErasureMarks(connection)), () => connection.close());
  }
  if (config.kind === "sqlite") {
    const shared = sharedSqliteConnection(config.path);
    if (shared) {
      const stores = new KyselyRewardStores(shared as unknown as Kysely<RewardDatabase>, "sqlite");
      return migrated(fenceRewardWrites(stores, new SqlErasureMarks(shared)), async () => undefined);
    }
    const database = openSqliteFile(config.path, config.synchronous ?? "FULL");
    const db = new Kysely<RewardDatabase>({ dialect: new SqliteDialect({ database }) });
    return migrated(fenceRewardWrites(new KyselyRewardStores(db, "sqlite", () => db.destroy()), new SqlErasureMarks(db)), () => db.destroy());
  }
  const db = new Kysely<RewardDatabase>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, 4) }) });
  return migrated(fenceRewardWrites(new KyselyRewardStores(db, "postgres", () => db.destroy()), new SqlErasureMarks(db)), () => db.destroy());
}

/**
 * The writes that name a player (an ad view, personal mail, a mail claim) check the player's erase
 * mark after they land (erase-fence.ts): one that raced an erase is removed, and refused.
 */
export function fenceRewardWrites<T extends RewardStores>(stores: T, marks: ErasureMarks): T {
  const fence: EraseFence = { marks, erase: (userId) => stores.eraseUser(userId) };
  const record = stores.record.bind(stores);
  const send = stores.send.bind(stores);
  const markClaimed = stores.markClaimed.bind(stores);
  return Object.assign(stores, {
    record: (view: NewAdView, cap: number) => fenced(fence, view.userId, () => record(view, cap)),
    send: (mail: Mail) => (mail.userId === null ? send(mail) : fenced(fence, mail.userId, () => send(mail))),
    markClaimed: (claim: MailClaim) => fenced(fence, claim.userId, () => markClaimed(claim)),
  });
}

async function migrated<T extends { migrate(): Promise<void> }>(stores: T, release: () => Promise<void>): Promise<T> {
  try {
    await stores.migrate();
    // A database that cannot answer now is a 503, never a 500.
    return failFastWhenUnavailable(stores, "The rewards store");
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}

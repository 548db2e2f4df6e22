/**
 * A stand-in for the economy's reward ledger until it lands: the RewardGranter contract (one grant
 * per (appId, source, sourceId), a repeat changes nothing and answers granted: false), kept in the
 * test's own database so it survives a killed process like the real ledger. Test-only.
 */
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import SqliteDatabase from "better-sqlite3";
import mongoose from "mongoose";
import { Pool } from "pg";
import type { AppConfig } from "../../src/config/config";
import type { RewardGrant, RewardGrantResult, RewardGranter } from "../../src/core/ports/reward-grants";

export interface TestRewardLedger extends RewardGranter {
  /** Every grant kept, in no order. */
  all(): Promise<Array<{ appId: string; source: string; sourceId: string; userId: string; currencies: Record<string, number> }>>;
  close(): Promise<void>;
}

export async function openTestRewardLedger(store: AppConfig["store"]): Promise<TestRewardLedger> {
  if (store.kind === "mongodb") {
    const connection = await mongoose.createConnection(store.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
    const grants = connection.collection<{ _id: string; appId: string; source: string; sourceId: string; userId: string; currencies: Record<string, number> }>("test_reward_grants");
    return {
      async grant(g: RewardGrant): Promise<RewardGrantResult> {
        try {
          await grants.insertOne({ _id: `${g.appId}:${g.source}:${g.sourceId}`, appId: g.appId, source: g.source, sourceId: g.sourceId, userId: g.userId, currencies: g.currencies ?? {} });
          return { granted: true, balances: g.currencies ?? {}, items: g.items ?? [] };
        } catch (err) {
          if ((err as { code?: number }).code !== 11000) throw err;
          return { granted: false, balances: g.currencies ?? {}, items: g.items ?? [] };
        }
      },
      all: async () => (await grants.find({}).toArray()).map(({ _id, ...rest }) => rest),
      close: () => connection.close(),
    };
  }
  const db =
    store.kind === "postgres"
      ? new Kysely<any>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: store.url, max: 4 }) }) })
      : new Kysely<any>({ dialect: new SqliteDialect({ database: withBusyTimeout(new SqliteDatabase(store.path)) }) });
  await sql`create table if not exists test_reward_grants (app_id text not null, source text not null, source_id text not null, user_id text not null, currencies text not null, primary key (app_id, source, source_id))`.execute(db);
  return {
    async grant(g: RewardGrant): Promise<RewardGrantResult> {
      const row = await db
        .insertInto("test_reward_grants")
        .values({ app_id: g.appId, source: g.source, source_id: g.sourceId, user_id: g.userId, currencies: JSON.stringify(g.currencies ?? {}) })
        .onConflict((oc) => oc.doNothing())
        .returning("source_id")
        .executeTakeFirst();
      return { granted: row !== undefined, balances: g.currencies ?? {}, items: g.items ?? [] };
    },
    all: async () =>
      (await db.selectFrom("test_reward_grants").selectAll().execute()).map((r) => ({ appId: r.app_id, source: r.source, sourceId: r.source_id, userId: r.user_id, currencies: JSON.parse(r.currencies) })),
    close: () => db.destroy(),
  };
}

function withBusyTimeout(database: SqliteDatabase.Database): SqliteDatabase.Database {
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 5000");
  return database;
}

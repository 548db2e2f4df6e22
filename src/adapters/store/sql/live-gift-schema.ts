/**
 * Tables of the Douyin live gift ledger (migration 0014): one row per msg_id (the primary key is the
 * cross-process claim) and the failed-data query's page cursor per (room, type).
 */
import type { Kysely } from "kysely";
/** As migrations.ts spells it (not imported: migrations.ts imports this file). */
type SqlDialect = "sqlite" | "postgres";

export async function createLiveGiftTables(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("douyin_live_ledger")
    .ifNotExists()
    .addColumn("msg_id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("room_id", "text", (c) => c.notNull())
    .addColumn("round_id", "bigint", (c) => c.notNull())
    .addColumn("sec_openid", "text", (c) => c.notNull())
    .addColumn("nickname", "text", (c) => c.notNull())
    .addColumn("sec_gift_id", "text", (c) => c.notNull())
    .addColumn("gift_num", "bigint", (c) => c.notNull())
    .addColumn("value_fen", "bigint", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("received_at", timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("douyin_live_ledger_round_idx").ifNotExists().on("douyin_live_ledger").columns(["room_id", "round_id"]).execute();
  await db.schema.createIndex("douyin_live_ledger_undelivered_idx").ifNotExists().on("douyin_live_ledger").columns(["room_id", "delivered"]).execute();
  await db.schema
    .createTable("douyin_live_fail_cursors")
    .ifNotExists()
    .addColumn("room_id", "text", (c) => c.notNull())
    .addColumn("msg_type", "text", (c) => c.notNull())
    .addColumn("page_num", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("douyin_live_fail_cursors_pkey", ["room_id", "msg_type"])
    .execute();
}

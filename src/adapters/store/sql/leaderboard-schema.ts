/**
 * The leaderboards' tables, migrated under their own bookkeeping table (migrateFeatureToLatest) so
 * they never order against the store's other migrations.
 *
 * A record keeps `sort_score`/`sort_subscore` beside the score: the score negated on a `desc` board,
 * so every ranking, of either order, is one ascending walk of one index
 * (sort_score, sort_subscore, reached_at, user_id), and a rank is a count of the rows before it.
 */
import type { Kysely, Migration } from "kysely";

export const LEADERBOARD_MIGRATIONS: Record<string, Migration> = {
  "0001_leaderboards": {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("leaderboard_records")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("board", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("score", "bigint", (c) => c.notNull())
        .addColumn("subscore", "bigint", (c) => c.notNull())
        .addColumn("sort_score", "bigint", (c) => c.notNull())
        .addColumn("sort_subscore", "bigint", (c) => c.notNull())
        .addColumn("reached_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("metadata", "text")
        .addPrimaryKeyConstraint("leaderboard_records_pkey", ["app", "board", "seq", "user_id"])
        .execute();
      await db.schema
        .createIndex("leaderboard_records_rank_idx")
        .ifNotExists()
        .on("leaderboard_records")
        .columns(["app", "board", "seq", "sort_score", "sort_subscore", "reached_at", "user_id"])
        .execute();
      await db.schema.createIndex("leaderboard_records_user_idx").ifNotExists().on("leaderboard_records").columns(["user_id", "app"]).execute();
      await db.schema
        .createTable("leaderboard_periods")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("board", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("starts_at", "bigint", (c) => c.notNull())
        .addColumn("ends_at", "bigint")
        .addColumn("closed", "integer", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("by", "text")
        .addPrimaryKeyConstraint("leaderboard_periods_pkey", ["app", "board", "seq"])
        .execute();
      await db.schema
        .createTable("leaderboard_payouts")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("board", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("winners", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("finished_at", "bigint")
        .addPrimaryKeyConstraint("leaderboard_payouts_pkey", ["app", "board", "seq"])
        .execute();
      await db.schema
        .createTable("leaderboard_members")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("board", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("slot", "integer", (c) => c.notNull())
        .addColumn("joined_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("leaderboard_members_pkey", ["app", "board", "seq", "user_id"])
        .addUniqueConstraint("leaderboard_members_slot_key", ["app", "board", "seq", "slot"])
        .execute();
      await db.schema
        .createTable("leaderboard_bans")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("board", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("by", "text")
        .addPrimaryKeyConstraint("leaderboard_bans_pkey", ["app", "board", "user_id"])
        .execute();
    },
  },
};

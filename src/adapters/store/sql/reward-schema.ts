/**
 * The tables of the reward sources (ad views, mail), migrated on their own migration table so they
 * never interleave with the store's migrations. Every statement is "if not exists": a run
 * interrupted half-way must be safe to repeat (SQLite runs Kysely migrations outside a transaction).
 */
import type { Kysely, Migration } from "kysely";
import { createErasureMarksTable } from "./erasure-marks";
import { migrateFeatureToLatest } from "./migrations";

export type RewardDialect = "sqlite" | "postgres";

function migrations(dialect: RewardDialect): Record<string, Migration> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  return {
    "0001_ad_views_and_mail": {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable("ad_views")
          .ifNotExists()
          .addColumn("app_id", "text", (c) => c.notNull())
          .addColumn("transaction_id", "text", (c) => c.notNull())
          .addColumn("user_id", "text", (c) => c.notNull())
          .addColumn("ad_unit_id", "text", (c) => c.notNull())
          .addColumn("day", "text", (c) => c.notNull())
          // NULL past the cap: unique constraints let any number of NULLs through on both dialects.
          .addColumn("slot", "integer")
          .addColumn("watch_id", "text")
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint("ad_views_pkey", ["app_id", "transaction_id"])
          .addUniqueConstraint("ad_views_slot_key", ["app_id", "user_id", "ad_unit_id", "day", "slot"])
          .execute();
        await db.schema.createIndex("ad_views_watch_idx").ifNotExists().on("ad_views").columns(["app_id", "user_id", "watch_id"]).execute();

        await db.schema
          .createTable("mail")
          .ifNotExists()
          .addColumn("mail_id", "text", (c) => c.primaryKey())
          .addColumn("app_id", "text", (c) => c.notNull())
          // NULL: every player of the app (one row, whatever the number of players).
          .addColumn("user_id", "text")
          .addColumn("title", "text", (c) => c.notNull())
          .addColumn("body", "text", (c) => c.notNull())
          .addColumn("attachments", "text", (c) => c.notNull())
          .addColumn("sender", "text", (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .addColumn("expires_at", timestamp, (c) => c.notNull())
          .execute();
        await db.schema.createIndex("mail_app_user_idx").ifNotExists().on("mail").columns(["app_id", "user_id", "expires_at"]).execute();

        await db.schema
          .createTable("mail_claims")
          .ifNotExists()
          .addColumn("app_id", "text", (c) => c.notNull())
          .addColumn("mail_id", "text", (c) => c.notNull())
          .addColumn("user_id", "text", (c) => c.notNull())
          .addColumn("claimed_at", timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint("mail_claims_pkey", ["app_id", "mail_id", "user_id"])
          .execute();
      },
    },
    // The erase marks the reward writes check (erase-fence.ts); the store's migrations create it too.
    "0002_user_erasures": {
      up: (db: Kysely<any>) => createErasureMarksTable(db, dialect),
    },
  };
}

/** Under the store's cross-process migration lock: two processes starting at once never both apply a migration. */
export function migrateRewardTables(db: Kysely<any>, dialect: RewardDialect): Promise<void> {
  return migrateFeatureToLatest(db, dialect, "reward_migrations", migrations(dialect));
}

/**
 * The economy's tables (economy-chain.ts explains the records), created by one migration of
 * migrations.ts. Every statement is "if not exists": an interrupted run must be safe to repeat.
 */
import type { Kysely } from "kysely";

export async function createEconomyTables(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("economy_claims")
    .ifNotExists()
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("from_seq", "integer", (c) => c.notNull())
    .addColumn("change", "text", (c) => c.notNull())
    .addColumn("seq", "integer")
    .addColumn("at", timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("economy_claims_user_idx").ifNotExists().on("economy_claims").column("user_id").execute();
  await db.schema
    .createTable("economy_entries")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("source_key", "text", (c) => c.notNull())
    .addColumn("entry", "text", (c) => c.notNull())
    .addColumn("at", timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("economy_entries_pkey", ["app_id", "user_id", "seq"])
    .execute();
  await db.schema.createIndex("economy_entries_user_idx").ifNotExists().on("economy_entries").column("user_id").execute();
  await db.schema
    .createTable("economy_catalogs")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("saved_by", "text", (c) => c.notNull())
    .addColumn("at", timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("economy_catalogs_pkey", ["app_id", "version"])
    .execute();
}

/** The customer-service messages' table (kysely-support-store.ts): insert-only, one row per platform message. */
import type { Kysely } from "kysely";
type SqlDialect = "sqlite" | "postgres";

export async function createSupportTables(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  await db.schema
    .createTable("support_messages")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("direction", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull())
    .addColumn("operator", "text")
    .addColumn("at", dialect === "postgres" ? "timestamptz" : "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("support_messages_pkey", ["app_id", "platform", "message_id"])
    .execute();
  await db.schema.createIndex("support_messages_user").ifNotExists().on("support_messages").columns(["app_id", "user_id", "at"]).execute();
  await db.schema.createIndex("support_messages_app_at").ifNotExists().on("support_messages").columns(["app_id", "at"]).execute();
  await db.schema.createIndex("support_messages_owner").ifNotExists().on("support_messages").column("user_id").execute();
}

/** The LiveOps tables (kysely-liveops-store.ts): both insert-only, keyed so that one writer wins. */
import type { Kysely } from "kysely";
type SqlDialect = "sqlite" | "postgres";

export async function createLiveOpsTables(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("liveops_versions")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("saved_by", "text", (c) => c.notNull())
    .addColumn("at", timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("liveops_versions_pkey", ["app_id", "version"])
    .execute();
  await db.schema
    .createTable("liveops_assignments")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("experiment_id", "text", (c) => c.notNull())
    .addColumn("variant", "text", (c) => c.notNull())
    .addColumn("at", timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint("liveops_assignments_pkey", ["app_id", "user_id", "experiment_id"])
    .execute();
  await db.schema
    .createTable("liveops_properties")
    .ifNotExists()
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("liveops_properties_pkey", ["app_id", "user_id", "key"])
    .execute();
}

/**
 * The analytics tables (core/ports/analytics-store.ts), created by one migration of migrations.ts.
 * Every statement is "if not exists": an interrupted run must be safe to repeat. A rollup row keeps
 * its metrics as JSON text: the rollup rewrites a row whole, and a new metric needs no migration.
 */
import type { Kysely } from "kysely";

export async function createAnalyticsTables(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("analytics_events")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("app", "text", (c) => c.notNull())
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("at", timestamp, (c) => c.notNull())
    .addColumn("props", "text", (c) => c.notNull())
    .addColumn("experiments", "text", (c) => c.notNull())
    .addColumn("live_events", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("analytics_events_at_idx").ifNotExists().on("analytics_events").columns(["at", "id"]).execute();
  await db.schema.createIndex("analytics_events_user_idx").ifNotExists().on("analytics_events").column("user_id").execute();
  for (const table of ["analytics_daily", "analytics_retention"]) {
    await db.schema
      .createTable(table)
      .ifNotExists()
      .addColumn("app", "text", (c) => c.notNull())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("metrics", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pkey`, ["app", "platform", "date"])
      .execute();
  }
}

/**
 * The cloud saves' table, migrated under its own bookkeeping table (migrateFeatureToLatest) so it
 * never orders against the store's other migrations. One row per object, its tombstone kept after
 * a delete (`deleted` = 1, no value) so the version goes on growing; the primary key leads with
 * (app, owner, collection) so a player's listing and count walk one index range.
 */
import type { Kysely, Migration } from "kysely";

export const SAVE_MIGRATIONS: Record<string, Migration> = {
  "0001_saves": {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("saves")
        .ifNotExists()
        .addColumn("app", "text", (c) => c.notNull())
        .addColumn("owner_id", "text", (c) => c.notNull())
        .addColumn("collection", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("value", "text")
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("deleted", "integer", (c) => c.notNull())
        .addColumn("permission_read", "text", (c) => c.notNull())
        .addColumn("permission_write", "text", (c) => c.notNull())
        // ISO 8601 text on both dialects: it sorts, and comes back as written.
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("saves_pkey", ["app", "owner_id", "collection", "key"])
        .execute();
      await db.schema.createIndex("saves_owner_idx").ifNotExists().on("saves").column("owner_id").execute();
    },
  },
};

/**
 * The order ledger's tables, created by one migration of migrations.ts. Every statement is
 * "if not exists", like the other migrations: an interrupted run must be safe to repeat.
 */
import type { Kysely } from "kysely";

/** Named so a unique violation could be told apart; ON CONFLICT DO NOTHING covers both anyway. */
export const ORDER_KEYS = {
  userOrder: "orders_user_order_key",
  platformOrder: "orders_platform_order_key",
} as const;

/** `dialect` as migrations.ts names it (not imported from there: migrations.ts imports this file). */
export async function createOrderTables(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("orders")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("app_id", "text", (c) => c.notNull())
    // No foreign key to users: an erased player's orders stay, as the record of money taken.
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("openid", "text", (c) => c.notNull())
    .addColumn("order_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("coins", "integer", (c) => c.notNull())
    .addColumn("platform_order_id", "text", (c) => c.notNull())
    .addColumn("env", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_until", timestamp)
    .addColumn("failure", "text")
    .addColumn("created_at", timestamp, (c) => c.notNull())
    .addColumn("updated_at", timestamp, (c) => c.notNull())
    .addUniqueConstraint(ORDER_KEYS.userOrder, ["user_id", "order_id"])
    .addUniqueConstraint(ORDER_KEYS.platformOrder, ["platform", "app_id", "platform_order_id"])
    .execute();
  // A player's order list, newest first.
  await db.schema.createIndex("orders_user_created_idx").ifNotExists().on("orders").columns(["user_id", "created_at"]).execute();
  // The reconciler's sweep: unsettled orders by age.
  await db.schema.createIndex("orders_state_updated_idx").ifNotExists().on("orders").columns(["state", "updated_at"]).execute();
}

/**
 * The order ledger's tables, created by one migration of migrations.ts. Every statement is
 * "if not exists", like the other migrations: an interrupted run must be safe to repeat.
 */
import { sql, type Kysely } from "kysely";

/** Named so a unique violation could be told apart; ON CONFLICT DO NOTHING covers both anyway. */
export const ORDER_KEYS = {
  userOrder: "orders_user_order_key",
  platformOrder: "orders_platform_order_key",
} as const;

/**
 * The keys since migration 0008: one key space per way an order starts. A coin order (spend,
 * grant) is the game's or the operator's: unique per (user, orderId), and its bill number per
 * (platform, app). An item purchase is the platform's: unique per (platform, app, user, trade
 * number). Before, an item purchase took its trade number as the user's orderId and as the app's
 * platform number, so a push whose trade number a coin spend of the same player (or another
 * player's push) already held found that order and was acknowledged without being recorded.
 */
export const ORDER_KEYS_BY_KIND = {
  coinOrder: "orders_coin_order_key",
  billNumber: "orders_bill_number_key",
  itemTrade: "orders_item_trade_key",
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

/**
 * Migration 0008: the old table-wide keys give way to the keys of ORDER_KEYS_BY_KIND (partial unique
 * indexes, on both dialects). The new keys are created first (every existing row satisfies them: the
 * old keys were stricter), then the old ones dropped; SQLite cannot drop a table constraint, so there
 * the table is rebuilt, inside the migration's transaction (migrations.ts).
 */
export async function separateOrderKeysByKind(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  if (dialect === "sqlite") await rebuildSqliteOrdersWithoutTableKeys(db);
  const { coinOrder, billNumber, itemTrade } = ORDER_KEYS_BY_KIND;
  await sql`create unique index if not exists ${sql.id(coinOrder)} on orders (user_id, order_id) where kind <> 'item_purchase'`.execute(db);
  await sql`create unique index if not exists ${sql.id(billNumber)} on orders (platform, app_id, platform_order_id) where kind <> 'item_purchase'`.execute(db);
  await sql`create unique index if not exists ${sql.id(itemTrade)} on orders (platform, app_id, user_id, platform_order_id) where kind = 'item_purchase'`.execute(db);
  if (dialect === "postgres") {
    await sql`alter table orders drop constraint if exists ${sql.id(ORDER_KEYS.userOrder)}`.execute(db);
    await sql`alter table orders drop constraint if exists ${sql.id(ORDER_KEYS.platformOrder)}`.execute(db);
  }
}

const ORDER_COLUMNS = "id, platform, app_id, user_id, openid, order_id, kind, item_id, coins, platform_order_id, env, state, attempts, lease_until, failure, created_at, updated_at";

async function rebuildSqliteOrdersWithoutTableKeys(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'orders'`.execute(db);
  if (!rows[0]?.sql.includes(ORDER_KEYS.userOrder)) return;
  await sql`drop table if exists orders_rebuilt`.execute(db);
  await db.schema
    .createTable("orders_rebuilt")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("app_id", "text", (c) => c.notNull())
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
    .addColumn("lease_until", "text")
    .addColumn("failure", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await sql.raw(`insert into orders_rebuilt (${ORDER_COLUMNS}) select ${ORDER_COLUMNS} from orders`).execute(db);
  await sql`drop table orders`.execute(db);
  await sql`alter table orders_rebuilt rename to orders`.execute(db);
  await db.schema.createIndex("orders_user_created_idx").ifNotExists().on("orders").columns(["user_id", "created_at"]).execute();
  await db.schema.createIndex("orders_state_updated_idx").ifNotExists().on("orders").columns(["state", "updated_at"]).execute();
}

/**
 * Migration 0012: what a coin spend paid for, kept with it (null in older rows), and `coins` wide
 * enough for any price a platform pushes (PostgreSQL's `integer` stops at 2^31 − 1, so a larger
 * pushed price failed the push; SQLite's integers are 64-bit already). Each column is added only
 * if missing, and the type change is a no-op when repeated, so an interrupted run is safe to repeat.
 */
export async function addOrderTerms(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  const columns = new Set((await db.introspection.getTables()).find((t) => t.name === "orders")?.columns.map((c) => c.name));
  if (!columns.has("quantity")) await db.schema.alterTable("orders").addColumn("quantity", "integer").execute();
  if (!columns.has("unit_price")) await db.schema.alterTable("orders").addColumn("unit_price", "bigint").execute();
  if (!columns.has("catalog_version")) await db.schema.alterTable("orders").addColumn("catalog_version", "integer").execute();
  if (dialect === "postgres") await sql`alter table orders alter column coins type bigint`.execute(db);
}

/** Migration 0016: the live event whose sale priced a coin spend (null: the catalog's price, and older rows). */
export async function addOrderLiveEvent(db: Kysely<any>): Promise<void> {
  const columns = new Set((await db.introspection.getTables()).find((t) => t.name === "orders")?.columns.map((c) => c.name));
  if (!columns.has("live_event")) await db.schema.alterTable("orders").addColumn("live_event", "text").execute();
}

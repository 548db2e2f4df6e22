/**
 * The OrderLedger over Kysely, for SQLite and PostgreSQL. Each claim is one statement: an insert
 * that a unique key decides (ON CONFLICT DO NOTHING, which on PostgreSQL waits for a concurrent
 * inserter of the same key and then yields nothing), or an UPDATE whose WHERE names the expected
 * state; both databases apply such a statement atomically, so exactly one concurrent caller wins.
 */
import { sql, type ColumnType, type Kysely, type Selectable } from "kysely";
import type { CreateOrderResult, NewOrder, Order, OrderKind, OrderLedger, OrderListQuery, OrderState, StateChange } from "../../../core/ports/order-ledger";
import { migrateToLatest, type SqlDialect } from "./migrations";

/** Written as ISO text on both dialects; read back as Date (PG timestamptz) or text (SQLite). */
type Timestamp = ColumnType<Date | string, string, string>;

interface OrdersTable {
  id: string;
  platform: string;
  app_id: string;
  user_id: string;
  openid: string;
  order_id: string;
  kind: string;
  item_id: string;
  /** bigint on PostgreSQL since migration 0012: read back as a string there. */
  coins: ColumnType<number | string, number, number>;
  platform_order_id: string;
  env: number;
  state: string;
  attempts: ColumnType<number, number | undefined, number>;
  lease_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
  failure: ColumnType<string | null, string | null | undefined, string | null>;
  /** Added by migration 0007 (null in older rows). */
  reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** Added by migration 0012 (null in older rows and on orders other than coin spends). */
  quantity: ColumnType<number | null, number | null | undefined, number | null>;
  unit_price: ColumnType<number | string | null, number | null | undefined, number | null>;
  catalog_version: ColumnType<number | null, number | null | undefined, number | null>;
  live_event: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrderDatabase {
  orders: OrdersTable;
}

type OrderRow = Selectable<OrdersTable>;

const DEFAULT_LIST_LIMIT = 50;

export class KyselyOrderLedger implements OrderLedger {
  constructor(
    private readonly db: Kysely<OrderDatabase>,
    private readonly dialect: SqlDialect,
    /** Closes the database when the ledger owns it; a ledger sharing the user store's database leaves that to the store. */
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  /** The ledger's tables are a migration of the store's schema (migrations.ts): the same run, the same lock. */
  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
  }

  async create(order: NewOrder): Promise<CreateOrderResult> {
    const row = await this.db
      .insertInto("orders")
      .values({
        id: order.id,
        platform: order.platform,
        app_id: order.appId,
        user_id: order.userId,
        openid: order.openid,
        order_id: order.orderId,
        kind: order.kind,
        item_id: order.itemId,
        coins: order.coins,
        platform_order_id: order.platformOrderId,
        env: order.env,
        state: order.state ?? "pending",
        reason: order.reason ?? null,
        quantity: order.quantity ?? null,
        unit_price: order.unitPrice ?? null,
        catalog_version: order.catalogVersion ?? null,
        live_event: order.liveEvent ?? null,
        created_at: order.createdAt,
        updated_at: order.createdAt,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) return { order: toOrder(row), created: true };
    // Whichever key of its kind was taken: the user's orderId first (a game's replay), then the platform's number.
    const existing =
      order.kind === "item_purchase"
        ? ((await this.findItemPurchase(order.platform, order.appId, order.userId, order.platformOrderId)) ?? (await this.findById(order.id)))
        : ((await this.findByOrderId(order.userId, order.orderId)) ??
          (await this.findByPlatformOrderId(order.platform, order.appId, order.platformOrderId)) ??
          (await this.findById(order.id)));
    if (!existing) throw new Error("order insert conflicted but no conflicting order was found");
    return { order: existing, created: false };
  }

  async findById(id: string): Promise<Order | null> {
    const row = await this.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async findByOrderId(userId: string, orderId: string): Promise<Order | null> {
    const row = await this.db
      .selectFrom("orders")
      .selectAll()
      .where("user_id", "=", userId)
      .where("order_id", "=", orderId)
      .where("kind", "<>", "item_purchase")
      .executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async findItemPurchase(platform: string, appId: string, userId: string, tradeNo: string): Promise<Order | null> {
    const row = await this.db
      .selectFrom("orders")
      .selectAll()
      .where("platform", "=", platform)
      .where("app_id", "=", appId)
      .where("user_id", "=", userId)
      .where("platform_order_id", "=", tradeNo)
      .where("kind", "=", "item_purchase")
      .executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async findByPlatformOrderId(platform: string, appId: string, platformOrderId: string): Promise<Order | null> {
    const row = await this.db
      .selectFrom("orders")
      .selectAll()
      .where("platform", "=", platform)
      .where("app_id", "=", appId)
      .where("platform_order_id", "=", platformOrderId)
      .where("kind", "<>", "item_purchase")
      .executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async listByUser(userId: string, query: OrderListQuery = {}): Promise<Order[]> {
    let select = this.db.selectFrom("orders").selectAll().where("user_id", "=", userId);
    if (query.state) select = select.where("state", "=", query.state);
    // id breaks ties between orders of the same millisecond, so the order is stable.
    const rows = await select
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(query.limit ?? DEFAULT_LIST_LIMIT)
      .execute();
    return rows.map(toOrder);
  }

  async transition(id: string, from: OrderState, to: OrderState, change: StateChange): Promise<Order | null> {
    const values: { state: string; updated_at: string; failure?: string | null; lease_until?: null } = { state: to, updated_at: change.at };
    if (change.failure !== undefined) values.failure = change.failure;
    // A settled order holds no delivery lease.
    if (to !== "paid") values.lease_until = null;
    const row = await this.db.updateTable("orders").set(values).where("id", "=", id).where("state", "=", from).returningAll().executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async claimDelivery(id: string, expectedAttempts: number, now: string, leaseUntil: string): Promise<Order | null> {
    const row = await this.db
      .updateTable("orders")
      .set({ attempts: expectedAttempts + 1, lease_until: leaseUntil, updated_at: now })
      .where("id", "=", id)
      .where("state", "=", "paid")
      .where("attempts", "=", expectedAttempts)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .returningAll()
      .executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  async listUnsettled(changedBefore: string, limit: number, after?: Pick<Order, "updatedAt" | "id">): Promise<Order[]> {
    let select = this.db.selectFrom("orders").selectAll().where("state", "in", ["pending", "paid"]).where("updated_at", "<", changedBefore);
    if (after) {
      select = select.where((eb) => eb.or([eb("updated_at", ">", after.updatedAt), eb.and([eb("updated_at", "=", after.updatedAt), eb("id", ">", after.id)])]));
    }
    const rows = await select
      .orderBy("updated_at", "asc")
      .orderBy("id", "asc")
      .limit(limit)
      .execute();
    return rows.map(toOrder);
  }

  async listNeedingAttention(changedBefore: string, limit: number): Promise<Order[]> {
    const rows = await this.db
      .selectFrom("orders")
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "in", ["pending", "paid"]), eb("updated_at", "<", changedBefore)]),
          eb.and([eb("state", "=", "failed"), eb("kind", "=", "item_purchase")]),
        ]),
      )
      .orderBy("updated_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map(toOrder);
  }

  async countByState(): Promise<Array<{ platform: string; kind: OrderKind; state: OrderState; count: number }>> {
    const rows = await this.db
      .selectFrom("orders")
      .select(["platform", "kind", "state", sql<string | number>`count(*)`.as("count")])
      .groupBy(["platform", "kind", "state"])
      .execute();
    // PG answers count(*) as a bigint string.
    return rows.map((r) => ({ platform: r.platform, kind: r.kind as OrderKind, state: r.state as OrderState, count: Number(r.count) }));
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

function toIso(value: Date | string | null): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString() : value;
}

function nullableNumber(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    platform: row.platform,
    appId: row.app_id,
    userId: row.user_id,
    openid: row.openid,
    orderId: row.order_id,
    kind: row.kind as OrderKind,
    itemId: row.item_id,
    coins: Number(row.coins),
    platformOrderId: row.platform_order_id,
    env: Number(row.env) === 1 ? 1 : 0,
    state: row.state as OrderState,
    attempts: Number(row.attempts),
    leaseUntil: toIso(row.lease_until),
    failure: row.failure,
    reason: row.reason ?? null,
    quantity: nullableNumber(row.quantity),
    unitPrice: nullableNumber(row.unit_price),
    catalogVersion: nullableNumber(row.catalog_version),
    liveEvent: row.live_event ?? null,
    createdAt: toIso(row.created_at) as string,
    updatedAt: toIso(row.updated_at) as string,
  };
}

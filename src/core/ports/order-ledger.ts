/**
 * The order ledger: one record per paid thing (a coin spend, a coin grant, an item bought through
 * the platform) and the one place that decides which step of it has happened. Every step is a
 * claim that exactly one caller wins, whatever the number of processes or replays: an insert that
 * uniqueness decides, or a change from an expected state. The port says nothing about how a claim
 * is made, so a document store whose updates are not atomic (FerretDB) can make each one an insert.
 */

export const ORDER_KINDS = ["coin_spend", "coin_grant", "item_purchase"] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/**
 * `pending`: written before the platform is asked (its outcome may be unknown after a timeout);
 * `paid`: the platform took the coins or the money, delivery owed; `delivered`: the game's hook
 * returned; `failed`: the platform refused, nothing taken (for a pushed item purchase: the catalog
 * refused it, the money was taken; an operator delivers it after all, failed → paid, or records it
 * refunded on the platform, failed → refunded); `refunded`: given back after payment.
 */
/**
 * The most coins one order may cost: the API's own bound of an order's `coins`, which the ledger's
 * columns hold on every store (a price × quantity above it is refused before anything is recorded).
 */
export const MAX_ORDER_COINS = 2_000_000_000;

export const ORDER_STATES = ["pending", "paid", "delivered", "failed", "refunded"] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export interface Order {
  /** Our own id (UUID); the platform's bill number is derived from it. */
  id: string;
  platform: string;
  appId: string;
  /** Our user's id (not the openid). */
  userId: string;
  /** The platform openid the order was made for: the reconciler and refunds talk to the platform about it. */
  openid: string;
  /** The game's idempotency key, unique per user among coin orders; for an item purchase the platform's trade number. */
  orderId: string;
  kind: OrderKind;
  itemId: string;
  /** Coins spent or granted; for an item purchase the price the platform reported. */
  coins: number;
  /** Our bill_no for coins (unique per platform and app); the platform's trade number for items (unique per platform, app and user). */
  platformOrderId: string;
  /** 0 live, 1 sandbox: which of the app's keys signs this order's calls. */
  env: 0 | 1;
  state: OrderState;
  /** How many delivery attempts were claimed so far. */
  attempts: number;
  /** Until when the latest delivery claim holds off other deliverers (ISO); null when none. */
  leaseUntil: string | null;
  /** Why the order failed or was refunded: a stable lower_snake code; null otherwise. */
  failure: string | null;
  /** The operator's free text for a grant (`npm run admin -- grant --reason`); null otherwise. */
  reason?: string | null;
  /**
   * What a coin spend paid for, fixed when it was priced: how many of `itemId`, at what coin price
   * each, under which version of the app's catalog. Delivery grants exactly that, whatever the
   * catalog says by then. Null on orders recorded before these were kept, and on other kinds.
   */
  quantity?: number | null;
  unitPrice?: number | null;
  catalogVersion?: number | null;
  /** The live event whose sale set unitPrice (docs/liveops.md); null at the catalog's price. */
  liveEvent?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What creating an order needs; the ledger fills state `pending` (or the given one), attempts 0, timestamps. */
export interface NewOrder {
  id: string;
  platform: string;
  appId: string;
  userId: string;
  openid: string;
  orderId: string;
  kind: OrderKind;
  itemId: string;
  coins: number;
  platformOrderId: string;
  env: 0 | 1;
  /** `pending` unless the platform already took the money (an item purchase arrives `paid`). */
  state?: "pending" | "paid";
  /** An operator grant's reason (Order.reason). */
  reason?: string;
  /** A coin spend's terms as priced (Order.quantity, unitPrice, catalogVersion). */
  quantity?: number;
  unitPrice?: number;
  catalogVersion?: number;
  /** The live event whose sale priced it (Order.liveEvent). */
  liveEvent?: string;
  /** ISO 8601 UTC, for both createdAt and updatedAt. */
  createdAt: string;
}

/**
 * Each kind of order has its own keys, so no order can stand in for another kind's: a coin order
 * (spend, grant) is keyed by the game's (user, orderId) and by its bill number per (platform, app);
 * an item purchase by the platform's trade number per (platform, app, user). A trade number equal
 * to a coin orderId, or one that two players' pushes carry, is a new order, never the other one.
 */
export interface CreateOrderResult {
  order: Order;
  /** False when an order of the same key existed (see above): that one is returned, unchanged. */
  created: boolean;
}

export interface OrderListQuery {
  state?: OrderState;
  /** Newest first; default 50. */
  limit?: number;
}

export interface StateChange {
  /** Recorded with the new state (failed, refunded); kept as it was when omitted. */
  failure?: string | null;
  /** ISO time of the change. */
  at: string;
}

export interface OrderLedger {
  /** Brings the ledger's schema to the current version; safe on every boot and from several processes. */
  migrate(): Promise<void>;
  /** Inserts the order, or returns the one already holding its key (CreateOrderResult). */
  create(order: NewOrder): Promise<CreateOrderResult>;
  findById(id: string): Promise<Order | null>;
  /** The user's coin order (spend or grant) under the game's orderId; item purchases are not in this key space. */
  findByOrderId(userId: string, orderId: string): Promise<Order | null>;
  /** The coin order with this bill number. */
  findByPlatformOrderId(platform: string, appId: string, platformOrderId: string): Promise<Order | null>;
  /** The user's item purchase under the platform's trade number in this app. */
  findItemPurchase(platform: string, appId: string, userId: string, tradeNo: string): Promise<Order | null>;
  /** The user's orders, newest first. */
  listByUser(userId: string, query?: OrderListQuery): Promise<Order[]>;
  /**
   * Moves the order from `from` to `to` if it is still in `from`. Exactly one of any number of
   * concurrent callers gets the updated order; the others (and a caller whose `from` is stale) get null.
   */
  transition(id: string, from: OrderState, to: OrderState, change: StateChange): Promise<Order | null>;
  /**
   * Claims delivery attempt `expectedAttempts + 1` of a `paid` order whose previous claim (if any)
   * has lapsed at `now`: attempts becomes expectedAttempts + 1 and the lease runs to `leaseUntil`.
   * One claimant wins; null for the others, and when the order is not paid or the lease still holds.
   */
  claimDelivery(id: string, expectedAttempts: number, now: string, leaseUntil: string): Promise<Order | null>;
  /**
   * Orders the reconciler must look at: `pending` or `paid`, last changed before `changedBefore`
   * (so requests still in flight are left alone), oldest first (ties by id); when `after` is given,
   * only those after that order in this sort (the next page: orders left waiting, e.g. for a
   * player's login, must not hide newer ones).
   */
  listUnsettled(changedBefore: string, limit: number, after?: Pick<Order, "updatedAt" | "id">): Promise<Order[]>;
  /**
   * Orders a person may have to act on, most recently changed first (ties by id, descending): every
   * `pending` or `paid` order last changed before `changedBefore` (the reconciler has had its turn
   * and has not finished it), and every `failed` item purchase (the platform took the money, the
   * catalog refused the push: nothing was delivered). Failed coin orders are not listed: nothing
   * was taken.
   */
  listNeedingAttention(changedBefore: string, limit: number): Promise<Order[]>;
  /** Counts per (platform, kind, state), for the metrics. */
  countByState(): Promise<Array<{ platform: string; kind: OrderKind; state: OrderState; count: number }>>;
  close(): Promise<void>;
}

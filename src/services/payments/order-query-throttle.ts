/**
 * How often a player's reads of an order the server does not know may become a query to the platform.
 * A client polls such an order every second (client `waitForDelivery`) and anyone can ask for any
 * orderId, so without this the order route would turn reads into platform calls one for one.
 * Two limits: one query per (player, orderId) per `perOrderMs`, and at most `perPlayerMax` queries per
 * player per `perPlayerMs` whatever the orderIds. `SharedOrderQueryThrottle` counts in the shared
 * cache, so every process enforces the same limits; `OrderQueryThrottle` counts in this process only
 * (for a process without a shared cache, such as the admin CLI).
 */
import type { Cache } from "../../core/ports/cache";

/** Whether a player may query the platform about an orderId now; a yes counts as a query. */
export interface OrderQueryGate {
  allow(userId: string, orderId: string): boolean | Promise<boolean>;
}

export interface OrderQueryLimits {
  /** At most one query per player and orderId in this many ms. */
  perOrderMs: number;
  /** At most this many queries per player in `perPlayerMs`. */
  perPlayerMax: number;
  perPlayerMs: number;
  /** Players and orders remembered at most; past it new queries are refused until entries expire. */
  maxEntries: number;
}

export const DEFAULT_ORDER_QUERY_LIMITS: OrderQueryLimits = { perOrderMs: 5_000, perPlayerMax: 20, perPlayerMs: 60_000, maxEntries: 100_000 };

export class OrderQueryThrottle implements OrderQueryGate {
  private readonly limits: OrderQueryLimits;
  /** (player, orderId) → when its last query was allowed. */
  private readonly lastQuery = new Map<string, number>();
  /** player → the start of their current window and the queries allowed in it. */
  private readonly players = new Map<string, { since: number; count: number }>();
  private prunedAt = 0;

  constructor(
    limits: Partial<OrderQueryLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_ORDER_QUERY_LIMITS, ...limits };
  }

  /** Whether this player may query the platform about this orderId now; a yes counts as a query. */
  allow(userId: string, orderId: string): boolean {
    const now = this.now();
    this.prune(now);
    const key = `${userId}\0${orderId}`;
    const last = this.lastQuery.get(key);
    if (last !== undefined && now - last < this.limits.perOrderMs) return false;
    let window = this.players.get(userId);
    if (window && now - window.since >= this.limits.perPlayerMs) window = undefined;
    if (window && window.count >= this.limits.perPlayerMax) return false;
    const grows = last === undefined || !this.players.has(userId);
    if (grows && this.lastQuery.size + this.players.size >= this.limits.maxEntries) return false;
    this.lastQuery.set(key, now);
    this.players.set(userId, window ? { since: window.since, count: window.count + 1 } : { since: now, count: 1 });
    return true;
  }

  /** Drops expired entries, at most once per the shorter window. */
  private prune(now: number): void {
    if (now - this.prunedAt < Math.min(this.limits.perOrderMs, this.limits.perPlayerMs)) return;
    this.prunedAt = now;
    for (const [key, at] of this.lastQuery) if (now - at >= this.limits.perOrderMs) this.lastQuery.delete(key);
    for (const [key, w] of this.players) if (now - w.since >= this.limits.perPlayerMs) this.players.delete(key);
  }
}

/**
 * The same two limits in the cache every process shares (fixed windows, one counter each): the
 * per-order counter first, so a client polling one order never spends the player's budget.
 */
export class SharedOrderQueryThrottle implements OrderQueryGate {
  private readonly limits: OrderQueryLimits;

  constructor(
    private readonly cache: Pick<Cache, "increment">,
    limits: Partial<OrderQueryLimits> = {},
  ) {
    this.limits = { ...DEFAULT_ORDER_QUERY_LIMITS, ...limits };
  }

  async allow(userId: string, orderId: string): Promise<boolean> {
    // One hash slot per player (Redis Cluster): both counters live beside the player's session keys.
    const perOrder = await this.cache.increment(`order_query:{${userId}}:${orderId}`, Math.ceil(this.limits.perOrderMs / 1000));
    if (perOrder.count > 1) return false;
    const perPlayer = await this.cache.increment(`order_query:{${userId}}`, Math.ceil(this.limits.perPlayerMs / 1000));
    return perPlayer.count <= this.limits.perPlayerMax;
  }
}

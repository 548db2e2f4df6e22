/**
 * A player's payments: the balance, spending coins on an item, their orders. The order is written
 * `pending` with its bill number before the platform is asked, so a crash or a timeout leaves a
 * record the reconciler can finish; every later step is a ledger claim, so a replayed or concurrent
 * request (in this process or another) never deducts twice and never delivers twice.
 */
import crypto from "node:crypto";
import { AppError, type ErrorCode } from "../../core/errors";
import { WalletRefusal } from "../../core/ports/coin-wallet";
import type { Order, OrderKind, OrderState } from "../../core/ports/order-ledger";
import { OrderDelivery } from "./order-delivery";
import {
  billNumberOf,
  DEFAULT_PAYMENT_TIMINGS,
  NO_PAYMENT_EVENTS,
  requireKeys,
  requireWallet,
  walletCall,
  type KeptPlayerKey,
  type PaymentDeps,
  type PaymentPlayer,
  type PaymentTimings,
} from "./payment-deps";

/**
 * A coin spend as priced by the catalog (economy PaidOrders.price): the terms the order records.
 * A replay of a recorded orderId carries the request's item, quantity and coins only; they must
 * match the order's (409 order_conflict otherwise).
 */
export interface SpendRequest {
  orderId: string;
  itemId: string;
  /** 1 when omitted. */
  quantity?: number;
  coins: number;
  unitPrice?: number;
  catalogVersion?: number;
  /** The live event whose sale set unitPrice: the order records it, its delivery's ledger entry names it. */
  liveEvent?: string;
}

export interface SpendResult {
  order: Order;
  /** True for the request that created the order (201); false for a replay (200). */
  created: boolean;
}

/** Failure codes a refusal leaves on a failed order; a replay answers the same error. */
const FAILURE_ERRORS: ReadonlySet<string> = new Set<ErrorCode>(["insufficient_balance", "payment_login_required", "payment_refused", "platform_misconfigured", "purchase_limit", "already_owned"]);
/** Failures decided by the catalog's rules before the platform was asked: no hold of theirs to give back. */
const RULE_FAILURES: ReadonlySet<string> = new Set(["purchase_limit", "already_owned"]);

/** Which order a read means: `kind` (else a coin order first, then an item purchase), and the token's game's (platform, app id)s for item purchases. */
export interface OrderScope {
  kind?: OrderKind;
  itemApps?: ReadonlyArray<{ platform: string; appId: string }>;
}

/** Finds an item purchase the platform's push did not bring (item-order-lookup.ts); undefined when there is none to record. */
export type UnseenItemOrderFinder = (player: PaymentPlayer, orderId: string) => Promise<Order | undefined>;

export class PaymentService {
  readonly delivery: OrderDelivery;
  private readonly timings: PaymentTimings;
  private readonly now: () => number;
  /** Requests of this process working on an order, by (user, orderId): replays here wait for them. */
  private readonly inflight = new Map<string, { request: SpendRequest; done: Promise<unknown> }>();
  /**
   * Pending orders whose last attempt here the platform refused for the player's session: a replay
   * before the next login answers payment_login_required again instead of "unconfirmed". Only a hint
   * (another process answers payment_unconfirmed until the order is old enough to be asked again); bounded.
   */
  private readonly awaitingLogin = new Set<string>();

  constructor(
    private readonly deps: PaymentDeps,
    timings: Partial<PaymentTimings> = {},
    private readonly findUnseenItemOrder?: UnseenItemOrderFinder,
  ) {
    this.timings = { ...DEFAULT_PAYMENT_TIMINGS, ...timings };
    this.now = deps.now ?? Date.now;
    this.delivery = new OrderDelivery(deps, this.timings);
  }

  async balance(player: PaymentPlayer): Promise<{ balance: number }> {
    const keys = requireKeys(this.deps, player.platform, player.appId);
    const wallet = requireWallet(this.deps, player.platform, player.appId);
    const kept = await this.requireKept(player);
    return this.deps.withAccessToken(player.platform, player.appId, (token) => wallet.balance(walletCall(player, keys, kept, token)));
  }

  /** Spends coins on an item: 201 once, then the same order for every replay of the same orderId. */
  /**
   * `admitNewOrder` runs once per new orderId in this process, after the ledger showed the orderId
   * unused and before anything is recorded or asked of the platform: the caller's rate limit on new
   * orders, which replays never count against (a refusal leaves nothing behind: retry the same orderId).
   */
  async spendCoins(player: PaymentPlayer, request: SpendRequest, admitNewOrder?: () => Promise<void>): Promise<SpendResult> {
    requireKeys(this.deps, player.platform, player.appId);
    const key = `${player.userId}\0${request.orderId}`;
    const running = this.inflight.get(key);
    if (running) {
      if (!sameRequest(running.request, request)) throw conflict(request.orderId);
      await running.done.catch(() => undefined);
      return this.replay(player, request, false);
    }
    const done = this.spendOnce(player, request, admitNewOrder);
    this.inflight.set(key, { request, done });
    try {
      return await done;
    } finally {
      this.inflight.delete(key);
    }
  }

  /**
   * One of the player's orders. With `player` (the route's reads), an orderId the ledger does not have
   * may be an item purchase whose push was lost or is late: the platform is asked (throttled), and a
   * paid one is recorded, delivered and answered. `player` is lazy: it reads the kept login, needed
   * only on a miss; if it cannot be resolved the answer stays 404.
   */
  async getOrder(userId: string, orderId: string, player?: () => Promise<PaymentPlayer>, scope: OrderScope = {}): Promise<Order> {
    const { kind, itemApps = [] } = scope;
    // A coin order first (the game's orderId), then an item purchase under that trade number in the token's game.
    const order = kind === "item_purchase" ? null : await this.deps.ledger.findByOrderId(userId, orderId);
    if (order && (!kind || order.kind === kind)) return order;
    if (kind && kind !== "item_purchase") throw new AppError("order_not_found", { data: { orderId } });
    for (const app of itemApps) {
      const bought = await this.deps.ledger.findItemPurchase(app.platform, app.appId, userId, orderId);
      if (bought) return bought;
    }
    // No kept login or payments off for the platform: nothing to ask, the answer stays 404.
    const resolved = player && this.findUnseenItemOrder ? await player().catch(notAnAppError) : undefined;
    const found = resolved && resolved.userId === userId ? await this.findUnseenItemOrder?.(resolved, orderId) : undefined;
    if (!found) throw new AppError("order_not_found", { data: { orderId } });
    // recordItemPurchase started a delivery; this one delivers if that one has not claimed it yet, else waits for it.
    const delivered = await this.delivery.deliver(found);
    return (await this.delivery.settled(delivered.id)) ?? delivered;
  }

  listOrders(userId: string, state?: OrderState, limit?: number): Promise<Order[]> {
    return this.deps.ledger.listByUser(userId, { state, limit });
  }

  private async spendOnce(player: PaymentPlayer, request: SpendRequest, admitNewOrder?: () => Promise<void>): Promise<SpendResult> {
    const existing = await this.deps.ledger.findByOrderId(player.userId, request.orderId);
    if (existing) return this.replay(player, request, true, existing);
    await admitNewOrder?.();
    const kept = await this.requireKept(player);
    const keys = requireKeys(this.deps, player.platform, player.appId);
    const id = crypto.randomUUID();
    const { order, created } = await this.deps.ledger.create({
      id,
      platform: player.platform,
      appId: player.appId,
      userId: player.userId,
      openid: kept.openid,
      orderId: request.orderId,
      kind: "coin_spend",
      itemId: request.itemId,
      coins: request.coins,
      quantity: request.unitPrice !== undefined ? (request.quantity ?? 1) : undefined,
      unitPrice: request.unitPrice,
      catalogVersion: request.catalogVersion,
      liveEvent: request.liveEvent,
      platformOrderId: billNumberOf(id),
      env: keys.env,
      createdAt: new Date(this.now()).toISOString(),
    });
    if (!created) return this.replay(player, request, true, order);
    (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(order);
    return { order: answerable(await this.settle(order, kept, true)), created: true };
  }

  /**
   * A request for an orderId already used: the same order when the body matches (driving it on if
   * it is still pending and no one here works on it), 409 otherwise. A failed order answers its error.
   */
  private async replay(player: PaymentPlayer, request: SpendRequest, drive: boolean, known?: Order): Promise<SpendResult> {
    let order = known ?? (await this.deps.ledger.findByOrderId(player.userId, request.orderId));
    if (!order) throw new AppError("order_not_found", { data: { orderId: request.orderId } });
    const otherQuantity = order.quantity != null && order.quantity !== (request.quantity ?? 1);
    if (order.kind !== "coin_spend" || order.itemId !== request.itemId || order.coins !== request.coins || otherQuantity) throw conflict(request.orderId);
    if (order.state === "failed") await this.releaseHold(order);
    const kept = drive && order.state === "pending" ? await this.deps.keptKey(player) : undefined;
    // Left pending by a request that is gone (a timeout, a crash), or waiting for the login the platform
    // asked for (payment_login_required) that has happened since: the same bill number again, now.
    const stale = Date.parse(order.updatedAt) < this.now() - this.timings.settleAfterMs;
    const loggedInSince = kept?.keptAt !== undefined && kept.keptAt > Date.parse(order.updatedAt);
    if (kept && kept.openid === order.openid && (stale || loggedInSince)) {
      order = await this.settle(order, kept, false);
    } else if (order.state === "pending" && this.awaitingLogin.has(order.id)) {
      throw new AppError("payment_login_required", { data: { order: publicOrder(order), platform: order.platform } });
    } else if (order.state === "paid") {
      order = await this.delivery.deliver(order);
    }
    order = (await this.delivery.settled(order.id)) ?? order;
    return { order: answerable(order), created: false };
  }

  /**
   * Asks the platform to deduct (again, with the same bill number, when retrying) and records the
   * outcome. A refusal on the first attempt proves nothing was taken: the order fails. On a retry a
   * refusal about the session or the keys comes before the platform looks at the bill number, so an
   * earlier attempt may still have deducted: the order stays pending for the reconciler.
   */
  async settle(order: Order, kept: KeptPlayerKey, firstAttempt: boolean): Promise<Order> {
    const keys = requireKeys(this.deps, order.platform, order.appId);
    const wallet = requireWallet(this.deps, order.platform, order.appId);
    const player = { userId: order.userId, platform: order.platform, appId: order.appId };
    const at = () => new Date(this.now()).toISOString();
    // The catalog's per-player rules, decided with every other purchase of the player before
    // anything is deducted (a retry answers the first decision): a refusal fails the order unpaid.
    const refusal = await this.deps.orderRules?.reserve(order);
    if (refusal) {
      const failed = await this.deps.ledger.transition(order.id, "pending", "failed", { at: at(), failure: refusal });
      if (failed) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(failed);
      return failed ?? (await this.deps.ledger.findById(order.id)) ?? order;
    }
    try {
      await this.deps.withAccessToken(order.platform, order.appId, (token) =>
        wallet.pay(walletCall(player, { ...keys, env: order.env }, kept, token), { billNo: order.platformOrderId, amount: order.coins, itemId: order.itemId }),
      );
    } catch (err) {
      if (err instanceof WalletRefusal && err.code === "payment_login_required") {
        // The platform refused the kept session key before it looked at the bill: nothing was taken by
        // this call, and the bill number is still unused. The order stays pending, so the same orderId
        // after the player's next login is charged and delivered (at once: see replay), and the client
        // is told to log in, never that the platform did not answer.
        this.deps.logger.warn({ event: "payment_login_required", order: order.id, orderId: order.orderId }, "the platform refused the player's session key; the order waits for their next login");
        if (this.awaitingLogin.size >= 10_000) this.awaitingLogin.delete(this.awaitingLogin.values().next().value as string);
        this.awaitingLogin.add(order.id);
        throw new AppError("payment_login_required", { data: { order: publicOrder(order), platform: err.platform, errcode: err.errcode }, cause: err });
      }
      const decisive = err instanceof WalletRefusal && (firstAttempt || err.code === "insufficient_balance" || err.code === "payment_refused");
      if (!decisive) {
        this.deps.logger.warn({ err, event: "payment_unconfirmed", order: order.id, orderId: order.orderId }, "the platform did not confirm a deduction; the order stays pending");
        throw new AppError("payment_unconfirmed", { data: { order: publicOrder(order) }, cause: err });
      }
      const failed = await this.deps.ledger.transition(order.id, "pending", "failed", { at: at(), failure: err.code });
      if (failed) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(failed);
      const settled = failed ?? (await this.deps.ledger.findById(order.id)) ?? order;
      if (settled.state === "failed") await this.releaseHold(settled);
      return settled;
    }
    this.awaitingLogin.delete(order.id);
    this.deps.crashPoint?.("after_pay_sent");
    const paid = await this.deps.ledger.transition(order.id, "pending", "paid", { at: at() });
    this.deps.crashPoint?.("after_paid");
    if (paid) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(paid);
    const current = paid ?? (await this.deps.ledger.findById(order.id)) ?? order;
    return this.delivery.deliver(current, true);
  }

  /**
   * Gives back the purchase a failed order held (nothing was deducted), once whoever calls it. A
   * failure here leaves the hold counted (never more than the rules allow); a replay of the order
   * tries again.
   */
  private async releaseHold(order: Order): Promise<void> {
    if (!this.deps.orderRules || (order.failure && RULE_FAILURES.has(order.failure))) return;
    await this.deps.orderRules.release(order).catch((err: unknown) => {
      this.deps.logger.warn({ err, event: "order_hold_release_failed", order: order.id, orderId: order.orderId }, "a failed order's purchase hold could not be given back yet; a replay of the order retries");
    });
  }

  private async requireKept(player: PaymentPlayer): Promise<KeptPlayerKey> {
    const kept = await this.deps.keptKey(player);
    if (!kept) throw new AppError("session_key_missing", { data: { platform: player.platform } });
    return kept;
  }
}

function notAnAppError(err: unknown): undefined {
  if (err instanceof AppError) return undefined;
  throw err;
}

function sameRequest(a: SpendRequest, b: SpendRequest): boolean {
  return a.itemId === b.itemId && a.coins === b.coins && (a.quantity ?? 1) === (b.quantity ?? 1);
}

function conflict(orderId: string): AppError {
  return new AppError("order_conflict", { data: { orderId } });
}

/** A failed order is answered as the error that failed it (402, 502…), with the order; others as they are. */
function answerable(order: Order): Order {
  if (order.state === "failed" && order.failure && FAILURE_ERRORS.has(order.failure)) {
    throw new AppError(order.failure as ErrorCode, { data: { order: publicOrder(order) } });
  }
  if (order.state === "pending") throw new AppError("payment_unconfirmed", { data: { order: publicOrder(order) } });
  return order;
}

/** The order as clients see it (contract: orderId, itemId, coins, state, platform, platformOrderId, timestamps). */
export function publicOrder(order: Order): Record<string, unknown> {
  return {
    orderId: order.orderId,
    kind: order.kind,
    itemId: order.itemId,
    coins: order.coins,
    state: order.state,
    platform: order.platform,
    platformOrderId: order.platformOrderId,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    // What a coin spend paid for, as priced (absent on older orders and other kinds).
    ...(order.quantity != null ? { quantity: order.quantity } : {}),
    ...(order.unitPrice != null ? { unitPrice: order.unitPrice } : {}),
    ...(order.catalogVersion != null ? { catalogVersion: order.catalogVersion } : {}),
    // The live event whose sale priced it (docs/liveops.md).
    ...(order.liveEvent ? { liveEvent: order.liveEvent } : {}),
    // Why a failed or refunded order is so (e.g. a pushed purchase the catalog refused: price_below_catalog).
    ...(order.failure ? { failure: order.failure } : {}),
  };
}

/**
 * The console's queue of paid orders that need a person: what the reconciler has had its turn at
 * and not finished (a delivery that keeps failing, a coin spend whose outcome is unknown, a grant
 * never confirmed), and the pushed item purchases the catalog refused (the platform took the money,
 * nothing was delivered). Each with its reason and what an operator may do about it, through the
 * payments' own operations: no other way to move money or grant goods. Knows nothing of Express.
 */
import { AppError } from "../../core/errors";
import type { Order, OrderLedger } from "../../core/ports/order-ledger";
import type { UserStore } from "../../core/ports/user-store";
import type { PlatformDefinition } from "../../platforms/platform";
import type { PaymentOperations } from "../payments/payment-operations";
import type { PaymentService } from "../payments/payment-service";

/** Why an order is in the queue. */
export type QueueReason =
  /** Paid; the game's delivery was tried and failed (the reconciler keeps retrying). */
  | "delivery_failing"
  /** Paid; no delivery tried yet, past the settle time (no hook registered, or a process died). */
  | "delivery_waiting"
  /** A coin spend the platform has not confirmed: it waits for the player's next login, or (after a day) for a person to check with the platform. */
  | "outcome_unknown"
  /** A coin grant sent and not confirmed: presenting it again is harmless (the same bill number). */
  | "grant_unconfirmed"
  /** A pushed item purchase the catalog refused (order.failure says why): paid, never delivered. */
  | "push_refused";

export type QueueAction = "retry" | "refund" | "record_refund";

export interface QueueEntry {
  order: Order;
  reason: QueueReason;
  /** The player, to find them (null when erased since). */
  player: { username: string; nickname: string | null } | null;
  /** What an operator can do here; a refund only where the order's platform refunds it. */
  actions: QueueAction[];
}

export interface OrderQueueDeps {
  ledger: OrderLedger;
  payments: Pick<PaymentService, "delivery">;
  operations: Pick<PaymentOperations, "refund" | "presentPending" | "deliverRefusedPurchase">;
  platformDefinitions: readonly PlatformDefinition[];
  store: Pick<UserStore, "findById">;
  /** Orders younger than this are still a request's: left out. */
  settleAfterMs: number;
  now?: () => number;
}

const LIMIT = 200;

export class OrderQueue {
  private readonly now: () => number;

  constructor(private readonly deps: OrderQueueDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The queue, most recently changed first. */
  async list(): Promise<QueueEntry[]> {
    const cutoff = new Date(this.now() - this.deps.settleAfterMs).toISOString();
    const orders = await this.deps.ledger.listNeedingAttention(cutoff, LIMIT);
    const users = new Map<string, QueueEntry["player"]>();
    for (const userId of new Set(orders.map((o) => o.userId))) {
      const user = await this.deps.store.findById(userId);
      users.set(userId, user ? { username: user.username, nickname: user.nickname } : null);
    }
    return orders.map((order) => ({ order, reason: reasonOf(order), player: users.get(order.userId) ?? null, actions: this.actionsOf(order) }));
  }

  /**
   * Tries again what is owed: a paid order's delivery (the game's hook, idempotent by order id), a
   * grant's presentation, a refused push's delivery once the catalog takes it. Answers the order after.
   */
  async retry(userId: string, id: string): Promise<Order> {
    const order = await this.require(userId, id);
    if (order.state === "paid") {
      const after = await this.deps.payments.delivery.deliver(order);
      return (await this.deps.payments.delivery.settled(after.id)) ?? after;
    }
    if (order.state === "pending" && order.kind === "coin_grant") return this.deps.operations.presentPending(order);
    if (order.state === "failed" && order.kind === "item_purchase") return this.deps.operations.deliverRefusedPurchase(order);
    if (order.state === "delivered") return order; // done meanwhile: a repeat changes nothing
    throw new AppError("invalid_request", { message: `Nothing to retry for a ${order.kind} in state ${order.state}: a coin spend of unknown outcome is asked again at the player's next login` });
  }

  /** A coin spend's refund through the platform's cancel, where the platform has one (Douyin has none). */
  async refund(userId: string, id: string): Promise<Order> {
    const order = await this.require(userId, id);
    if (order.state === "refunded") return order; // refunded before (here, on the player's orders, or recorded): the same answer
    if (!this.refundable(order)) {
      throw new AppError("order_refund_unsupported", { data: { platform: order.platform, kind: order.kind, orderId: order.orderId } });
    }
    return this.deps.operations.refund(order.userId, order.orderId);
  }

  /**
   * Records that a refused push was refunded on the platform (its merchant console: no refund of
   * item purchases is called from here), so it leaves the queue. Moves no money; audited by the edge.
   */
  async recordRefund(userId: string, id: string): Promise<Order> {
    const order = await this.require(userId, id);
    if (order.state === "refunded") return order;
    if (order.kind !== "item_purchase" || order.state !== "failed") {
      throw new AppError("invalid_request", { message: `Only a refused item purchase is recorded as refunded on the platform; this order is a ${order.kind} in state ${order.state}` });
    }
    const at = new Date(this.now()).toISOString();
    return (await this.deps.ledger.transition(order.id, "failed", "refunded", { at, failure: "refunded_on_platform" })) ?? (await this.require(userId, id));
  }

  private actionsOf(order: Order): QueueAction[] {
    const reason = reasonOf(order);
    const actions: QueueAction[] = [];
    if (reason !== "outcome_unknown") actions.push("retry");
    if (this.refundable(order)) actions.push("refund");
    if (reason === "push_refused") actions.push("record_refund");
    return actions;
  }

  /** A paid or delivered coin spend on a platform whose wallet can cancel it. */
  private refundable(order: Order): boolean {
    const definition = this.deps.platformDefinitions.find((d) => d.name === order.platform);
    return order.kind === "coin_spend" && (order.state === "paid" || order.state === "delivered") && definition?.coins?.refunds === true;
  }

  /** The order of that id, if it is that player's (the edge audits actions against the player). */
  private async require(userId: string, id: string): Promise<Order> {
    const order = await this.deps.ledger.findById(id);
    if (!order || order.userId !== userId) throw new AppError("order_not_found", { data: { orderId: id } });
    return order;
  }
}

function reasonOf(order: Order): QueueReason {
  if (order.state === "failed") return "push_refused";
  if (order.state === "paid") return order.attempts > 0 ? "delivery_failing" : "delivery_waiting";
  return order.kind === "coin_grant" ? "grant_unconfirmed" : "outcome_unknown";
}

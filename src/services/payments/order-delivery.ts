/**
 * Delivery of paid orders to the game: claim, call the game's hook, record `delivered`, tell the
 * player. A claim is a lease in the ledger, so across every process one deliverer at a time runs
 * the hook for an order; a crash or a failing hook leaves the order `paid` and the lease lapses, so
 * the reconciler claims it again. The hook therefore runs at least once, and more than once only
 * after a failure or a crash: it gets the order's id as its idempotency key.
 */
import type { Order } from "../../core/ports/order-ledger";
import { NO_PAYMENT_EVENTS, type DeliverItem, type PaymentDeps, type PaymentTimings } from "./payment-deps";

/** Until a game registers its hook, paid orders wait (and the reconciler retries them). */
const NO_HOOK: DeliverItem = async () => {
  throw new Error("no delivery hook is registered (payments.onDeliver)");
};

const POLL_MS = 50;

export class OrderDelivery {
  private hook: DeliverItem = NO_HOOK;
  private readonly now: () => number;

  constructor(
    private readonly deps: Pick<PaymentDeps, "ledger" | "notifyPlayer" | "logger" | "events" | "now" | "crashPoint">,
    private readonly timings: Pick<PaymentTimings, "deliveryLeaseMs" | "replayWaitMs">,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** Registers the game's hook (one per process; a second call replaces the first). */
  onDeliver(hook: DeliverItem): void {
    this.hook = hook;
  }

  /**
   * Delivers a paid order if no one else is, and answers the order as it then stands: `delivered`
   * when this or another deliverer finished, `paid` when the hook failed or another still runs.
   * `awaitOther`: when another deliverer holds the claim, wait for it (up to replayWaitMs) rather than
   * answer `paid` at once; the request that paid the order uses it, since a replay in another process
   * may have claimed the delivery first.
   */
  async deliver(order: Order, awaitOther = false): Promise<Order> {
    if (order.state !== "paid") return order;
    const now = this.now();
    const claimed = await this.deps.ledger.claimDelivery(order.id, order.attempts, new Date(now).toISOString(), new Date(now + this.timings.deliveryLeaseMs).toISOString());
    if (!claimed) {
      const current = (await this.deps.ledger.findById(order.id)) ?? order;
      return awaitOther ? ((await this.settled(order.id)) ?? current) : current;
    }
    const events = this.deps.events ?? NO_PAYMENT_EVENTS;
    try {
      const running = this.hook(claimed);
      this.deps.crashPoint?.("during_delivery");
      await running;
    } catch (err) {
      this.deps.logger.error({ err, event: "order_delivery_failed", order: claimed.id, orderId: claimed.orderId, attempt: claimed.attempts }, "the delivery hook failed; the reconciler retries it");
      events.deliveryFailed(claimed);
      return claimed;
    }
    const delivered = await this.deps.ledger.transition(claimed.id, "paid", "delivered", { at: new Date(this.now()).toISOString() });
    if (!delivered) return (await this.deps.ledger.findById(order.id)) ?? claimed;
    events.orderChanged(delivered);
    events.delivered(delivered, this.now() - Date.parse(delivered.createdAt));
    this.deps.logger.info({ event: "order_delivered", order: delivered.id, orderId: delivered.orderId, kind: delivered.kind, platform: delivered.platform }, "order delivered");
    this.deps.notifyPlayer(delivered);
    return delivered;
  }

  /** Waits (up to replayWaitMs) while the order is being paid or delivered elsewhere, then answers it as it stands. */
  async settled(id: string): Promise<Order | null> {
    const deadline = this.now() + this.timings.replayWaitMs;
    let order = await this.deps.ledger.findById(id);
    let claimTried = false;
    while (order && this.now() < deadline) {
      // Paid and claimed by no one: its deliverer may be a moment from claiming it, or gone. Claiming it
      // here is safe (one claim wins) and keeps a replay from answering `paid` in that moment.
      if (!claimTried && order.state === "paid" && !leased(order, this.now())) {
        claimTried = true;
        order = await this.deliver(order);
        continue;
      }
      if (!inFlight(order, this.now())) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      order = await this.deps.ledger.findById(id);
    }
    return order;
  }
}

function leased(order: Order, now: number): boolean {
  return order.leaseUntil !== null && Date.parse(order.leaseUntil) > now;
}

/** Whether someone is (probably) still working on the order: pending, or paid under a live lease. */
function inFlight(order: Order, now: number): boolean {
  if (order.state === "pending") return true;
  return order.state === "paid" && leased(order, now);
}

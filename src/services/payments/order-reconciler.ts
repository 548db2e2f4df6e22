/**
 * Finishes what requests left behind: on start and then periodically, every order still `pending`
 * or `paid` a while after its last change.
 * - `paid`: delivered (the delivery claim keeps two processes from running the hook together).
 * - `pending` coin spend: its result is unknown (a timeout or a crash after the deduction was sent),
 *   so the platform is asked again with the same bill number, which answers the original outcome
 *   and never deducts twice. WeChat signs with the player's session key: with none kept (the player
 *   logged out, or the memory cache was lost with the process) the order waits for their next login.
 *   Past `retryBillForMs` the platform may have forgotten the bill number, so it is left alone and
 *   logged for an operator (`npm run admin -- orders`).
 * - `pending` coin grant: presented again with its bill number, then recorded delivered.
 * Item purchases arrive `paid` (by the push, or by the order query when a player reads an order the
 * push did not bring: item-order-lookup.ts), so only the first step applies to them. The reconciler
 * never asks the platform for item orders: it cannot know an order no push brought, and the number
 * to ask with is only in the player's client, which asks by reading the order.
 */
import type { Order } from "../../core/ports/order-ledger";
import type { Logger } from "../../logging/logger";
import { NO_PAYMENT_EVENTS, type PaymentDeps, type PaymentTimings } from "./payment-deps";
import type { PaymentOperations } from "./payment-operations";
import type { PaymentService } from "./payment-service";

const BATCH = 100;
const MAX_PAGES = 100;

/** One sweep as the console's health screen shows it. */
export interface ReconcilerRun {
  startedAt: string;
  finishedAt: string;
  ok: boolean;
}

export class OrderReconciler {
  /** The last few sweeps of this process, newest first. */
  readonly runs: ReconcilerRun[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly deps: Pick<PaymentDeps, "ledger" | "keptKey" | "events" | "now"> & { logger: Logger },
    private readonly payments: PaymentService,
    private readonly operations: PaymentOperations,
    private readonly timings: Pick<PaymentTimings, "settleAfterMs" | "retryBillForMs">,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** A sweep now, then one every `intervalMs`; sweeps never overlap in one process. */
  start(intervalMs: number): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over the unsettled orders; resolves when it is done (tests call it directly). */
  sweep(): Promise<void> {
    if (!this.running) {
      const startedAt = new Date(this.now()).toISOString();
      let ok = true;
      this.running = this.sweepOnce()
        .catch((err: unknown) => {
          ok = false;
          this.deps.logger.error({ err, event: "order_reconcile_failed" }, "order reconciliation failed; the next sweep retries");
        })
        .finally(() => {
          this.runs.unshift({ startedAt, finishedAt: new Date(this.now()).toISOString(), ok });
          this.runs.length = Math.min(this.runs.length, 10);
          this.running = undefined;
        });
    }
    return this.running;
  }

  /** Page by page, oldest first: orders that stay unsettled (waiting for a login) never hide newer ones. */
  private async sweepOnce(): Promise<void> {
    const cutoff = new Date(this.now() - this.timings.settleAfterMs).toISOString();
    let after: Order | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const orders = await this.deps.ledger.listUnsettled(cutoff, BATCH, after && { updatedAt: after.updatedAt, id: after.id });
      for (const order of orders) {
        try {
          await this.reconcile(order);
        } catch (err) {
          this.deps.logger.warn({ err, event: "order_reconcile_failed", order: order.id, orderId: order.orderId }, "an order could not be reconciled; the next sweep retries");
        }
      }
      if (orders.length < BATCH) return;
      // The next page: after the last order as listed (its state may have changed since; the cursor is what was read).
      after = orders[orders.length - 1];
    }
  }

  private async reconcile(order: Order): Promise<void> {
    const events = this.deps.events ?? NO_PAYMENT_EVENTS;
    if (order.state === "paid") {
      const after = await this.payments.delivery.deliver(order);
      if (after.state === "delivered") events.reconcilerAction("delivered");
      return;
    }
    if (this.now() - Date.parse(order.createdAt) > this.timings.retryBillForMs) {
      events.reconcilerAction("too_old");
      this.deps.logger.error({ event: "order_unconfirmed_too_old", order: order.id, orderId: order.orderId, platform: order.platform }, "an order's outcome is still unknown past the bill-number window: an operator must check it with the platform");
      return;
    }
    if (order.kind === "coin_grant") {
      await this.operations.presentPending(order);
      events.reconcilerAction("delivered");
      return;
    }
    if (order.kind !== "coin_spend") return;
    const kept = await this.deps.keptKey({ userId: order.userId, platform: order.platform, appId: order.appId });
    if (!kept || kept.openid !== order.openid) {
      events.reconcilerAction("waiting_for_login");
      return;
    }
    let after: Order;
    try {
      after = await this.payments.settle(order, kept, false);
    } catch {
      events.reconcilerAction("left_unknown");
      return;
    }
    events.reconcilerAction(after.state === "failed" ? "failed" : after.state === "delivered" ? "delivered" : "paid");
    this.deps.logger.info({ event: "order_reconciled", order: order.id, orderId: order.orderId, state: after.state }, "an order left unsettled was settled");
  }
}

/**
 * Payment metrics, on the server's registry (observability/metrics.ts; here, beside the wiring, because it fills in the services' event interface): orders by platform, kind and state (read
 * from the ledger at scrape, so every process reports the same totals), state changes made by this
 * process, delivery latency (order created → delivered), failed deliveries and the reconciler's actions.
 */
import client from "prom-client";
import type { Order, OrderLedger } from "../core/ports/order-ledger";
import type { PaymentEvents } from "../services/payments/payment-deps";

export function paymentMetrics(registry: client.Registry, ledger: Pick<OrderLedger, "countByState">): PaymentEvents {
  new client.Gauge({
    name: "payment_orders",
    help: "Orders in the ledger by platform, kind (coin_spend, coin_grant, item_purchase) and state",
    labelNames: ["platform", "kind", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await ledger.countByState()) this.set({ platform: row.platform, kind: row.kind, state: row.state }, row.count);
    },
  });
  const changes = new client.Counter({
    name: "payment_order_changes_total",
    help: "Orders this process created or moved, by platform, kind and the state entered",
    labelNames: ["platform", "kind", "state"] as const,
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: "payment_delivery_seconds",
    help: "From an order's creation to its delivery (the game's hook returned)",
    labelNames: ["platform", "kind"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600],
    registers: [registry],
  });
  const failures = new client.Counter({
    name: "payment_delivery_failures_total",
    help: "Delivery attempts whose hook threw (the reconciler retries them)",
    labelNames: ["platform", "kind"] as const,
    registers: [registry],
  });
  const reconciler = new client.Counter({
    name: "payment_reconciler_actions_total",
    help: "What the reconciler did with unsettled orders (delivered, paid, failed, waiting_for_login, left_unknown, too_old)",
    labelNames: ["action"] as const,
    registers: [registry],
  });
  return {
    orderChanged: (order: Order) => changes.inc({ platform: order.platform, kind: order.kind, state: order.state }),
    delivered: (order: Order, ms: number) => latency.observe({ platform: order.platform, kind: order.kind }, ms / 1000),
    deliveryFailed: (order: Order) => failures.inc({ platform: order.platform, kind: order.kind }),
    reconcilerAction: (action) => reconciler.inc({ action }),
  };
}

/**
 * The facts other services report, as analytics events. Each fact with an id of its own gives the
 * event a derived id, so the same fact reported twice (a replay, another process) is stored once.
 */
import type { AnalyticsRecorder } from "../../core/ports/analytics-store";
import type { Order } from "../../core/ports/order-ledger";
import type { PaymentEvents } from "../payments/payment-deps";
import { SERVER_EVENTS } from "./event-names";

/**
 * A delivered order's revenue: a coin spend in the platform's coins (`<platform>_coins`), an item
 * bought through the platform at the price it reported (`<platform>_price`, the platform's unit:
 * docs/analytics.md). A coin grant is an operator's gift, not revenue: it is not reported.
 */
export function recordingDeliveries(events: PaymentEvents, recorder: AnalyticsRecorder, appOf: (order: Order) => string | undefined): PaymentEvents {
  return {
    ...events,
    delivered(order, latencyMs) {
      events.delivered(order, latencyMs);
      if (order.kind === "coin_grant") return;
      const unit = `${order.platform}_${order.kind === "item_purchase" ? "price" : "coins"}`;
      let app: string | undefined;
      try {
        app = appOf(order);
      } catch {
        // An app no longer configured: the revenue still counts, under "unknown".
      }
      recorder.record({
        id: `order:${order.id}`,
        name: SERVER_EVENTS.orderDelivered,
        app: app ?? "unknown",
        platform: order.platform,
        userId: order.userId,
        props: { kind: order.kind, itemId: order.itemId, revenue: order.coins, unit, coins: order.coins },
      });
    },
  };
}

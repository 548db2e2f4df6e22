/**
 * The facts other services report, as analytics events. Each fact with an id of its own gives the
 * event a derived id, so the same fact reported twice (a replay, another process) is stored once.
 */
import type { AnalyticsRecorder } from "../../core/ports/analytics-store";
import type { Order } from "../../core/ports/order-ledger";
import type { PaymentEvents } from "../payments/payment-deps";
import type { RewardListener } from "../economy/reward-granter";
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

const GRANT_EVENTS: Readonly<Record<string, string>> = {
  gift_pack: SERVER_EVENTS.gift,
  gift_code: SERVER_EVENTS.gift,
  mail: SERVER_EVENTS.mailClaim,
  operator: SERVER_EVENTS.operatorGrant,
};

/** Grants whose currency is no player's gain in the game: a purchase's grants are its goods, an import's were earned elsewhere. */
const NOT_SOURCES = new Set(["purchase", "import"]);

/**
 * Gifts, mail claims and operator grants as events, from the granter's notice of each grant that
 * changed something (never a replay); the ledger's (app, source, sourceId) gives the event's id, so
 * a grant is one event whichever process reports it. Any other grant of soft currency (a rewarded
 * ad, a growth surface, a season reward, a paid order's currency) is a `currency_granted` event
 * beside the source's own, so the day's soft-currency sources are whole.
 */
export function recordingGrants(recorder: AnalyticsRecorder): RewardListener {
  return (notice) => {
    const currencies = Object.fromEntries(Object.entries(notice.currencies).map(([currency, amount]) => [`currency_${currency}`, amount]));
    const name = GRANT_EVENTS[notice.source] ?? (NOT_SOURCES.has(notice.source) || Object.keys(currencies).length === 0 ? undefined : SERVER_EVENTS.currencyGranted);
    if (!name) return;
    recorder.record({
      id: `grant:${notice.appId}:${notice.source}:${notice.sourceId}`,
      name,
      app: notice.appId,
      userId: notice.userId,
      props: { source: notice.source, sourceId: notice.sourceId, ...currencies, items: notice.items.reduce((sum, i) => sum + i.count, 0) },
    });
  };
}

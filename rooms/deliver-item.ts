/**
 * The game's delivery hook: where a paid order becomes the item in the player's inventory. A studio
 * replaces the body with its own (add the item, grant the currency, unlock the level), keyed by
 * `order.id` so that a repeated call changes nothing: the server calls it at least once per paid
 * order, and again after a crash or a failure of an earlier call. It runs in the server process;
 * throwing leaves the order `paid`, and the reconciler calls it again later (docs/payments.md).
 * The example game keeps no inventory: it logs what it would give.
 */
import type { Order } from "../src/core/ports/order-ledger";
import type { Logger } from "../src/logging/logger";

export async function deliverItem(order: Order, context: { logger: Logger }): Promise<void> {
  context.logger.info(
    { event: "item_delivered", order: order.id, orderId: order.orderId, userId: order.userId, itemId: order.itemId, coins: order.coins, kind: order.kind },
    "the example game would give the item now",
  );
}

/**
 * An item purchase the push did not bring: when a player reads an order the ledger does not have, the
 * platform is asked about it (WeChat `/xpay/query_order` with order_id = the game's outTradeNo) and, if
 * this player paid it, it is recorded exactly as the push records it (`recordItemPurchase`: the same
 * ledger facts, so the push arriving later changes nothing). Reads become platform queries only through
 * the throttle; every "no" (not found, not paid, throttled, no kept openid, the platform failing) is the
 * same answer to the caller: nothing found, so the route keeps answering 404 and a polling client polls on.
 */
import { AppError } from "../../core/errors";
import type { ItemOrderQuery, ItemOrderStatus } from "../../core/ports/item-order-query";
import type { Order } from "../../core/ports/order-ledger";
import type { PaymentDeps, PaymentPlayer } from "./payment-deps";
import type { PaymentOperations } from "./payment-operations";
import { OrderQueryThrottle, type OrderQueryGate } from "./order-query-throttle";

export interface ItemOrderLookupDeps extends Pick<PaymentDeps, "paymentKeys" | "withAccessToken" | "keptKey" | "logger"> {
  /** The platform's order query for this app; undefined where the platform has none (Douyin). */
  itemOrderQuery(platform: string, appId: string): ItemOrderQuery | undefined;
}

export class ItemOrderLookup {
  constructor(
    private readonly deps: ItemOrderLookupDeps,
    private readonly operations: Pick<PaymentOperations, "recordItemPurchase">,
    private readonly throttle: OrderQueryGate = new OrderQueryThrottle(),
  ) {}

  /** The order, recorded `paid` (delivery started), when the platform says this player paid it; otherwise undefined. */
  async find(player: PaymentPlayer, orderId: string): Promise<Order | undefined> {
    const { platform, appId, userId } = player;
    const query = this.deps.itemOrderQuery(platform, appId);
    const keys = this.deps.paymentKeys(platform, appId);
    if (!query || !keys) return undefined;
    // The openid the platform is asked about is the one this player's latest login to this app gave.
    const kept = await this.deps.keptKey(player);
    if (!kept || !(await this.throttle.allow(userId, orderId))) return undefined;
    const log = { platform, appId, orderId };
    let status: ItemOrderStatus;
    try {
      status = await this.deps.withAccessToken(platform, appId, (accessToken) => query.query({ appId, keys, accessToken, openid: kept.openid }, orderId));
    } catch (err) {
      const data = err instanceof AppError ? err.data : undefined;
      this.deps.logger.warn({ ...log, event: "item_order_query_failed", code: err instanceof AppError ? err.code : "internal_error", reason: data?.reason, errcode: data?.errcode }, "the platform could not be asked about an order; the player's next read asks again");
      return undefined;
    }
    if (status.kind !== "paid") {
      this.deps.logger.debug({ ...log, event: "item_order_not_paid", kind: status.kind }, "the platform has no paid order under this number for this player");
      return undefined;
    }
    if (status.openid !== kept.openid || status.tradeNo !== orderId) return undefined;
    if (!status.itemId) {
      this.deps.logger.error({ ...log, event: "item_order_without_item" }, "the platform says this order is paid but names no item (attach empty): it waits for the push, or an operator");
      return undefined;
    }
    let order: Order;
    try {
      order = await this.operations.recordItemPurchase(platform, appId, { openid: kept.openid, tradeNo: orderId, itemId: status.itemId, price: status.price, env: status.env });
    } catch (err) {
      // No user of this app has the openid any more (erased between the read and now): nothing to give.
      if (err instanceof AppError && err.code === "order_not_found") return undefined;
      throw err;
    }
    // The trade number was already recorded for another player (their push came first): not this player's.
    if (order.userId !== userId || order.kind !== "item_purchase") return undefined;
    this.deps.logger.info({ ...log, event: "item_order_recovered", order: order.id }, "an item purchase the push had not brought was confirmed by the platform and recorded");
    return order;
  }
}

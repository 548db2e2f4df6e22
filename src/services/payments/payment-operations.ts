/**
 * Orders that do not start with a player's coin spend: an operator's refund and grant (the admin
 * CLI), and an item bought through the platform's own payment, which the platform pushes to us.
 * Each is idempotent the same way as a spend: one bill number per order, claims in the ledger.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import type { Order } from "../../core/ports/order-ledger";
import { billNumberOf, cancelBillNumberOf, NO_PAYMENT_EVENTS, requireKeys, requireWallet, walletCall, type PaymentDeps, type PaymentPlayer } from "./payment-deps";
import type { PaymentService } from "./payment-service";

/** An item purchase as the platform's push reports it, already verified by the push route. */
export interface ItemPurchase {
  openid: string;
  /** The platform's trade number (WeChat `OutTradeNo`): the order's platformOrderId and orderId. */
  tradeNo: string;
  itemId: string;
  /** What the player paid, in the platform's unit (WeChat: fen). */
  price: number;
  env: 0 | 1;
}

export class PaymentOperations {
  private readonly now: () => number;

  constructor(
    private readonly deps: PaymentDeps,
    private readonly payments: PaymentService,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Gives a coin spend's coins back through the platform's cancel (WeChat `cancelpay`; Douyin has
   * none: payment_refused). Idempotent: the cancel's bill number is derived from the deduction's.
   */
  async refund(userId: string, orderId: string): Promise<Order> {
    let order = await this.payments.getOrder(userId, orderId);
    if (order.state === "refunded") return order;
    if (order.kind !== "coin_spend" || (order.state !== "paid" && order.state !== "delivered")) {
      throw new AppError("invalid_request", { message: `Only a paid or delivered coin spend can be refunded; this order is a ${order.kind} in state ${order.state}` });
    }
    const player: PaymentPlayer = { userId, platform: order.platform, appId: order.appId };
    const keys = requireKeys(this.deps, order.platform, order.appId);
    const wallet = requireWallet(this.deps, order.platform, order.appId);
    const kept = await this.deps.keptKey(player);
    if (!kept || kept.openid !== order.openid) throw new AppError("session_key_missing", { data: { platform: order.platform } });
    await this.deps.withAccessToken(order.platform, order.appId, (token) =>
      wallet.cancel(walletCall(player, { ...keys, env: order.env }, kept, token), {
        billNo: cancelBillNumberOf(order.platformOrderId),
        payBillNo: order.platformOrderId,
        amount: order.coins,
      }),
    );
    this.deps.crashPoint?.("after_refund_sent");
    // A delivery may finish between the read and this change: then it is refunded from delivered.
    for (let i = 0; i < 3 && order.state !== "refunded"; i++) {
      const at = new Date(this.now()).toISOString();
      const refunded = await this.deps.ledger.transition(order.id, order.state, "refunded", { at, failure: "operator_refund" });
      if (refunded) {
        (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(refunded);
        return refunded;
      }
      order = (await this.deps.ledger.findById(order.id)) ?? order;
    }
    return order;
  }

  /** Presents coins to a player; `grantId` is the operator's idempotency key (the same one again: the same grant). */
  async grant(player: PaymentPlayer, grantId: string, coins: number, reason: string): Promise<Order> {
    return (await this.grantOnce(player, grantId, coins, reason)).order;
  }

  /** `grant`, also saying whether this call recorded the grant (false: the grant id was used before, nothing new was given). */
  async grantOnce(player: PaymentPlayer, grantId: string, coins: number, reason: string): Promise<{ order: Order; created: boolean }> {
    const keys = requireKeys(this.deps, player.platform, player.appId);
    const kept = await this.deps.keptKey(player);
    if (!kept) throw new AppError("session_key_missing", { data: { platform: player.platform } });
    const id = crypto.randomUUID();
    const { order, created } = await this.deps.ledger.create({
      id,
      platform: player.platform,
      appId: player.appId,
      userId: player.userId,
      openid: kept.openid,
      orderId: grantId,
      kind: "coin_grant",
      // No item: coins. The reason is the operator's, kept as such.
      itemId: "",
      reason,
      coins,
      platformOrderId: billNumberOf(id),
      env: keys.env,
      createdAt: new Date(this.now()).toISOString(),
    });
    if (!created && (order.kind !== "coin_grant" || order.coins !== coins)) throw new AppError("order_conflict", { data: { orderId: grantId } });
    if (created) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(order);
    return { order: order.state === "pending" ? await this.presentPending(order) : order, created };
  }

  /** Presents a pending grant (again: the bill number makes a repeat harmless) and records it delivered. */
  async presentPending(order: Order): Promise<Order> {
    const player: PaymentPlayer = { userId: order.userId, platform: order.platform, appId: order.appId };
    const keys = requireKeys(this.deps, order.platform, order.appId);
    const wallet = requireWallet(this.deps, order.platform, order.appId);
    const kept = await this.deps.keptKey(player);
    if (!kept || kept.openid !== order.openid) throw new AppError("session_key_missing", { data: { platform: order.platform } });
    await this.deps.withAccessToken(order.platform, order.appId, (token) =>
      wallet.present(walletCall(player, { ...keys, env: order.env }, kept, token), { billNo: order.platformOrderId, amount: order.coins }),
    );
    this.deps.crashPoint?.("after_grant_sent");
    const delivered = await this.deps.ledger.transition(order.id, "pending", "delivered", { at: new Date(this.now()).toISOString() });
    if (delivered) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(delivered);
    return delivered ?? (await this.deps.ledger.findById(order.id)) ?? order;
  }

  /**
   * Records a pushed item purchase as a paid order (once per player, app and trade number, however
   * often it is pushed; never confused with a coin order of the same number) and starts its delivery without waiting for it: the push is answered once the order is
   * durably recorded; a failed or interrupted delivery is the reconciler's.
   */
  async recordItemPurchase(platform: string, appId: string, purchase: ItemPurchase): Promise<Order> {
    const userId = await this.deps.userIdForOpenid(platform, appId, purchase.openid);
    if (!userId) throw new AppError("order_not_found", { message: "No player of this app has that openid", data: { platform } });
    const refusal = this.deps.refuseItemPurchase?.(platform, appId, purchase.itemId, purchase.price) ?? null;
    const { order, created } = await this.deps.ledger.create({
      id: crypto.randomUUID(),
      platform,
      appId,
      userId,
      openid: purchase.openid,
      orderId: purchase.tradeNo,
      kind: "item_purchase",
      itemId: purchase.itemId,
      coins: purchase.price,
      platformOrderId: purchase.tradeNo,
      env: purchase.env,
      // Refused by the catalog: recorded (the platform took money: an operator refunds it), never paid out.
      state: refusal ? "pending" : "paid",
      createdAt: new Date(this.now()).toISOString(),
    });
    // The ledger keys item purchases apart from every other order (order-ledger.ts); were that ever
    // broken, the push must fail, so the platform pushes again, rather than be acknowledged unrecorded.
    const recorded = order.kind === "item_purchase" && order.userId === userId && order.platform === platform && order.appId === appId && order.platformOrderId === purchase.tradeNo;
    if (!recorded) throw new Error(`the ledger answered order ${order.id} for an item purchase that is not it`);
    if (created) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(order);
    if (refusal && order.state === "pending") return this.refuseItemPurchase(order, refusal);
    if (order.state === "paid") {
      void this.payments.delivery.deliver(order).catch((err: unknown) => this.deps.logger.error({ err, event: "order_delivery_failed", order: order.id }, "delivery of an item purchase failed; the reconciler retries it"));
    }
    return order;
  }

  /**
   * Delivers a pushed purchase the catalog refused, once the catalog takes it (an operator added the
   * item or corrected its price): the same check as the push's, then `failed` → `paid` and the
   * delivery every paid order gets (keyed by the order's id: granted once). Still refused: 409
   * order_still_refused with the reason, nothing changed.
   */
  async deliverRefusedPurchase(order: Order): Promise<Order> {
    if (order.kind !== "item_purchase" || order.state !== "failed") {
      throw new AppError("invalid_request", { message: `Only a refused item purchase is delivered this way; this order is a ${order.kind} in state ${order.state}` });
    }
    const refusal = this.deps.refuseItemPurchase?.(order.platform, order.appId, order.itemId, order.coins) ?? null;
    if (refusal) throw new AppError("order_still_refused", { data: { reason: refusal, itemId: order.itemId } });
    const paid = await this.deps.ledger.transition(order.id, "failed", "paid", { at: new Date(this.now()).toISOString(), failure: null });
    if (paid) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(paid);
    const current = paid ?? (await this.deps.ledger.findById(order.id)) ?? order;
    const delivered = await this.payments.delivery.deliver(current);
    return (await this.payments.delivery.settled(delivered.id)) ?? delivered;
  }

  /** Records a pushed purchase the catalog refuses as failed (a repeated push finishes one a crash left pending). */
  private async refuseItemPurchase(order: Order, reason: string): Promise<Order> {
    this.deps.logger.warn(
      { event: "item_purchase_refused", order: order.id, orderId: order.orderId, platform: order.platform, itemId: order.itemId, price: order.coins, reason },
      "a pushed item purchase does not match the catalog: recorded failed, not delivered (refund it on the platform)",
    );
    const failed = await this.deps.ledger.transition(order.id, "pending", "failed", { at: new Date(this.now()).toISOString(), failure: reason });
    if (failed) (this.deps.events ?? NO_PAYMENT_EVENTS).orderChanged(failed);
    return failed ?? (await this.deps.ledger.findById(order.id)) ?? order;
  }
}

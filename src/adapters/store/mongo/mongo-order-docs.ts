/** The documents of the MongoDB order ledger (mongo-order-ledger.ts) and the keys of its claims. */
import type { NewOrder, Order, OrderKind, OrderState } from "../../../core/ports/order-ledger";

export interface OrderDoc {
  /** Our order id (UUID). */
  _id: string;
  platform: string;
  appId: string;
  userId: string;
  openid: string;
  orderId: string;
  kind: OrderKind;
  itemId: string;
  coins: number;
  platformOrderId: string;
  env: 0 | 1;
  /** An operator grant's reason; absent otherwise. */
  reason?: string;
  /** A coin spend's terms as priced (Order.quantity…); absent on older orders and other kinds. */
  quantity?: number;
  unitPrice?: number;
  catalogVersion?: number;
  liveEvent?: string;
  initialState: OrderState;
  createdAt: Date;
  settled?: boolean;
}
/**
 * A uniqueness claim: the key belongs to order `id`. It carries the order it is for, so whoever
 * finds a claim without its order (a creation whose answer was lost, or that died) completes that
 * order instead of waiting for it: the same inserts under the same `_id`s, which cannot conflict.
 */
export interface KeyClaim {
  _id: string;
  id: string;
  at: Date;
  /** Absent on claims written before orders were completed by their finders. */
  order?: OrderDoc;
}
export interface StateClaim {
  _id: string;
  order: string;
  platform: string;
  kind: OrderKind;
  from: OrderState;
  to: OrderState;
  at: Date;
  failure?: string | null;
  /** A random id of the write that inserted it: whose it is when a lost answer makes us read it back. */
  writer?: string;
}
export interface AttemptClaim {
  _id: string;
  order: string;
  leaseUntil: Date;
  at: Date;
  writer?: string;
}

const part = (s: string) => encodeURIComponent(s);
export const orderKey = (userId: string, orderId: string) => `${part(userId)}:${part(orderId)}`;
export const platformKey = (platform: string, appId: string, platformOrderId: string) => `${part(platform)}:${part(appId)}:${part(platformOrderId)}`;
export const tradeKey = (platform: string, appId: string, userId: string, tradeNo: string) => `${part(platform)}:${part(appId)}:${part(userId)}:${part(tradeNo)}`;
/** Legacy item purchases hold coin-order claims too (see order_trades): those never answer for a coin order. */
export const coinOrder = (order: Order | null) => (order && order.kind !== "item_purchase" ? order : null);


export function orderDoc(order: NewOrder): OrderDoc {
  return {
    _id: order.id,
    platform: order.platform,
    appId: order.appId,
    userId: order.userId,
    openid: order.openid,
    orderId: order.orderId,
    kind: order.kind,
    itemId: order.itemId,
    coins: order.coins,
    platformOrderId: order.platformOrderId,
    env: order.env,
    ...(order.reason !== undefined ? { reason: order.reason } : {}),
    ...(order.quantity !== undefined ? { quantity: order.quantity } : {}),
    ...(order.unitPrice !== undefined ? { unitPrice: order.unitPrice } : {}),
    ...(order.catalogVersion !== undefined ? { catalogVersion: order.catalogVersion } : {}),
    ...(order.liveEvent !== undefined ? { liveEvent: order.liveEvent } : {}),
    initialState: order.state ?? "pending",
    createdAt: new Date(order.createdAt),
  };
}

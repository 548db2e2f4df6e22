/**
 * Asking a platform about an item purchase the server has not seen pushed (WeChat's `/xpay/query_order`,
 * platform-apis-3 §2). The push stays the normal path; this is the fallback when a push was lost or is
 * late, so the port answers one question only: has this player paid for this order, and for what.
 *
 * Outcomes: a resolved `paid` is the platform's yes; `not_paid` and `not_found` are its no (nothing to
 * record); any thrown error means it could not be asked (a PlatformTokenRejectedError heals the token
 * through the caller's helper; anything else is a platform_* AppError).
 */
import type { PaymentKeys } from "./coin-wallet";

export interface ItemOrderCall {
  /** The platform's app id the order was paid in. */
  appId: string;
  /** The app's keys; `env` says which environment is asked and which AppKey signs. */
  keys: PaymentKeys;
  accessToken: string;
  /** The player the order is asked for: the platform answers only that player's order. */
  openid: string;
}

export type ItemOrderStatus =
  /** No such order for this player (or in this env); `errcode` is the platform's, when it gave one. */
  | { kind: "not_found"; errcode?: number }
  /** The order exists but holds no payment to deliver (created, closed, refunded…): the platform's `status`. */
  | { kind: "not_paid"; status: number }
  | {
      kind: "paid";
      /** The game's order number the payment was made under (WeChat's order_id / OutTradeNo). */
      tradeNo: string;
      openid: string;
      /** What was bought; undefined when the platform's answer does not say (see the client). */
      itemId: string | undefined;
      /** What the player paid, in the platform's unit (WeChat: fen). */
      price: number;
      env: 0 | 1;
    };

export interface ItemOrderQuery {
  readonly platform: string;
  query(call: ItemOrderCall, orderId: string): Promise<ItemOrderStatus>;
}

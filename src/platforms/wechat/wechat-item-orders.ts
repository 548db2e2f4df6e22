/**
 * WeChat's order query for item purchases (道具直购), `POST /xpay/query_order` (platform-apis-3 §2):
 * the body `{openid, env, order_id}` is signed with `pay_sig` only (AppKey of that env over
 * `uri&body`); unlike the coin calls no session-key signature is sent, so no kept session key is needed.
 * The answer is `{errcode, errmsg, order: {order_id, status, order_fee, paid_fee, order_type, biz_meta,
 * env_type, wx_order_id, wxpay_order_id, …}}`.
 *
 * Confirmed against a structured copy of WeChat's VirtualPayment reference (query_order's fields, the
 * status and order_type enums, the 2684900xx table). Unconfirmed, and followed here: the answer names
 * no product, so the item is read from `biz_meta` ("what the order was created with": the `attach` the
 * game passed, which docs/payments.md asks to be the product id); an unknown order_id answers 268490002
 * and another player's order 268490001 (the table has no "no such order" entry).
 */
import { AppError } from "../../core/errors";
import type { ItemOrderCall, ItemOrderQuery, ItemOrderStatus } from "../../core/ports/item-order-query";
import type { PlatformClientDeps } from "../platform";
import { coinWalletHttp, type CoinWalletDeps } from "../shared/coin-wallet-http";
import { errcodeBusinessFailure } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import { wechatPaySig } from "./wechat-coins";

export const WECHAT_QUERY_ORDER_PATH = "/xpay/query_order";

/** The xpay errcodes this client tells apart (WeChat's VirtualPayment table). */
export const XPAY_ERRCODES = { openid: 268490001, params: 268490002, signature: 268490003, rateLimited: 268490015 } as const;

/** `order.status`: 2 paid and awaiting delivery, 3 delivering, 4 delivered; 0/1 not paid yet, 5–10 refunded or closed. */
const PAID_STATUSES: readonly number[] = [2, 3, 4];
/** `order.order_type`: 0 an ordinary payment, 7 an iOS payment (1 and 8 are refunds). */
const PAYMENT_TYPES: readonly number[] = [0, 7];
const BAD_TOKEN_CODES = [40001, 42001, 40014];

export class WechatItemOrders implements ItemOrderQuery {
  readonly platform = "wechat";
  private readonly http: PlatformClientDeps;

  constructor(deps: Omit<CoinWalletDeps, "nowSec">) {
    this.http = coinWalletHttp(deps);
  }

  async query(call: ItemOrderCall, orderId: string): Promise<ItemOrderStatus> {
    const { keys } = call;
    const body = { openid: call.openid, env: keys.env, order_id: orderId };
    // callPlatformApi sends JSON.stringify of this same object: the bytes signed are the bytes sent.
    const text = JSON.stringify(body);
    const appKey = keys.env === 1 ? keys.sandboxAppKey : keys.appKey;
    const reply = await callPlatformApi("wechat", this.http, {
      method: "POST",
      path: WECHAT_QUERY_ORDER_PATH,
      query: { access_token: call.accessToken, pay_sig: wechatPaySig(appKey, WECHAT_QUERY_ORDER_PATH, text) },
      body,
      isBusy: (r) => errorNumber(r.errcode) === -1,
    });
    const errcode = errorNumber(reply.errcode);
    if (errcode === 0) return readOrder(reply.order, call, orderId);
    if (errcode === XPAY_ERRCODES.openid || errcode === XPAY_ERRCODES.params) return { kind: "not_found", errcode };
    if (BAD_TOKEN_CODES.includes(errcode)) throw errcodeBusinessFailure({ platform: "wechat", errorTable: {}, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
    const data = { platform: "wechat", errcode, errmsg: str(reply.errmsg) };
    if (errcode === XPAY_ERRCODES.signature) throw new AppError("platform_misconfigured", { data });
    throw new AppError("platform_unavailable", { data: { ...data, reason: errcode === -1 ? "busy" : errcode === XPAY_ERRCODES.rateLimited ? "rate_limited" : "refused" } });
  }
}

function readOrder(value: unknown, call: ItemOrderCall, orderId: string): ItemOrderStatus {
  const order = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const status = order?.status;
  if (!order || typeof status !== "number" || order.order_id !== orderId) throw malformed();
  // env_type is 1 live, 2 sandbox: an order of the other env is not this app's to deliver here.
  const envType = order.env_type;
  if (envType !== undefined && envType !== (call.keys.env === 0 ? 1 : 2)) return { kind: "not_found" };
  // The documented answer names no player; should one carry an openid, another player's order is not found.
  if (typeof order.openid === "string" && order.openid !== call.openid) return { kind: "not_found" };
  const orderType = order.order_type ?? 0;
  if (!PAID_STATUSES.includes(status) || typeof orderType !== "number" || !PAYMENT_TYPES.includes(orderType)) return { kind: "not_paid", status };
  const price = order.paid_fee ?? order.order_fee;
  if (typeof price !== "number" || !Number.isInteger(price) || price < 0) throw malformed();
  const itemId = str(order.biz_meta);
  return { kind: "paid", tradeNo: orderId, openid: call.openid, itemId: itemId || undefined, price, env: call.keys.env };
}

function malformed(): AppError {
  return new AppError("platform_unavailable", { data: { platform: "wechat", reason: "malformed_response" } });
}

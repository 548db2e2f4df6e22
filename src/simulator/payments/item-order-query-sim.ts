/**
 * WeChat's item-order query in the simulator, `POST /xpay/query_order` (platform-apis-3 §2; the client
 * is src/platforms/wechat/wechat-item-orders.ts), answered from the trades the item-purchase simulator
 * made. Checks, in this order (xpay's errcodes; the two "no order" answers are the client's assumption):
 * - body not a JSON object: 47001; access token missing 41001, malformed 40014, unknown or replaced 40001, expired 42001;
 * - `env` not 0/1, `order_id` missing: 268490002; `openid` missing: 268490001;
 * - `pay_sig` not HMAC-SHA256(AppKey of that env, "/xpay/query_order&" + body): 268490003;
 * - no trade with that order_id in this app and env: 268490002 "order not exist"; another player's: 268490001.
 * A trade is paid the moment it is made: status 2 until its push was answered success, then 4.
 * Only what a trade records is answered: `biz_meta` is its item id (a game passing its product id as
 * `attach`), prices in fen, the push's merchant and transaction numbers; no times.
 */
import { WECHAT_QUERY_ORDER_PATH, XPAY_ERRCODES } from "../../platforms/wechat/wechat-item-orders";
import { wechatPaySig } from "../../platforms/wechat/wechat-coins";
import type { SimReply } from "../platform-simulator";
import type { Trade } from "./item-purchase-sim";
import type { WalletSimContext } from "./wechat-coins-sim";
import { readWechatApiCall, simError, simReply } from "./wechat-api-call";

export const ITEM_ORDER_QUERY_SIM_PATHS: readonly string[] = [WECHAT_QUERY_ORDER_PATH];

export interface ItemOrderQuerySimContext extends Pick<WalletSimContext, "tokenStatus" | "keys"> {
  trade(outTradeNo: string): Trade | undefined;
}

const reply = simReply;
const error = simError;

export function handleItemOrderQuery(query: URLSearchParams, rawBody: string, sim: ItemOrderQuerySimContext): SimReply {
  const call = readWechatApiCall(query, rawBody, sim.tokenStatus);
  if ("refused" in call) return call.refused;
  const { body, appId } = call;

  const { env, openid, order_id: orderId } = body;
  if (env !== 0 && env !== 1) return error(XPAY_ERRCODES.params, "invalid env");
  if (typeof orderId !== "string" || !orderId) return error(XPAY_ERRCODES.params, "order_id is required");
  if (typeof openid !== "string" || !openid) return error(XPAY_ERRCODES.openid, "invalid openid");
  const keys = sim.keys(appId);
  const payKey = env === 1 ? keys.sandboxAppKey : keys.appKey;
  if (query.get("pay_sig") !== wechatPaySig(payKey, WECHAT_QUERY_ORDER_PATH, rawBody)) return error(XPAY_ERRCODES.signature, "pay_sig error");

  const trade = sim.trade(orderId);
  if (!trade || trade.platform !== "wechat" || trade.appId !== appId || trade.env !== env) return error(XPAY_ERRCODES.params, "order not exist");
  if (trade.openid !== openid) return error(XPAY_ERRCODES.openid, "openid not match the order");
  return reply({
    errcode: 0,
    errmsg: "ok",
    order: {
      order_id: trade.outTradeNo,
      status: trade.acknowledged ? 4 : 2,
      order_type: 0,
      order_fee: trade.price,
      paid_fee: trade.price,
      left_fee: trade.price,
      biz_meta: trade.itemId,
      env_type: trade.env === 0 ? 1 : 2,
      wx_order_id: `wx${trade.outTradeNo}`,
      channel_order_id: `mch${trade.outTradeNo}`,
      wxpay_order_id: `tx${trade.outTradeNo}`,
    },
  });
}

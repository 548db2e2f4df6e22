/** The API description's payment operations: coins, orders and the item-purchase push (docs/payments.md). */
import { z } from "zod";
import type { ErrorCode } from "../../core/errors";
import * as p from "../payment-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerPaymentComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("Order", p.orderSchema);
  register("BalanceResponse", s.okEnvelope(p.balanceSchema));
  register("OrderResponse", s.okEnvelope(p.orderSchema));
  register("OrderListResponse", s.okEnvelope(p.orderListSchema));
  register(
    "WeChatPushReply",
    z.strictObject({
      ErrCode: z.int().min(0).max(99_999).meta({ description: "0 once the order is durably recorded; anything else makes WeChat push again", example: 0 }),
      ErrMsg: z.string().meta({ example: "Success" }),
    }),
  );
  register(
    "DouyinPushReply",
    z.strictObject({
      err_no: z.int().min(0).max(99_999).meta({ description: "0 with HTTP 200 once the order is durably recorded; Douyin reads the status, and calls again after anything but 200", example: 0 }),
      err_tips: z.string().meta({ example: "success" }),
    }),
  );
  register("PushEcho", z.string().describe("The echostr, as text/plain"));
}

const PLAYER_NOTE =
  "On the platform of the player's latest login to the token's app (WeChat game coins, Douyin's game wallet), " +
  "signed with the session key the server kept from that login. No kept key → 409 `session_key_missing`; payments " +
  "not set up for the app (its keys unset) → 404 `payments_disabled`.";

const PLATFORM_ERRORS: ErrorCode[] = ["platform_misconfigured", "platform_unavailable", "payment_login_required", "payment_refused"];

/** Each platform's push operations only where it is served (PLATFORMS). */
export function paymentOperations(platforms: readonly { name: string }[]): OperationSpec[] {
  return [
    {
      method: "get",
      path: "/api/payments/balance",
      operationId: "getCoinBalance",
      tag: "Payments",
      summary: "The player's coin balance",
      description: `${PLAYER_NOTE} Limited per user (RATE_LIMIT_USER_MAX).`,
      security: "bearer",
      success: { status: 200, component: "BalanceResponse", description: "`data.balance`: the player's coins" },
      errors: [...AUTH_ERRORS, "payments_disabled", "session_key_missing", "rate_limited", ...PLATFORM_ERRORS],
      errorFields: p.paymentErrorFields,
    },
    {
      method: "post",
      path: "/api/payments/orders",
      operationId: "spendCoins",
      tag: "Payments",
      summary: "Spend coins on an item, once per orderId",
      description:
        `${PLAYER_NOTE} The server prices the order from the token's app's catalog: the item's \`prices.coins\` × \`quantity\` ` +
        "(GET /api/catalog). A `coins` field is accepted for compatibility but must equal that price, else 409 `price_mismatch` " +
        "with nothing deducted; an item not in the catalog, off sale or without a coin price → 404 `item_not_found`; a price × " +
        "quantity above 2,000,000,000 coins → 422 `order_too_large` (`data.maxCoins`), nothing recorded. The order records its " +
        "terms (`quantity`, `unitPrice`, `catalogVersion`) and is delivered by them, whatever the catalog says by then. The " +
        "item's per-player rules are decided before the platform is asked, atomically with every other purchase of the player " +
        "(coin orders, soft-currency purchases and delivered pushes all count): past the item's `limit` → 409 `purchase_limit`, " +
        "a durable owned or held by another order → 409 `already_owned`, the order recorded `failed` and nothing deducted. The " +
        "delivered order grants what the catalog item grants into the player's wallet and inventory (once; a `reward` room " +
        "message), then the game's hook runs. The order is recorded before the platform is asked, then the coins are deducted under a bill number " +
        "derived from it, then the game's delivery hook runs: 201 with the order, `state: delivered` once the hook returned " +
        "(`paid` if it failed: the server retries it). The same `orderId` again, also concurrently, answers 200 with the same " +
        "order and deducts nothing more; with another `itemId`, `quantity` or `coins` → 409 `order_conflict`. Not enough coins → 402 " +
        "`insufficient_balance` (the order is recorded `failed`; nothing deducted; a replay answers the same). The platform " +
        "refusing → 502 with its code, nothing delivered. The platform refusing the player's session key → 502 " +
        "`payment_login_required`: nothing deducted, the order stays pending; log in again and retry the same orderId, " +
        "which is then charged and delivered (or the server does it after the next login). No answer from the platform in time → 502 `payment_unconfirmed` " +
        "with `data.order` pending: retry the same orderId (never a second deduction) or read the order later. A player " +
        "in a room gets a `purchase` message with the order when it is delivered. New orderIds are limited per user " +
        "(RATE_LIMIT_USER_MAX per window; 429 `rate_limited` with Retry-After, nothing recorded: retry the same orderId " +
        "later); replays of an orderId already recorded are never limited.",
      security: "bearer",
      body: { schema: p.spendBody, examples: { sword: { orderId: "order-20260101-0001", itemId: "sword", quantity: 1 } } },
      success: { status: 201, component: "OrderResponse", description: "The new order", replay: "The order made earlier under this orderId: nothing deducted again" },
      errors: [
        ...AUTH_ERRORS,
        "payments_disabled",
        "session_key_missing",
        "item_not_found",
        "price_mismatch",
        "order_too_large",
        "purchase_limit",
        "already_owned",
        "order_conflict",
        "insufficient_balance",
        "payment_unconfirmed",
        "rate_limited",
        ...PLATFORM_ERRORS,
      ],
      errorFields: p.paymentErrorFields,
    },
    {
      method: "get",
      path: "/api/payments/orders",
      operationId: "listOrders",
      tag: "Payments",
      summary: "The player's orders, newest first",
      description: "Coin spends, operators' grants and item purchases, in every state unless `state` says one.",
      security: "bearer",
      query: { schema: p.orderListQuery, examples: { state: "delivered" } },
      success: { status: 200, component: "OrderListResponse", description: "`data.orders`" },
      errors: [...AUTH_ERRORS, "payments_disabled"],
      errorFields: p.paymentErrorFields,
    },
    {
      method: "get",
      path: "/api/payments/orders/{orderId}",
      operationId: "getOrder",
      tag: "Payments",
      summary: "One of the player's orders",
      description:
        "By the game's orderId (an item purchase: the platform's trade number, the outTradeNo the game passed to the " +
        "payment UI). A coin order and an item purchase are keyed apart, so both may carry one number: without `kind` the " +
        "coin order answers, else the item purchase in the token's game; `kind=item_purchase` asks for the purchase " +
        "only. Another player's order → 404 `order_not_found`. An orderId the server has no order for may be an " +
        "item purchase whose WeChat push is lost or late: the server then asks WeChat (`/xpay/query_order`, at most once " +
        "per player and orderId every 5 s and 20 times a minute per player, across every server process) and, if this player " +
        "paid it, records and delivers it and answers 200 with the order. Every other case answers 404 " +
        "`order_not_found` — WeChat knows no such paid order for this player, the query was throttled, or WeChat could " +
        "not be asked (its failure is logged, never a 502 here) — so a client waiting for a purchase keeps polling on " +
        "404 until its own deadline (the client's `waitForDelivery` does). A pushed item purchase the catalog refuses (an " +
        "unknown item, a price below the item's `platformPrice` or `prices.coins`) is listed `failed` with `failure` " +
        "`item_not_found` or `price_below_catalog` and never delivered; the platform's money is the operator's to refund.",
      security: "bearer",
      pathParams: { schema: p.orderParams, examples: { orderId: "order-20260101-0001" } },
      query: { schema: p.orderQuery, examples: {} },
      success: { status: 200, component: "OrderResponse", description: "The order" },
      errors: [...AUTH_ERRORS, "payments_disabled", "order_not_found"],
      errorFields: p.paymentErrorFields,
    },
    ...(platforms.some((p) => p.name === "wechat") ? pushOperations() : []),
    ...(platforms.some((p) => p.name === "douyin") ? douyinPushOperations() : []),
  ];
}

function douyinPushOperations(): OperationSpec[] {
  const note =
    "Register this URL as the server address (服务器地址) of the Douyin console's virtual-payment settings " +
    "(商业化 → 虚拟支付 → 支付设置), with the callback Token (服务器回调 Token) of the payment settings. One URL " +
    "serves every app: the app is the one whose Token verifies the signature, sha1 of the sorted Token, timestamp, " +
    "nonce and msg. Answers are Douyin's, not the envelope (the GET's refusal excepted).";
  return [
    {
      method: "get",
      path: "/api/minigame/douyin/push",
      operationId: "douyinPushVerify",
      tag: "Payments",
      summary: "Douyin payment-callback URL verification",
      description: `${note} A valid \`signature\` answers \`echostr\` as plain text; any other → 401 \`push_signature_invalid\`.`,
      query: { schema: z.object({ signature: z.string(), timestamp: z.string(), nonce: z.string(), msg: z.string().optional(), echostr: z.string() }), examples: {} },
      success: { status: 200, component: "PushEcho", description: "The echostr, as text/plain" },
      errors: ["push_signature_invalid"],
    },
    {
      method: "post",
      path: "/api/minigame/douyin/push",
      operationId: "douyinPush",
      tag: "Payments",
      summary: "Douyin payment callback (an item bought in the game)",
      description:
        `${note} \`msg\` is the order as JSON: \`appid\`, \`cp_orderno\` (the game's customId: the order's orderId and ` +
        "platformOrderId), `amount_cent` (the price), `order_no_channel`, and `cp_extra`: the game's extraInfo, which must be " +
        "JSON `{\"openid\", \"itemId\"}`. A verified callback records the item purchase once per cp_orderno and answers HTTP " +
        "200 `{\"err_no\":0,\"err_tips\":\"success\"}`; delivery follows at once and is retried by the reconciler. The same " +
        "callback again answers success and records nothing more (once per player and cp_orderno; never confused with a " +
        "coin order of the same number); a body over 64 KiB → 413 (err_no 40007), unreadable → 400 (40008); the " +
        "Content-Type is not checked; a `status` other than SUCCESS is acknowledged and not " +
        "recorded. Refused, with nothing recorded and a non-200 status so Douyin calls again: 401 (err_no 40001) a bad " +
        "signature; 400 a timestamp more than 300 s off (40002), a malformed body or cp_extra (40003), another app's " +
        "appid (40004). Not recorded (e.g. no player with that openid): 500, err_no 1.",
      body: { schema: z.object({ timestamp: z.string(), nonce: z.string(), msg: z.string(), signature: z.string() }), examples: {} },
      bodyErrors: ["invalid_request"],
      success: { status: 200, component: "DouyinPushReply", description: "err_no 0: recorded (or nothing to record)" },
      errors: [],
      platformReplies: [
        { status: 400, component: "DouyinPushReply", description: "Refused: stale timestamp, malformed, another app" },
        { status: 401, component: "DouyinPushReply", description: "Refused: the signature verifies with no app's Token" },
        { status: 413, component: "DouyinPushReply", description: "Refused: a body over 64 KiB" },
        { status: 500, component: "DouyinPushReply", description: "Not recorded; Douyin calls again" },
      ],
    },
  ];
}

function pushOperations(): OperationSpec[] {
  const note =
    "Register this URL as the app's message-push URL in the WeChat console, with the Token (and in safe mode the " +
    "EncodingAESKey) of the payment settings; JSON format. One URL serves every app: the app is the one whose Token " +
    "verifies the signature. Answers are WeChat's, not the envelope.";
  return [
    {
      method: "get",
      path: "/api/minigame/wechat/push",
      operationId: "wechatPushVerify",
      tag: "Payments",
      summary: "WeChat message-push URL verification",
      description: `${note} A valid \`signature\` (sha1 of the sorted Token, timestamp, nonce) answers \`echostr\` as plain text; any other → 401 \`push_signature_invalid\`.`,
      query: { schema: z.object({ signature: z.string(), timestamp: z.string(), nonce: z.string(), echostr: z.string() }), examples: {} },
      success: { status: 200, component: "PushEcho", description: "The echostr, as text/plain" },
      errors: ["push_signature_invalid"],
    },
    {
      method: "post",
      path: "/api/minigame/wechat/push",
      operationId: "wechatPush",
      tag: "Payments",
      summary: "WeChat item-purchase push (minigame_game_pay_goods_deliver_notify)",
      description:
        `${note} A verified push records the item purchase once per player and trade number (OutTradeNo: the order's orderId and ` +
        "platformOrderId; never confused with a coin order of the same number) and answers `{\"ErrCode\":0,\"ErrMsg\":\"Success\"}`; delivery follows at once and is retried " +
        "by the reconciler. The same push again answers success and records nothing more. Every reply is HTTP 200 in " +
        "WeChat's shape (WeChat reads ErrCode). Refused, with a non-zero ErrCode and nothing recorded (40001 signature, " +
        "40002 timestamp, 40003 malformed, 40004 another app, 40005 PayEventSig, 40006 env, 40007 a body over 64 KiB, " +
        "40008 a body that could not be read, 40009 replayed): a bad signature or PayEventSig, a timestamp more than 300 s off, another app's " +
        "push (safe mode: the app id inside), a sandbox push to a live app, a malformed body, a (timestamp, nonce) already seen with " +
        "another body (the pairs are remembered in the shared cache while their timestamp is accepted). A push that could not be " +
        "recorded answers ErrCode 1, so WeChat pushes again. The Content-Type is not checked (the signatures and the body " +
        "decide): a signed push sent as text/plain is accepted like one sent as JSON. The console's test push " +
        "(IsMock) answers success and records nothing.",
      body: { schema: z.object({ MsgType: z.string(), Event: z.string(), MiniGame: z.object({ Payload: z.string(), PayEventSig: z.string() }) }), examples: {} },
      // Every reply is WeChat's (a body too large or unreadable included); only a malformed URL meets the edge's envelope.
      bodyErrors: ["invalid_request"],
      success: { status: 200, component: "WeChatPushReply", description: "ErrCode 0: recorded (or nothing to record); non-zero: refused or not recorded" },
      errors: [],
    },
  ];
}

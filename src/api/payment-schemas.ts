/** Request and response schemas of the payment routes (docs/payments.md). */
import { z } from "zod";
import { MAX_ORDER_COINS, ORDER_KINDS, ORDER_STATES } from "../core/ports/order-ledger";

export const orderIdParam = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ -")
  .describe("The game's idempotency key for the order: the same orderId again is the same order, never a second charge");

export const spendBody = z.object({
  orderId: orderIdParam,
  itemId: z.string().min(1, "is required").max(64).describe("What the coins buy: an item of the app's catalog with a coin price"),
  quantity: z.int("must be an integer").min(1, "must be positive").max(10_000).optional().meta({ description: "How many (default 1); the server prices the order: catalog price × quantity", example: 1 }),
  coins: z
    .int("must be an integer")
    .min(1, "must be positive")
    .max(MAX_ORDER_COINS)
    .optional()
    .meta({ description: "Optional, for compatibility: must equal the catalog's price × quantity, else 409 price_mismatch with nothing deducted", example: 30 }),
});

export const orderListQuery = z.object({
  state: z.enum(ORDER_STATES).optional().describe("Only orders in this state"),
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({ description: "At most this many, newest first", example: 50 }),
});

export const orderParams = z.object({ orderId: orderIdParam });

export const orderQuery = z.object({
  kind: z
    .enum(ORDER_KINDS)
    .optional()
    .describe("Only an order of this kind. Without it: the coin order under this orderId, else the item purchase with this trade number in the token's game"),
});

export const balanceSchema = z.strictObject({
  balance: z.int().min(0).max(2_000_000_000).meta({ description: "Coins on the player's platform for the token's app", example: 120 }),
});

export const orderSchema = z.strictObject({
  orderId: z.string().describe("The game's orderId; for an item purchase, the platform's trade number"),
  kind: z.enum(ORDER_KINDS),
  itemId: z.string(),
  coins: z.int().min(0).max(2_000_000_000).meta({ description: "Coins spent or granted; for an item purchase the price the platform reported (WeChat: fen)", example: 30 }),
  quantity: z.int().min(1).max(10_000).optional().meta({ description: "A coin spend: how many of the item it paid for, fixed when it was priced (absent on orders made before it was recorded)", example: 1 }),
  unitPrice: z.int().min(1).max(1_000_000_000).optional().meta({ description: "A coin spend: the catalog's coin price of one when it was priced; coins = unitPrice × quantity", example: 30 }),
  catalogVersion: z.int().min(0).max(2_000_000_000).optional().meta({ description: "A coin spend: the version of the app's catalog it was priced under; delivery grants the item as that version lists it", example: 0 }),
  liveEvent: z.string().optional().meta({ description: "A coin spend priced by a live event's sale: the event's id (docs/liveops.md); its delivery's ledger entry names it too", example: "weekend-sale" }),
  state: z.enum(ORDER_STATES).describe("pending → paid → delivered, or failed, or refunded"),
  platform: z.string(),
  platformOrderId: z.string().describe("The platform's number for the order: our bill_no for coins, the trade number for an item purchase"),
  createdAt: z.string().describe("ISO 8601 UTC"),
  updatedAt: z.string().describe("ISO 8601 UTC"),
  failure: z
    .string()
    .optional()
    .describe("Why a failed or refunded order is so: the refusal's code (insufficient_balance…), or for a pushed purchase the catalog refused item_not_found / price_below_catalog"),
});

export const orderListSchema = z.strictObject({ orders: z.array(orderSchema) });

/** Optional `data` fields of payment failures. */
export const paymentErrorFields = {
  order: orderSchema.optional().describe("The order as recorded (failed or still pending)"),
  orderId: z.string().optional().describe("The orderId the failure is about"),
  platform: z.string().optional(),
  appId: z.string().optional().describe("The platform's app id payments are off for"),
  errmsg: z.string().optional().describe("The platform's error text"),
  errcode: z.int().min(-2_147_483_648).max(2_147_483_647).optional().meta({ description: "The platform's error number", example: 90013 }),
  itemId: z.string().optional().describe("item_not_found, price_mismatch, order_too_large, purchase_limit, already_owned: the item"),
  quantity: z.int().min(1).max(10_000).optional().meta({ description: "price_mismatch, order_too_large: the quantity priced", example: 1 }),
  coins: z.int().min(0).max(2_000_000_000).optional().meta({ description: "price_mismatch: the catalog's price × quantity", example: 30 }),
  unitPrice: z.int().min(0).max(1_000_000_000).optional().meta({ description: "price_mismatch, order_too_large: the catalog's coin price of one", example: 30 }),
  limit: z.int().min(1).max(1_000_000_000).optional().meta({ description: "purchase_limit: the item's per-player limit", example: 1 }),
  maxCoins: z.int().min(1).max(2_000_000_000).optional().meta({ description: "order_too_large: the most coins one order may cost (price × quantity)", example: 2_000_000_000 }),
};

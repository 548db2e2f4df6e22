/** Request and response schemas of the economy routes (docs/economy.md). */
import { z } from "zod";

const itemId = z.string().min(1, "is required").max(64);
const count = z.int().min(0).max(2_000_000_000).meta({ example: 1 });
const itemCount = z.strictObject({ itemId: z.string(), count });
const grants = z.strictObject({
  items: z.array(itemCount).optional(),
  currencies: z.record(z.string(), count).optional().describe("By soft currency id"),
});

export const purchaseBody = z.object({
  purchaseId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ -")
    .describe("The game's idempotency key: the same purchaseId again is the same purchase, never a second one"),
  itemId: itemId.describe("An item of the app's catalog priced in soft currency"),
  quantity: z.int("must be an integer").min(1, "must be positive").max(10_000).optional().meta({ description: "How many (default 1)", example: 1 }),
});

export const catalogItemSchema = z.looseObject({
  itemId: z.string(),
  name: z.string(),
  kind: z.enum(["consumable", "durable", "bundle"]).describe("durable: owned at most once; bundle: grants what `grants` says"),
  prices: z.record(z.string(), count).describe("What the player pays now (a live event's sale included): `coins`: the platform-coin price; any other key: a soft currency's price"),
  regularPrices: z.record(z.string(), count).optional().describe("The catalog's prices, without a live event's sale"),
  saleEventId: z.string().optional().describe("The live event whose sale sets `prices` (docs/liveops.md); absent at the regular price"),
  grants,
  limit: count.optional().describe("How many a player may buy in total"),
  sale: z.strictObject({ from: z.string().optional(), until: z.string().optional() }).optional().describe("On sale from/until (ISO 8601)"),
});

export const catalogSchema = z.strictObject({
  version: z.int().min(0).max(2_000_000_000).meta({ description: "0: the settings' catalog; each operator change adds 1", example: 1 }),
  currencies: z.array(z.strictObject({ currencyId: z.string(), name: z.string().optional() })),
  items: z.array(catalogItemSchema),
  ads: z.array(z.strictObject({ adUnitId: z.string(), grants, dailyCap: count })).describe("Rewarded-video ad units and what a verified view grants"),
  giftPacks: z.array(z.strictObject({ giftId: z.string(), grants })),
  growthRewards: z.array(z.strictObject({ rewardId: z.enum(["sidebar", "game_club"]), grants })).describe("Once-per-day growth rewards: the Douyin sidebar revisit, WeChat game-circle activity (docs/growth.md)"),
});

export const walletSchema = z.strictObject({ balances: z.record(z.string(), count).meta({ description: "Soft currencies by id", example: { gems: 120 } }) });
export const inventorySchema = z.strictObject({ items: z.array(itemCount) });
export const purchaseSchema = z.strictObject({
  purchaseId: z.string(),
  itemId: z.string(),
  quantity: count,
  paid: z.record(z.string(), count).describe("What was deducted, by soft currency"),
  balances: z.record(z.string(), count).describe("The balances after the purchase"),
  items: z.array(itemCount).describe("The counts after the purchase of the items it granted"),
});

/** Request schemas of the reward routes (docs/economy-rewards.md). */
import { z } from "zod";

export const mailParams = z.object({
  mailId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ -").describe("The mail's id, from GET /api/mail"),
});

export const watchParams = z.object({
  watchId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -").describe("The id the client put in the ad's verification data (watchAd)"),
});

export const giftCodeBody = z.strictObject({
  code: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -").describe("The gift code (Douyin's cdkey: tt.onShow's query `game_cdkey`, or typed by the player)").meta({ example: "cdkey88888" }),
  envType: z.string().regex(/^[A-Za-z_]{1,32}$/, "must be 1–32 letters or _").optional().describe("Douyin's env_type from tt.getEnvInfoSync, passed through (test codes); omit in production"),
});

const amount = z.int().min(1).max(1_000_000_000).meta({ example: 100 });
const itemCount = z.strictObject({ itemId: z.string().meta({ example: "potion" }), count: z.int().min(0).max(1_000_000_000).meta({ example: 2 }) });
const iso = z.iso.datetime().meta({ example: "2026-01-01T00:00:00.000Z" });
const balances = z.record(z.string(), z.int().min(0).max(2_000_000_000).meta({ example: 120 })).describe("The player's balances after the grant, by currency id");

export const mailSchema = z.strictObject({
  mailId: z.string().meta({ example: "3f0c5a2e-6b1d-4a8e-9c1f-2a7d6e5b4c3a" }),
  userId: z.string().nullable().describe("The player's own mail, or null: a mail to every player of the app"),
  title: z.string().meta({ example: "Sorry for the outage" }),
  body: z.string().meta({ example: "Here is something for your patience." }),
  attachments: z.strictObject({ currencies: z.record(z.string(), amount).optional(), items: z.array(itemCount).optional() }),
  createdAt: iso,
  expiresAt: iso,
  claimed: z.boolean(),
  claimedAt: iso.nullable(),
});
export const mailListSchema = z.strictObject({ mail: z.array(mailSchema).max(100) });
export const claimSchema = z.strictObject({
  mailId: z.string().meta({ example: "3f0c5a2e-6b1d-4a8e-9c1f-2a7d6e5b4c3a" }),
  granted: z.boolean().describe("False on a replay: nothing more was given"),
  balances,
  items: z.array(itemCount).describe("The counts after the grant of the items it touched"),
});
export const adViewSchema = z.strictObject({
  watchId: z.string().meta({ example: "wlq3x0k2abc123" }),
  adUnitId: z.string().meta({ example: "adunit-example" }),
  granted: z.boolean().describe("Whether this view was granted (false: past the daily cap)"),
  capped: z.boolean().describe("The view came past the ad unit's daily cap: verified, recorded, not granted"),
  balances,
  items: z.array(itemCount),
});
export const giftCodeSchema = z.strictObject({
  code: z.string().meta({ example: "cdkey88888" }),
  giftId: z.string().nullable().describe("The catalog's gift pack the code granted").meta({ example: "gift-example" }),
  granted: z.boolean().describe("False on a replay: nothing more was given"),
  balances,
  items: z.array(itemCount).describe("The counts after the grant of the items it touched"),
});

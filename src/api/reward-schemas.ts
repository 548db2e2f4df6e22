/** Request schemas of the reward routes (docs/economy-rewards.md). */
import { z } from "zod";

export const mailParams = z.object({
  mailId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ -").describe("The mail's id, from GET /api/mail"),
});

export const watchParams = z.object({
  watchId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -").describe("The id the client put in the ad's verification data (watchAd)"),
});

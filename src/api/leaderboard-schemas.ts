/** Request and response schemas of the leaderboard routes; also the API description's. */
import { z } from "zod";

/** Scores are integers up to ±10^15 (exact in a double and in Redis); typed `number` with that rule. */
export const SCORE_LIMIT = 1e15;
const scoreValue = z.number().min(-SCORE_LIMIT).max(SCORE_LIMIT).refine(Number.isInteger, "must be an integer");
const count = (max: number, example: number) => z.int().min(0).max(max).meta({ example });
export const boardIdParam = z.object({ boardId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "is not a board id") });
const period = z.enum(["current", "previous"]).default("current").describe("`previous`: the period before the current one (the last reset's final ranking)");
const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const recordsQuery = z.object({
  limit: limit(100, 20).describe("Records per page, 1–100"),
  cursor: z.string().max(512).optional().describe("`data.next` of the previous page"),
  period,
  userIds: z
    .string()
    .max(100 * 65)
    .transform((v) => v.split(",").map((x) => x.trim()).filter(Boolean))
    .refine((ids) => ids.length >= 1 && ids.length <= 100, "must name 1–100 user ids")
    .optional()
    .describe("Comma-separated user ids (e.g. the game's friends): their records, by rank, instead of a page"),
});
export const aroundQuery = z.object({ limit: limit(51, 11).describe("Records around the player, 1–51 (the player in the middle)"), period });
export const meQuery = z.object({ period });

export const scoreBody = z.object({
  score: scoreValue.describe("An integer; the board's bounds apply"),
  subscore: scoreValue.optional().describe("An integer; breaks ties between equal scores, in the board's order"),
  metadata: z
    .record(z.string().max(64), z.unknown())
    .refine((m) => JSON.stringify(m).length <= 2048, "must be at most 2 KB as JSON")
    .optional()
    .describe("Shown with the record; at most 2 KB"),
});

export const rankedRecordSchema = z.strictObject({
  rank: z.int().min(1).max(2_000_000_000).meta({ example: 1 }).describe("1 is the best; equal scores rank by who reached them first"),
  userId: z.string(),
  name: z.string().describe("The player's nickname, else username, as of their last submission"),
  score: z.number().meta({ example: 1200 }).describe("An integer"),
  subscore: z.number().meta({ example: 0 }).describe("An integer; 0 unless given"),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  updatedAt: z.string().describe("ISO 8601 UTC"),
});
export const periodSchema = z
  .strictObject({ seq: count(1_000_000, 1).describe("The board's period number, from 1"), startsAt: z.string(), endsAt: z.string().nullable() })
  .nullable()
  .describe("The period read (null: none yet, e.g. a tournament not started)");
export const recordsPageSchema = z.strictObject({
  records: z.array(rankedRecordSchema),
  next: z.string().nullable().describe("Cursor of the next page; null on the last"),
  period: periodSchema,
});
export const recordsListSchema = z.strictObject({ records: z.array(rankedRecordSchema), period: periodSchema });
export const myRecordSchema = rankedRecordSchema.extend({ period: periodSchema });
export const joinedSchema = z.strictObject({ joined: z.literal(true), period: periodSchema });
export const boardListSchema = z.strictObject({
  boards: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string().nullable(),
      order: z.enum(["desc", "asc"]),
      operator: z.enum(["best", "latest", "increment"]),
      clientSubmit: z.boolean(),
      minScore: z.number().nullable(),
      maxScore: z.number().nullable(),
      reset: z.string().nullable(),
      timezone: z.string(),
      tournament: z.strictObject({ startsAt: z.string(), endsAt: z.string(), joinRequired: z.boolean(), maxSize: count(10_000_000, 100).nullable() }).nullable(),
      rewards: z.array(
        z.strictObject({
          ranks: z.tuple([count(1_000_000_000, 1), count(1_000_000_000, 3)]).describe("First and last rank, inclusive"),
          currencies: z.record(z.string(), z.number()).optional(),
          items: z.array(z.strictObject({ itemId: z.string(), count: count(1_000_000_000, 1) })).optional(),
        }),
      ),
    }),
  ),
});

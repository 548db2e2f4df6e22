/** Request and response schemas of the leaderboard routes; also the API description's. */
import { z } from "zod";

const safeInt = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
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
  score: safeInt.describe("An integer; the board's bounds apply"),
  subscore: safeInt.optional().describe("Breaks ties between equal scores, in the board's order"),
  metadata: z
    .record(z.string().max(64), z.unknown())
    .refine((m) => JSON.stringify(m).length <= 2048, "must be at most 2 KB as JSON")
    .optional()
    .describe("Shown with the record; at most 2 KB"),
});

export const rankedRecordSchema = z.strictObject({
  rank: z.number().int().min(1),
  userId: z.string(),
  name: z.string().describe("The player's nickname, else username, as of their last submission"),
  score: z.number().int(),
  subscore: z.number().int(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  updatedAt: z.string().describe("ISO 8601 UTC"),
});
export const periodSchema = z
  .strictObject({ seq: z.number().int().min(1), startsAt: z.string(), endsAt: z.string().nullable() })
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
      minScore: z.number().int().nullable(),
      maxScore: z.number().int().nullable(),
      reset: z.string().nullable(),
      timezone: z.string(),
      tournament: z.strictObject({ startsAt: z.string(), endsAt: z.string(), joinRequired: z.boolean(), maxSize: z.number().int().nullable() }).nullable(),
      rewards: z.array(z.strictObject({ ranks: z.tuple([z.number().int(), z.number().int()]), currencies: z.record(z.string(), z.number()).optional(), items: z.array(z.strictObject({ itemId: z.string(), count: z.number().int() })).optional() })),
    }),
  ),
});

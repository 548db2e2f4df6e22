/**
 * Request and response schemas of the social routes (player storage, subscribe messages). The
 * platform's own limits (key count, bytes, ranking format) are checked by the service, which knows the
 * player's platform; these only fix the shape, with bounds the request body limit makes moot anyway.
 */
import { z } from "zod";

const storageKey = z.string().max(1024).describe("Storage key; the platform's limit (WeChat: 128 bytes UTF-8) is checked by the service");

export const storagePutBody = z.object({
  kvList: z
    .array(z.object({ key: storageKey, value: z.string().max(4096) }))
    .max(1000)
    .describe(
      'Entries to add or replace. WeChat and Douyin keep at most 128 keys per player, a key of at most 128 bytes and key + value of at most 1024 bytes (UTF-8); a friend-ranking value is {"wxgame": {"score": <int>, "update_time": <unix s>}} (Douyin: "ttgame")',
    ),
});

export const storageDeleteBody = z.object({ keys: z.array(storageKey).max(1000).describe("Keys to remove; every one must exist") });

const templateValue = z.union([z.string().max(1024), z.object({ value: z.string().max(1024) }).transform((v) => v.value)]);

export const subscribeMessageBody = z.object({
  userId: z.string().min(1, "is required").max(64).describe("Our user id (the JWT's userId), not the openid"),
  templateId: z.string().min(1, "is required").max(128),
  page: z.string().min(1).max(1024).optional().describe("The game page the message opens, with its query"),
  data: z
    .record(z.string().min(1).max(64), templateValue)
    .refine((d) => Object.keys(d).length > 0 && Object.keys(d).length <= 32, "must have 1–32 fields")
    .describe('Template field → text, as "text" or {"value": "text"}'),
});

export const subscribeSentSchema = z.strictObject({ sent: z.literal(true) });

/**
 * The user as the API answers it, shared by both edges: the API's responses and the console's player
 * page describe the same user (spec 2.3).
 */
import { z } from "zod";

/**
 * Realistic bounds, so the API description shows them instead of zod's ±2^53 defaults. Versions
 * are stored as 32-bit integers; platform error numbers are 32-bit on every platform seen.
 */
export const MAX_INT32 = 2_147_483_647;

/** The local user (spec 2.3), as `data` of GET /users/me and `data.user` of every login. */
export const userSchema = z.strictObject({
  id: z.uuid().meta({ description: "Primary key (a version 7 UUID: it sorts by creation time), and the JWT's `userId` claim. Not the platform openid.", example: "019ab4f1-2c3d-7e4f-8a5b-6c7d8e9f0a1b" }),
  username: z.string().meta({ description: "`mg_<platform>_<suffix>` for a mini-game user, the chosen name for an account", example: "mg_wechat_k3j9x2ab" }),
  // Examples matter for fields with a pattern: Swagger UI would otherwise sample noise from it.
  email: z.email().meta({ description: "A generated placeholder for a mini-game user", example: "wechat_k3j9x2ab@players.invalid" }),
  nickname: z.string().nullable(),
  avatar: z.string().nullable().describe("An https URL, or null"),
  openid: z.string().nullable().meta({ description: "The platform key the user was found or created by, as the token's game knows it (a player of several games has one openid in each); null for registered accounts", example: "oGZUI0egBJY1zhBYw2KhdUfwVJJE" }),
  guildId: z.string().nullable(),
  status: z
    .int()
    .min(0)
    .max(99)
    .meta({ description: "1 = active; 2 = disabled or banned by an operator. Any value but 1: every login and session is refused", example: 1 }),
  createdAt: z.iso.datetime().meta({ description: "ISO 8601 UTC, milliseconds", example: "2025-01-31T08:00:00.000Z" }),
  updatedAt: z.iso.datetime().meta({ example: "2025-01-31T08:00:00.000Z" }),
  version: z.int().min(1).max(MAX_INT32).meta({ description: "Starts at 1, +1 on every change; send it back in PATCH /api/users/me", example: 1 }),
});

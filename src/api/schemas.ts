/**
 * Request schemas: the single source for validation (and, later, the API description).
 */
import { z } from "zod";

export const RESERVED_USERNAME_PREFIX = "mg_";

export const usernameSchema = z
  .string()
  .min(3, "must be at least 3 characters")
  .max(32, "must be at most 32 characters")
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, "must start with a letter and use only letters, digits and _")
  .refine((u) => !u.toLowerCase().startsWith(RESERVED_USERNAME_PREFIX), "the mg_ prefix is reserved for mini-game users");

export const emailSchema = (placeholderDomain: string) =>
  z
    .string()
    .max(254, "must be at most 254 characters")
    .transform((e) => e.trim().toLowerCase())
    .pipe(z.email("must be an email address"))
    .refine((e) => !e.endsWith(`@${placeholderDomain.toLowerCase()}`), "that domain is reserved");

export const passwordSchema = z.string().min(8, "must be at least 8 characters").max(128, "must be at most 128 characters");

export const registerBody = (placeholderDomain: string) =>
  z.object({ username: usernameSchema, email: emailSchema(placeholderDomain), password: passwordSchema });

/** Exactly one identifier: username or email. */
export const loginBody = z
  .object({
    username: z.string().min(1).max(254).optional(),
    email: z.string().min(1).max(254).optional(),
    password: z.string().min(1, "is required").max(128),
  })
  .refine((b) => (b.username === undefined) !== (b.email === undefined), {
    message: "send either username or email, not both",
    path: ["username"],
  })
  .transform((b) => ({
    identifier: b.username !== undefined ? { username: b.username } : { email: b.email!.trim().toLowerCase() },
    password: b.password,
  }));

export const refreshBody = z.object({ refreshToken: z.string().min(1, "is required").max(4096) });

export const profilePatchBody = z
  .object({
    nickname: z.string().trim().min(1, "must not be empty").max(32, "must be at most 32 characters").nullable().optional(),
    avatar: z
      .string()
      .max(512, "must be at most 512 characters")
      .refine(isHttpsUrl, "must be an https URL")
      .nullable()
      .optional(),
    version: z.number().int().min(1),
  })
  .strict();

export const passwordChangeBody = z.object({
  currentPassword: z.string().min(1).max(128).optional(),
  newPassword: passwordSchema,
});

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}

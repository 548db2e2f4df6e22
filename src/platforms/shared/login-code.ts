import { z } from "zod";

const MAX_CODE_LENGTH = 256;

/**
 * A login code as a query parameter: one string, 1–256 characters, no control characters.
 * This is input hygiene, not the simulator's code format: real platform codes vary.
 */
export const loginCodeParam = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a single string") })
  .min(1, "must not be empty")
  .max(MAX_CODE_LENGTH, `must be at most ${MAX_CODE_LENGTH} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** An empty optional code means "not sent", so `?code=&anonymous_code=x` is an anonymous login. */
export const optionalLoginCodeParam = z.preprocess((v) => (v === "" ? undefined : v), loginCodeParam.optional());

/** Reads a platform reply field that should be a string; anything else counts as empty. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Reads a platform error number that may arrive as a number or a numeric string ("40029"). */
export function errorNumber(value: unknown): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value.trim())) return Number(value);
  return 0;
}

/**
 * What a saved object may be named and hold, checked before anything reaches a store: every
 * refusal a 400 with its own code, so a game (or a hostile client) learns exactly what is wrong and
 * nothing half-checked is ever written. The walk is iterative and stops at the depth limit, so a
 * deeply nested body costs no stack.
 */
import { AppError } from "../../core/errors";
import type { SaveSettings } from "../../config/settings/saves";

const COLLECTION = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
/** Keys may also hold `.` and `:` (ids such as "slot.1" or "lc:5f…"), never first. */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type SaveLimits = Pick<SaveSettings, "maxObjectBytes" | "maxDepth" | "maxCollectionLength" | "maxKeyLength">;

function nameProblem(field: string, message: string): AppError {
  return new AppError("save_name_invalid", { message: `${field}: ${message}`, data: { field } });
}

export function checkCollection(name: unknown, limits: SaveLimits): string {
  if (typeof name !== "string" || name.length === 0) throw nameProblem("collection", "is required");
  if (name.length > limits.maxCollectionLength) throw nameProblem("collection", `is longer than ${limits.maxCollectionLength} characters`);
  if (!COLLECTION.test(name)) throw nameProblem("collection", "may hold letters, digits, _ and - (not first)");
  return name;
}

export function checkKey(name: unknown, limits: SaveLimits): string {
  if (typeof name !== "string" || name.length === 0) throw nameProblem("key", "is required");
  if (name.length > limits.maxKeyLength) throw nameProblem("key", `is longer than ${limits.maxKeyLength} characters`);
  if (!KEY.test(name)) throw nameProblem("key", "may hold letters, digits, _, -, . and : (the first a letter, digit or _)");
  return name;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value as it will be stored, or the first problem with it. */
export function checkValue(value: unknown, limits: SaveLimits): Record<string, unknown> {
  if (!isPlainObject(value)) throw new AppError("save_value_not_object");
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === "number") {
      if (!Number.isFinite(node) || Math.abs(node) > Number.MAX_SAFE_INTEGER) throw new AppError("save_number_invalid");
    } else if (typeof node === "string") {
      if (LONE_SURROGATE.test(node)) throw new AppError("save_text_invalid");
    } else if (typeof node === "object" && node !== null) {
      if (depth > limits.maxDepth) throw new AppError("save_too_deep", { data: { maxDepth: limits.maxDepth } });
      if (Array.isArray(node)) {
        for (const item of node) stack.push([item, depth + 1]);
      } else {
        for (const [field, item] of Object.entries(node)) {
          if (field.startsWith("$") || field === "__proto__") throw new AppError("save_key_reserved", { data: { field: field.slice(0, 64) } });
          if (LONE_SURROGATE.test(field)) throw new AppError("save_text_invalid");
          stack.push([item, depth + 1]);
        }
      }
    } else if (typeof node !== "boolean" && node !== null) {
      // JSON holds nothing else; a caller in code may pass undefined, a function, a bigint…
      throw new AppError("save_value_not_object", { message: "The value must be JSON (objects, arrays, strings, numbers, booleans, null)" });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
  if (bytes > limits.maxObjectBytes) throw new AppError("save_too_large", { data: { bytes, maxBytes: limits.maxObjectBytes } });
  return value;
}

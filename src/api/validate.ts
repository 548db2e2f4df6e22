import { z } from "zod";
import { invalidRequest, type FieldProblem } from "../core/errors";

/**
 * Parses input with a schema; failures become one 400 `invalid_request` listing every field problem.
 *
 * Every request schema is applied through here, after one rule common to all of them: no string
 * anywhere in the input may contain NUL (U+0000). PostgreSQL cannot store it in text (it would be a
 * 500) and SQLite would keep it, so it is refused the same way before any store sees it.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = guarded(schema).safeParse(input);
  if (result.success) return result.data as z.output<S>;
  throw invalidRequest(
    result.error.issues.map((issue): FieldProblem => ({ field: issue.path.map(String).join("."), message: issue.message })),
  );
}

/** Each schema's NUL-guarded pipe, built once: building a zod schema costs more than a parse. */
const guardedSchemas = new WeakMap<z.ZodType, z.ZodType>();

function guarded(schema: z.ZodType): z.ZodType {
  let pipe = guardedSchemas.get(schema);
  if (!pipe) {
    pipe = withoutNul.pipe(schema);
    guardedSchemas.set(schema, pipe);
  }
  return pipe;
}

const NUL_MESSAGE = "must not contain NUL characters";

/** Any value, refused where a string inside it (a key or a value, at any depth) holds U+0000. */
const withoutNul = z.unknown().superRefine((value, ctx) => {
  const visit = (v: unknown, path: PropertyKey[], depth: number): void => {
    if (typeof v === "string") {
      if (v.includes("\u0000")) ctx.addIssue({ code: "custom", path, message: NUL_MESSAGE });
    } else if (v && typeof v === "object" && depth < 32) {
      for (const [key, child] of Object.entries(v)) {
        if (key.includes("\u0000")) ctx.addIssue({ code: "custom", path, message: NUL_MESSAGE });
        visit(child, [...path, key], depth + 1);
      }
    }
  };
  visit(value, [], 0);
});

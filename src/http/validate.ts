import { z } from "zod";
import { invalidRequest, type FieldProblem } from "../core/errors";

/**
 * Parses input with a schema; failures become one 400 `invalid_request` listing every field problem.
 *
 * Every request schema is applied through here, after one rule common to all of them: every string
 * anywhere in the input (keys and values) must be valid Unicode text without NUL (U+0000).
 * PostgreSQL cannot store NUL in text (it would be a 500) and SQLite would keep it; a lone UTF-16
 * surrogate (`"\ud800"` in JSON) is not text at all, and the stores would each change it (to U+FFFD
 * or worse), so what is stored would not be what was sent and the same request would then conflict
 * with itself. Both are refused with 400 before any store sees them.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = guarded(schema).safeParse(input);
  if (result.success) return result.data as z.output<S>;
  throw invalidRequest(
    result.error.issues.map((issue): FieldProblem => ({ field: issue.path.map(String).join("."), message: issue.message })),
  );
}

/** Each schema's guarded pipe, built once: building a zod schema costs more than a parse. */
const guardedSchemas = new WeakMap<z.ZodType, z.ZodType>();

function guarded(schema: z.ZodType): z.ZodType {
  let pipe = guardedSchemas.get(schema);
  if (!pipe) {
    pipe = validText.pipe(schema);
    guardedSchemas.set(schema, pipe);
  }
  return pipe;
}

const NUL_MESSAGE = "must not contain NUL characters";
const SURROGATE_MESSAGE = "must be valid Unicode text (no lone UTF-16 surrogates)";
const LONE_SURROGATE = /\p{Cs}/u;
/** Any surrogate, paired or not: cheap to rule out first, since nearly every input has none. */
const ANY_SURROGATE = /[\ud800-\udfff]/;

/** Why a string is refused whatever field it is in, or undefined when it is acceptable text. */
function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return NUL_MESSAGE;
  if (ANY_SURROGATE.test(text) && LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return undefined;
}

/**
 * Any value, refused where a string inside it (a key or a value, at any depth) is not acceptable text.
 * Runs on every request's input: the path is one array pushed and popped, copied only for an issue.
 */
const validText = z.unknown().superRefine((value, ctx) => {
  const path: PropertyKey[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) ctx.addIssue({ code: "custom", path: path.slice(), message: problem });
    } else if (v && typeof v === "object" && depth < 32) {
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const problem = textProblem(key);
        if (problem) ctx.addIssue({ code: "custom", path: path.slice(), message: problem });
        path.push(key);
        visit(record[key], depth + 1);
        path.pop();
      }
    }
  };
  visit(value, 0);
});

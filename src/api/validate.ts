import type { z } from "zod";
import { invalidRequest } from "../core/errors";

/** Parses input with a schema; failures become one 400 `invalid_request` listing every field problem. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(
    result.error.issues.map((issue) => ({ field: issue.path.map(String).join("."), message: issue.message })),
  );
}

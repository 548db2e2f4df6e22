/** A JSON text that holds an object, as that object; anything else (bad JSON, an array, a scalar) as undefined. */
export function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? "");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

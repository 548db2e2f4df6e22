/** Building blocks of the settings schemas (config.ts, simulator-config.ts). */
import { z } from "zod";
import { bool } from "../core/setting-values";

/** Declared below the platforms, which declare settings too (core/setting-values.ts). */
export { bool };

export type Env = Record<string, string | undefined>;

export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** A problem with one setting, named by its key. */
export interface SettingProblem {
  key: string;
  message: string;
}

/** A comma-separated setting as its non-empty, trimmed entries. */
export function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

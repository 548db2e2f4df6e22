/**
 * Names the settings files may use, and the nearest one to a name they may not: a typo
 * (`REDIS_ULR`) would otherwise be ignored in silence and the server start on a default.
 */
import fs from "node:fs";
import path from "node:path";
import dotenv from "dotenv";
import { settingsSchema } from "../config/config";

/** Read by the server or by pm2's ecosystem file, not by the settings schema. */
const OUTSIDE_THE_SCHEMA = ["NODE_ENV", "INSTANCES"];

export function knownSettingNames(): Set<string> {
  return new Set([...Object.keys(settingsSchema.shape), ...OUTSIDE_THE_SCHEMA]);
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known name nearest to `name`, if one is near enough to be the one meant. */
export function nearestSettingName(name: string, known: Iterable<string> = knownSettingNames()): string | undefined {
  const upper = name.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = distance(upper, candidate);
    if (!best || d < best.distance) best = { name: candidate, distance: d };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined;
}

/** One problem per unknown name in each settings file, with the nearest known name. */
export function unknownSettingProblems(files: readonly string[], root: string): string[] {
  const known = knownSettingNames();
  const problems: string[] = [];
  for (const file of files) {
    for (const name of Object.keys(dotenv.parse(fs.readFileSync(file)))) {
      if (known.has(name)) continue;
      const nearest = nearestSettingName(name, known);
      problems.push(`${path.relative(root, file) || file}: ${name} is not a setting${nearest ? ` (did you mean ${nearest}?)` : " (see arena.env for every setting)"}`);
    }
  }
  return problems;
}

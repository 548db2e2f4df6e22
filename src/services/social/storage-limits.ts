/**
 * A platform's documented storage limits, checked before any platform call so an oversized write
 * costs no quota and gets a 400 that names the entry (the platform would answer one errcode for the
 * whole list). The limits come from the platform module; sizes are UTF-8 bytes, as the platforms count.
 */
import type { FieldProblem } from "../../core/errors";
import type { InteractiveDataLimits, InteractiveEntry, StorageEntry, StorageLimits } from "../../platforms/social-port";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function keyProblem(key: string, limits: StorageLimits): string | undefined {
  if (key.length === 0) return "must not be empty";
  if (CONTROL.test(key)) return "must not contain control characters";
  if (bytes(key) > limits.maxKeyBytes) return `must be at most ${limits.maxKeyBytes} bytes (UTF-8)`;
  return undefined;
}

/**
 * A ranking value (`{"<wrapper>": {"score": <int>, "update_time": <unix seconds>}}`) is what the
 * open-data context's friend ranking reads: a malformed one is accepted by the platform and then
 * shows nothing, so it is refused here. Other values are the game's own and are not interpreted.
 */
function rankingProblem(value: string, wrapper: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !(wrapper in parsed)) return undefined;
  const game = (parsed as Record<string, unknown>)[wrapper] as Record<string, unknown> | null;
  const isInt = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v);
  if (!game || typeof game !== "object" || !isInt(game.score) || !isInt(game.update_time) || (game.update_time as number) < 0) {
    return `a "${wrapper}" ranking value must be {"${wrapper}": {"score": <integer>, "update_time": <unix seconds>}}`;
  }
  return undefined;
}

function countProblem(field: string, count: number, max: number): FieldProblem[] {
  if (count === 0) return [{ field, message: "must have at least one entry" }];
  if (count > max) return [{ field, message: `must have at most ${max} entries (the platform keeps at most ${max} keys per player)` }];
  return [];
}

export function storageWriteProblems(kvList: readonly StorageEntry[], limits: StorageLimits): FieldProblem[] {
  const problems = countProblem("kvList", kvList.length, limits.maxKeys);
  if (problems.length > 0) return problems;
  const seen = new Set<string>();
  kvList.forEach(({ key, value }, i) => {
    const keyIssue = keyProblem(key, limits);
    if (keyIssue) problems.push({ field: `kvList[${i}].key`, message: keyIssue });
    else if (seen.has(key)) problems.push({ field: `kvList[${i}].key`, message: "appears twice" });
    seen.add(key);
    if (bytes(key) + bytes(value) > limits.maxEntryBytes) {
      problems.push({ field: `kvList[${i}].value`, message: `key and value together must be at most ${limits.maxEntryBytes} bytes (UTF-8)` });
    } else if (limits.rankingWrapper) {
      const ranking = rankingProblem(value, limits.rankingWrapper);
      if (ranking) problems.push({ field: `kvList[${i}].value`, message: ranking });
    }
  });
  return problems;
}

export function storageRemovalProblems(keys: readonly string[], limits: StorageLimits): FieldProblem[] {
  const problems = countProblem("keys", keys.length, limits.maxKeys);
  if (problems.length > 0) return problems;
  keys.forEach((key, i) => {
    const issue = keyProblem(key, limits);
    if (issue) problems.push({ field: `keys[${i}]`, message: issue });
  });
  return problems;
}

export function interactiveDataProblems(kvList: readonly InteractiveEntry[], limits: InteractiveDataLimits): FieldProblem[] {
  const problems = countProblem("kvList", kvList.length, limits.keys.length);
  if (problems.length > 0) return problems;
  const seen = new Set<string>();
  kvList.forEach(({ key, value }, i) => {
    if (!limits.keys.includes(key)) problems.push({ field: `kvList[${i}].key`, message: `must be one of "${limits.keys[0]}"…"${limits.keys.at(-1)}"` });
    else if (seen.has(key)) problems.push({ field: `kvList[${i}].key`, message: "appears twice" });
    seen.add(key);
    if (!Number.isInteger(value) || value < limits.minValue || value > limits.maxValue) {
      problems.push({ field: `kvList[${i}].value`, message: `must be an integer from ${limits.minValue} to ${limits.maxValue}` });
    }
  });
  return problems;
}

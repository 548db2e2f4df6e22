/**
 * Audience rules: what the server knows of a player (PlayerFacts), combined with all/any/not.
 * A rule is an object with exactly one key; a range is {gte?, gt?, lte?, lt?}.
 */
import { z } from "zod";

export interface PlayerFacts {
  userId: string;
  app: string;
  platform?: string;
  /** ISO time of the account's first login (its creation). */
  firstLoginAt?: string;
  /** Has a delivered paid order. */
  payer: boolean;
  /** What the player's delivered paid orders cost, in platform coins. */
  totalPaid: number;
  /** The player's best score by leaderboard id (absent: never scored). */
  leaderboardBest: Record<string, number>;
  /** The client's reported version (semver), when it sent one. */
  appVersion?: string;
  /** Properties that server code set on the player. */
  properties: Record<string, unknown>;
}

export type Range = { gte?: number; gt?: number; lte?: number; lt?: number };
export type VersionRange = { gte?: string; gt?: string; lte?: string; lt?: string; eq?: string };
export type Rule =
  | { all: Rule[] }
  | { any: Rule[] }
  | { not: Rule }
  | { audience: string }
  | { platform: string[] }
  | { app: string[] }
  | { daysSinceFirstLogin: Range }
  | { newToday: boolean }
  | { payer: boolean }
  | { totalPaid: Range }
  | { leaderboardBest: Range & { leaderboardId: string } }
  | { appVersion: VersionRange }
  | { property: { key: string; eq?: unknown; in?: unknown[] } & Range };

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;
const semver = z.string().regex(SEMVER, "must be a version like 1.2.3");
const rangeShape = { gte: z.number().optional(), gt: z.number().optional(), lte: z.number().optional(), lt: z.number().optional() };
const range = z.strictObject(rangeShape);

export const ruleSchema: z.ZodType<Rule> = z.lazy(() =>
  z.union([
    z.strictObject({ all: z.array(ruleSchema).min(1) }),
    z.strictObject({ any: z.array(ruleSchema).min(1) }),
    z.strictObject({ not: ruleSchema }),
    z.strictObject({ audience: z.string().min(1) }),
    z.strictObject({ platform: z.array(z.string().min(1)).min(1) }),
    z.strictObject({ app: z.array(z.string().min(1)).min(1) }),
    z.strictObject({ daysSinceFirstLogin: range }),
    z.strictObject({ newToday: z.boolean() }),
    z.strictObject({ payer: z.boolean() }),
    z.strictObject({ totalPaid: range }),
    z.strictObject({ leaderboardBest: z.strictObject({ leaderboardId: z.string().min(1), ...rangeShape }) }),
    z.strictObject({ appVersion: z.strictObject({ gte: semver.optional(), gt: semver.optional(), lte: semver.optional(), lt: semver.optional(), eq: semver.optional() }) }),
    z.strictObject({ property: z.strictObject({ key: z.string().min(1), eq: z.json().optional(), in: z.array(z.json()).optional(), ...rangeShape }) }),
  ]),
) as z.ZodType<Rule>;

/** The audiences a rule refers to (checked to exist). */
export function ruleAudiences(rule: Rule): string[] {
  if ("all" in rule) return rule.all.flatMap(ruleAudiences);
  if ("any" in rule) return rule.any.flatMap(ruleAudiences);
  if ("not" in rule) return ruleAudiences(rule.not);
  if ("audience" in rule) return [rule.audience];
  return [];
}

const DAY_MS = 86_400_000;

/**
 * Whether the player matches. `audience` resolves a named audience (with a depth guard against
 * cycles the check did not catch through several hops: a cycle matches nobody).
 */
export function matches(rule: Rule, facts: PlayerFacts, now: number, audience: (id: string) => Rule | undefined, depth = 0): boolean {
  if (depth > 16) return false;
  const m = (r: Rule) => matches(r, facts, now, audience, depth + 1);
  if ("all" in rule) return rule.all.every(m);
  if ("any" in rule) return rule.any.some(m);
  if ("not" in rule) return !m(rule.not);
  if ("audience" in rule) {
    const named = audience(rule.audience);
    return named ? m(named) : false;
  }
  if ("platform" in rule) return facts.platform !== undefined && rule.platform.includes(facts.platform);
  if ("app" in rule) return rule.app.includes(facts.app);
  if ("daysSinceFirstLogin" in rule) return facts.firstLoginAt !== undefined && inRange(Math.floor((now - Date.parse(facts.firstLoginAt)) / DAY_MS), rule.daysSinceFirstLogin);
  if ("newToday" in rule) return (facts.firstLoginAt !== undefined && now - Date.parse(facts.firstLoginAt) < DAY_MS) === rule.newToday;
  if ("payer" in rule) return facts.payer === rule.payer;
  if ("totalPaid" in rule) return inRange(facts.totalPaid, rule.totalPaid);
  if ("leaderboardBest" in rule) {
    const best = facts.leaderboardBest[rule.leaderboardBest.leaderboardId];
    return best !== undefined && inRange(best, rule.leaderboardBest);
  }
  if ("appVersion" in rule) return facts.appVersion !== undefined && SEMVER.test(facts.appVersion) && versionInRange(facts.appVersion, rule.appVersion);
  if ("property" in rule) {
    const { key, eq, in: oneOf, ...bounds } = rule.property;
    const value = facts.properties[key];
    if (value === undefined) return false;
    if (eq !== undefined && JSON.stringify(value) !== JSON.stringify(eq)) return false;
    if (oneOf !== undefined && !oneOf.some((v) => JSON.stringify(v) === JSON.stringify(value))) return false;
    if (Object.keys(bounds).length > 0) return typeof value === "number" && inRange(value, bounds);
    return true;
  }
  return false;
}

function inRange(value: number, r: Range): boolean {
  return (r.gte === undefined || value >= r.gte) && (r.gt === undefined || value > r.gt) && (r.lte === undefined || value <= r.lte) && (r.lt === undefined || value < r.lt);
}

function versionInRange(version: string, r: VersionRange): boolean {
  const c = (other: string) => compareVersions(version, other);
  return (
    (r.gte === undefined || c(r.gte) >= 0) &&
    (r.gt === undefined || c(r.gt) > 0) &&
    (r.lte === undefined || c(r.lte) <= 0) &&
    (r.lt === undefined || c(r.lt) < 0) &&
    (r.eq === undefined || c(r.eq) === 0)
  );
}

/** Semver precedence: numbers compared as numbers; a pre-release sorts before its release (1.0.0-beta < 1.0.0). */
export function compareVersions(a: string, b: string): number {
  const pa = SEMVER.exec(a)!;
  const pb = SEMVER.exec(b)!;
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return Math.sign(d);
  }
  if (pa[4] === pb[4]) return 0;
  if (pa[4] === undefined) return 1;
  if (pb[4] === undefined) return -1;
  const xs = pa[4].split(".");
  const ys = pb[4].split(".");
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    if (xs[i] === undefined) return -1;
    if (ys[i] === undefined) return 1;
    const [x, y] = [xs[i], ys[i]];
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    const d = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

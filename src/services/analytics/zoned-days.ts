/**
 * Calendar days in the studio's time zone (STUDIO_TIME_ZONE): which day an instant falls on, and
 * the instant a day starts. Intl knows the zone's rules, summer time included.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, found);
  }
  return found;
}

function parts(ms: number, timeZone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(ms)) if (p.type !== "literal") out[p.type] = Number(p.value);
  return out;
}

/** The day (`YYYY-MM-DD`) the instant falls on in the zone. */
export function localDate(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${pad(p.month!)}-${pad(p.day!)}`;
}

/** How far the zone's clock is ahead of UTC at the instant, in ms. */
function offsetAt(ms: number, timeZone: string): number {
  const p = parts(ms, timeZone);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}

/** The instant (ms) the day begins in the zone. */
export function dayStart(date: string, timeZone: string): number {
  const midnightAsUtc = Date.parse(`${date}T00:00:00Z`);
  let guess = midnightAsUtc - offsetAt(midnightAsUtc, timeZone);
  // Once more with the offset at the guess: they differ when a summer-time change lies between.
  guess = midnightAsUtc - offsetAt(guess, timeZone);
  return guess;
}

/** The day `n` days after `date` (before, for negative n). */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Whole days from `a` to `b`. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

export const DATE = /^\d{4}-\d{2}-\d{2}$/;

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

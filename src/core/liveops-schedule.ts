/**
 * When a live event runs: a fixed window (startsAt/endsAt), or a repeating schedule — every day or
 * on some weekdays, at a local time of the definitions' time zone, for a duration — optionally
 * bounded by startsAt/endsAt. Local times are turned into instants with the zone's offset at that
 * moment (Intl), so a daylight-saving zone keeps its wall-clock time.
 */
import { z } from "zod";

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export const scheduleSchema = z.strictObject({
  /** Local start time, HH:MM. */
  at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (24 h)"),
  /** Weekdays it starts on; every day when absent. */
  days: z.array(z.enum(WEEKDAYS)).min(1).optional(),
  durationMinutes: z.number().int().positive().max(7 * 24 * 60),
});
export type Schedule = z.output<typeof scheduleSchema>;

export function checkSchedule(schedule: Schedule): string[] {
  const days = schedule.days ?? WEEKDAYS;
  const gapDays = days.length === 7 ? 1 : 7 / days.length;
  return schedule.durationMinutes > gapDays * 24 * 60 ? ["durationMinutes is longer than the gap between starts (occurrences would overlap)"] : [];
}

export interface Window {
  startsAt: number;
  endsAt: number;
}

/**
 * The occurrence running at `now`, else the next one (null when none is left). A fixed window is
 * its own only occurrence; an open start is "since ever", an open end "for ever".
 */
export function currentOrNext(event: { startsAt?: string; endsAt?: string; schedule?: Schedule }, timeZone: string, now: number): Window | null {
  const from = event.startsAt ? Date.parse(event.startsAt) : -Infinity;
  const until = event.endsAt ? Date.parse(event.endsAt) : Infinity;
  if (!event.schedule) return now < until ? { startsAt: from, endsAt: until } : null;
  const { at, days, durationMinutes } = event.schedule;
  const [hh, mm] = at.split(":").map(Number);
  const today = localDate(now, timeZone);
  // Looks a week back (a running occurrence) and two weeks ahead (the next one).
  for (let offset = -8; offset <= 15; offset++) {
    const day = new Date(Date.UTC(today.y, today.m - 1, today.d + offset));
    if (days && !days.includes(WEEKDAYS[day.getUTCDay()])) continue;
    const start = zonedInstant(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), hh, mm, timeZone);
    const end = Math.min(start + durationMinutes * 60_000, until);
    if (start < from || start >= until) continue;
    if (end > now) return { startsAt: start, endsAt: end };
  }
  return null;
}

export function isActive(window: Window | null, now: number): boolean {
  return window !== null && window.startsAt <= now && now < window.endsAt;
}

/** Formatters are costly to build (tens of µs): one per zone, kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formatters.set(timeZone, f);
  }
  return f;
}

function localDate(instant: number, timeZone: string): { y: number; m: number; d: number } {
  const parts = formatter(timeZone).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { y: get("year"), m: get("month"), d: get("day") };
}

/** The zone's offset from UTC at `instant`, in ms (Asia/Shanghai: +8 h). */
function offsetAt(instant: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a local wall-clock time of the zone names. */
export function zonedInstant(y: number, m: number, d: number, hh: number, mm: number, timeZone: string): number {
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  const first = guess - offsetAt(guess, timeZone);
  return guess - offsetAt(first, timeZone);
}

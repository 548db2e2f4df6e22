/**
 * What every simulated content-security check shares (platform-apis-2.md §9): marker words that
 * decide the verdict, and the per-app limits (WeChat and QQ document 4000/min and 2,000,000/day).
 */
import type { TextVerdict } from "../platforms/platform";

/** Text containing this is risky on every simulated platform. */
export const RISKY_MARKER = "simulator-risky";
/** Text containing this is "review" where the platform has that verdict (WeChat v2), else passes. */
export const REVIEW_MARKER = "simulator-review";

export function simulatedVerdict(text: string): TextVerdict {
  if (text.includes(RISKY_MARKER)) return "risky";
  return text.includes(REVIEW_MARKER) ? "review" : "pass";
}

export interface ContentCheckSettings {
  /** Checks per app per minute of the simulator clock before the limit answer. Default 4000. */
  perMinute: number;
  /** Checks per app per (Beijing) day. Default 2,000,000. */
  perDay: number;
  /** How recent a login must be for WeChat's check (61010 beyond it). Default 30 min (staff; the doc says 2 h). */
  recentLoginMs: number;
}

export const DEFAULT_CONTENT_CHECK_SETTINGS: ContentCheckSettings = {
  perMinute: 4000,
  perDay: 2_000_000,
  recentLoginMs: 30 * 60_000,
};

const BEIJING_OFFSET_MS = 8 * 3600_000;

/** Per-app counters over fixed minute and day windows of the simulator clock. */
export class ContentCheckQuota {
  private readonly counts = new Map<string, { minute: number; perMinute: number; day: string; perDay: number }>();

  constructor(private readonly settings: () => ContentCheckSettings) {}

  take(app: string, now: number): boolean {
    const minute = Math.floor(now / 60_000);
    const day = new Date(now + BEIJING_OFFSET_MS).toISOString().slice(0, 10);
    const entry = this.counts.get(app) ?? { minute, perMinute: 0, day, perDay: 0 };
    if (entry.minute !== minute) Object.assign(entry, { minute, perMinute: 0 });
    if (entry.day !== day) Object.assign(entry, { day, perDay: 0 });
    this.counts.set(app, entry);
    const { perMinute, perDay } = this.settings();
    if (entry.perMinute >= perMinute || entry.perDay >= perDay) return false;
    entry.perMinute += 1;
    entry.perDay += 1;
    return true;
  }
}

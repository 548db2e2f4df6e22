/** Settings of analytics (docs/analytics.md): the studio's day, the event writer's bounds, client events. */
import { z } from "zod";
import { bool, int } from "../config-types";
import { studioTimeZone } from "./growth";

const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat("en-CA", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, "is not an IANA time zone (e.g. Asia/Shanghai, UTC)");

export const analyticsShape = {
  /** Deprecated alias of STUDIO_TIME_ZONE (growth.ts), read when that is not set; both set and different is refused. */
  ANALYTICS_TIME_ZONE: timeZone.optional(),
  ANALYTICS_BUFFER_MAX: int(100, 10_000_000).default(100_000),
  ANALYTICS_FLUSH_MS: int(50, 60_000).default(1000),
  ANALYTICS_ROLLUP_MINUTES: int(0, 1440).default(10),
  ANALYTICS_CLIENT_EVENT_PAST_HOURS: int(1, 24 * 30).default(72),
  // 0: kept until an erase. Otherwise at least 62 days: a rollup's day needs the 30 days before it,
  // and its retention cohorts the 30 before those.
  ANALYTICS_EVENT_RETENTION_DAYS: int(0, 36_500)
    .refine((days) => days === 0 || days >= 62, "must be 0 (keep) or at least 62 days (a rollup reads 60 days back)")
    .default(0),
  ANALYTICS_JSONL: z.string().refine((v) => v === "stdout" || v.startsWith("/"), "must be stdout or an absolute file path").optional(),
  /** false: no event is kept (client events are still checked and answered); the console's analytics stay empty. */
  ANALYTICS_RECORD: bool.default(true),
};

type AnalyticsSettings = z.output<z.ZodObject<typeof analyticsShape>>;

export function analyticsConfig(s: AnalyticsSettings & { STUDIO_TIME_ZONE?: string }) {
  return {
    analytics: {
      /** The studio's day: rollups count days from midnight to midnight here. */
      timeZone: studioTimeZone(s),
      /** The most events one process holds while the store is slow or out; beyond it new ones are dropped and counted. */
      bufferMax: s.ANALYTICS_BUFFER_MAX,
      /** How often buffered events are written. */
      flushMs: s.ANALYTICS_FLUSH_MS,
      /** How often the server rolls up the recent days (0: only `admin analytics rollup`). */
      rollupMinutes: s.ANALYTICS_ROLLUP_MINUTES,
      /** How far back a client event's `at` may be; ahead, at most 5 minutes. */
      clientEventPastMs: s.ANALYTICS_CLIENT_EVENT_PAST_HOURS * 3600_000,
      /** Events older than this many days are deleted by the rollup job (rollups stay); 0: kept. */
      eventRetentionDays: s.ANALYTICS_EVENT_RETENTION_DAYS,
      record: s.ANALYTICS_RECORD,
      /** Where every written event also goes as a JSON line, for a warehouse; undefined: nowhere. */
      jsonLines: s.ANALYTICS_JSONL === undefined ? undefined : s.ANALYTICS_JSONL === "stdout" ? ("stdout" as const) : { file: s.ANALYTICS_JSONL },
    },
  };
}

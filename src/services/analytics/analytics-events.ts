/**
 * What the event writer reports (server/analytics-metrics.ts counts it): the service knows
 * nothing of prom-client.
 */
export interface AnalyticsCounters {
  /** Events taken into the buffer. */
  recorded(count: number): void;
  /** Events the store confirmed. */
  written(count: number): void;
  /** Events lost: `buffer_full` (the bound was reached), `shutdown` (left when the process stopped). */
  dropped(reason: "buffer_full" | "shutdown", count: number): void;
  /** A batch the store refused or did not answer: kept for the next try. */
  writeFailed(): void;
  /** Client events refused by POST /api/events, by reason. */
  refused(reason: string, count: number): void;
  /** Events waiting in this process (the buffer and the backlog of failed writes). */
  setBacklog(size: number): void;
}

export const NO_ANALYTICS_COUNTERS: AnalyticsCounters = {
  recorded: () => undefined,
  written: () => undefined,
  dropped: () => undefined,
  writeFailed: () => undefined,
  refused: () => undefined,
  setBacklog: () => undefined,
};

/**
 * Analytics from the server's own records (docs/analytics.md): an append-only log of events, one
 * per fact, and the daily rollups computed from it. One contract suite runs over every backend
 * (test/integration/analytics-store.contract.test.ts).
 */

/** A prop's value: flat and small, so every store and a warehouse column can hold it. */
export type EventPropValue = string | number | boolean;

export interface AnalyticsEvent {
  /**
   * Unique: a fact with an id of its own (an order, an ad view, a purchase) derives it, so a retried
   * write or a fact seen twice is stored once; other events get a random one.
   */
  id: string;
  /** `login`, `order_delivered`, … (docs/analytics.md), or a client event's name. */
  name: string;
  /** Our app key. */
  app: string;
  /** The player's platform (`wechat`, …), `account` for a registered account, `unknown` when not found. */
  platform: string;
  userId: string | null;
  /** ISO 8601 UTC, millisecond precision. */
  at: string;
  props: Record<string, EventPropValue>;
  /** The variants the player held at `at` (experiment → variant), stamped by the writer from LiveOps. */
  experiments: Record<string, string>;
  /** The live events active for the player at `at`, stamped by the writer from LiveOps. */
  liveEvents: string[];
}

export interface EventScan {
  /** Inclusive lower and exclusive upper bound on `at` (ISO). */
  from: string;
  to: string;
  /** Resume after this event in (at, id) order: the last one of the previous page. */
  after?: { at: string; id: string };
  limit: number;
}

/**
 * Where a scan page's index range starts: the cursor's time once it is past `from`. With the cursor
 * as a filter alone, each page read the index again from `from` (a 90-day rollup of 9 million events
 * took quadratic time); every store bounds its range by this.
 */
export function scanStart(query: Pick<EventScan, "from" | "after">): string {
  return query.after && Date.parse(query.after.at) > Date.parse(query.from) ? query.after.at : query.from;
}

/** Retention horizons, in days after the cohort's first day. */
export const RETENTION_DAYS = [1, 3, 7, 14, 30] as const;
export type RetentionKey = `d${(typeof RETENTION_DAYS)[number]}`;

/** `all` in app or platform: every app or platform together (players counted once). */
export const ALL = "all";

export interface DailyMetrics {
  dau: number;
  wau: number;
  mau: number;
  newPlayers: number;
  sessions: number;
  /** The sum of the sessions' lengths; the average is sessionSeconds / sessions. */
  sessionSeconds: number;
  payingPlayers: number;
  /** Delivered paid orders' revenue per unit (docs/analytics.md names the units). */
  revenue: Record<string, number>;
  /** Coins those orders were for. */
  revenueCoins: number;
  adViews: number;
  softPurchases: number;
  /** Soft currency given to players that day, per currency: gifts, mail, operators' grants. */
  softSources: Record<string, number>;
  /** Soft currency players spent (purchases) or operators took back (debits), per currency. */
  softSinks: Record<string, number>;
}

export interface DailyRow extends DailyMetrics {
  app: string;
  platform: string;
  /** The studio's calendar day (STUDIO_TIME_ZONE), `YYYY-MM-DD`. */
  date: string;
}

export interface RetentionRow {
  app: string;
  platform: string;
  /** The cohort: players whose first login was on this day. */
  date: string;
  size: number;
  /** Players of the cohort active N days later; null while that day has not come. */
  retained: Record<RetentionKey, number | null>;
}

export interface RollupQuery {
  app: string;
  platform: string;
  /** Inclusive, `YYYY-MM-DD`. */
  from: string;
  to: string;
}

export interface AnalyticsStore {
  migrate(): Promise<void>;
  /** Appends the events; one whose id is already stored is skipped (a retried batch is stored once). */
  append(events: AnalyticsEvent[]): Promise<void>;
  /** Events with `at` in [from, to), in (at, id) order, at most `limit`. */
  scan(query: EventScan): Promise<AnalyticsEvent[]>;
  /** Writes the rows, each replacing the row of its (app, platform, date). */
  saveDaily(rows: DailyRow[]): Promise<void>;
  saveRetention(rows: RetentionRow[]): Promise<void>;
  /** Rows of one app and platform (either may be ALL), by date. */
  daily(query: RollupQuery): Promise<DailyRow[]>;
  retention(query: RollupQuery): Promise<RetentionRow[]>;
  /** The player's events in (at, id) order, at most `limit`, after `after` (the export reads them page by page). */
  userEvents(query: { userId: string; after?: { at: string; id: string }; limit: number }): Promise<AnalyticsEvent[]>;
  /** Removes the events with `at` before the instant (ISO), the retention period (rollups stay). Answers how many. */
  deleteBefore(at: string): Promise<number>;
  /** Removes every event of the player (rollups stay: they are counts). Answers how many. */
  eraseUser(userId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * How a service reports a fact: never waits, never throws (services/analytics/event-writer.ts
 * buffers and writes). `id` for a fact with an id of its own; `platform` when the caller knows it.
 */
export interface AnalyticsRecorder {
  record(fact: { name: string; app: string; userId: string | null; platform?: string; id?: string; at?: string; props?: Record<string, EventPropValue> }): void;
}

export const NO_ANALYTICS: AnalyticsRecorder = { record: () => undefined };

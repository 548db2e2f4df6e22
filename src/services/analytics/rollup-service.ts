/**
 * Daily rollups from the event log (docs/analytics.md). A rollup of days [from, to] recomputes
 * their rows from the events themselves, so it is idempotent (a rerun, or two processes at once,
 * write the same numbers) and a late event counts once its day is rolled up again. Rows are kept
 * per app and platform, and for ALL of either, where a player is counted once.
 */
import { ALL, RETENTION_DAYS, type AnalyticsEvent, type AnalyticsStore, type DailyRow, type RetentionRow } from "../../core/ports/analytics-store";
import { SERVER_EVENTS } from "./event-names";
import { distinctOverWindow, NO_PLAYERS, PlayerIds, PlayerSet, sharedCount } from "./player-days";
import { addDays, dayStart, daysBetween, localDate } from "./zoned-days";

export interface RollupOptions {
  timeZone: string;
  /** Events older than this many days are deleted by `prune` (0: kept), and days whose inputs are gone are not rolled up again. */
  eventRetentionDays?: number;
  now?: () => number;
  /** Events per store read. */
  pageSize?: number;
}

/** What one day of one (app, platform) saw; players as interned ids (player-days.ts). */
interface DayTally {
  active: PlayerSet;
  newPlayers: PlayerSet;
  payers: PlayerSet;
  sessions: number;
  sessionSeconds: number;
  revenue: Record<string, number>;
  revenueCoins: number;
  adViews: number;
  softPurchases: number;
  softSources: Record<string, number>;
  softSinks: Record<string, number>;
}

const MAU_DAYS = 30;
const WAU_DAYS = 7;
const LONGEST_RETENTION = RETENTION_DAYS.at(-1)!;

export class RollupService {
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<AnalyticsStore, "scan" | "saveDaily" | "saveRetention" | "deleteBefore">,
    private readonly options: RollupOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The studio's today. */
  today(): string {
    return localDate(this.now(), this.options.timeZone);
  }

  /**
   * Recomputes the daily rows of [from, to] (no later than today) and the retention rows of every
   * cohort a day of the range can change (the 30 days before it too). Answers the rows written.
   */
  async rollup(requestedFrom: string, to: string): Promise<{ days: number; cohorts: number }> {
    const today = this.today();
    const last = to < today ? to : today;
    // A day whose 30 days before (its MAU, its cohorts) were deleted would be rewritten short: its rows stay as they are.
    const kept = this.firstKeptDay();
    const from = kept && addDays(kept, LONGEST_RETENTION) > requestedFrom ? addDays(kept, LONGEST_RETENTION) : requestedFrom;
    if (from > last) return { days: 0, cohorts: 0 };
    const firstCohort = addDays(from, -LONGEST_RETENTION);
    const lastSeen = addDays(last, LONGEST_RETENTION) < today ? addDays(last, LONGEST_RETENTION) : today;
    const { byDay: tallies, players } = await this.tally(firstCohort, lastSeen);
    const daily = this.dailyRows(tallies, firstCohort, from, last, players);
    const retention = this.retentionRows(tallies, firstCohort, last, today);
    await this.store.saveDaily(daily);
    await this.store.saveRetention(retention);
    return { days: daily.length, cohorts: retention.length };
  }

  /**
   * Deletes the events of the days before the retention period (the rollup job's part: docs/analytics.md);
   * the rollups stay. Answers how many were deleted; 0 when events are kept.
   */
  async prune(): Promise<number> {
    const kept = this.firstKeptDay();
    return kept ? this.store.deleteBefore(new Date(dayStart(kept, this.options.timeZone)).toISOString()) : 0;
  }

  /** The first of the studio's days whose events are kept; undefined when all are. */
  private firstKeptDay(): string | undefined {
    const days = this.options.eventRetentionDays ?? 0;
    return days > 0 ? addDays(this.today(), -days) : undefined;
  }

  /**
   * Every event of days [first, last], tallied per day and (app, platform) key. The scan comes in
   * time order, so a day is sealed (its players made sorted arrays) once the next one starts.
   */
  private async tally(first: string, last: string): Promise<{ byDay: Map<string, Map<string, DayTally>>; players: PlayerIds }> {
    const zone = this.options.timeZone;
    const from = new Date(dayStart(first, zone)).toISOString();
    const to = new Date(dayStart(addDays(last, 1), zone)).toISOString();
    const byDay = new Map<string, Map<string, DayTally>>();
    const players = new PlayerIds();
    let current: string | undefined;
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.scan({ from, to, after, limit: this.options.pageSize ?? 5000 });
      for (const event of page) {
        const date = localDate(Date.parse(event.at), zone);
        if (date !== current) {
          if (current !== undefined) sealDay(byDay.get(current));
          current = date;
        }
        let keys = byDay.get(date);
        if (!keys) byDay.set(date, (keys = new Map()));
        const user = event.userId ? players.of(event.userId) : undefined;
        for (const key of keysOf(event)) {
          let tally = keys.get(key);
          if (!tally) keys.set(key, (tally = emptyTally()));
          count(tally, event, user);
        }
      }
      if (page.length < (this.options.pageSize ?? 5000)) break;
      const lastEvent = page.at(-1)!;
      after = { at: lastEvent.at, id: lastEvent.id };
    }
    for (const keys of byDay.values()) sealDay(keys);
    return { byDay, players };
  }

  private dailyRows(byDay: Map<string, Map<string, DayTally>>, first: string, from: string, to: string, players: PlayerIds): DailyRow[] {
    const rows: DailyRow[] = [];
    // Every app and platform seen in the window gets a row for every day, zeros included: a rerun
    // after late events then replaces each row it wrote before, never leaves one behind.
    const keys = new Set<string>();
    for (const tallies of byDay.values()) for (const key of tallies.keys()) keys.add(key);
    const sorted = [...keys].sort();
    const dates: string[] = [];
    for (let date = first; date <= to; date = addDays(date, 1)) dates.push(date);
    const windows = new Map<string, { wau: number[]; mau: number[] }>();
    for (const key of sorted) {
      const days = dates.map((date) => byDay.get(date)?.get(key)?.active.seal() ?? NO_PLAYERS);
      windows.set(key, { wau: distinctOverWindow(days, WAU_DAYS, players.size), mau: distinctOverWindow(days, MAU_DAYS, players.size) });
    }
    for (let date = from; date <= to; date = addDays(date, 1)) {
      const index = daysBetween(first, date);
      for (const key of sorted) {
        const [app, platform] = splitKey(key);
        const tally = byDay.get(date)?.get(key) ?? emptyTally();
        rows.push({
          app,
          platform,
          date,
          dau: tally.active.size,
          wau: windows.get(key)!.wau[index],
          mau: windows.get(key)!.mau[index],
          newPlayers: tally.newPlayers.size,
          sessions: tally.sessions,
          sessionSeconds: tally.sessionSeconds,
          payingPlayers: tally.payers.size,
          revenue: tally.revenue,
          revenueCoins: tally.revenueCoins,
          adViews: tally.adViews,
          softPurchases: tally.softPurchases,
          softSources: tally.softSources,
          softSinks: tally.softSinks,
        });
      }
    }
    return rows;
  }

  private retentionRows(byDay: Map<string, Map<string, DayTally>>, first: string, last: string, today: string): RetentionRow[] {
    const rows: RetentionRow[] = [];
    for (let date = first; date <= last; date = addDays(date, 1)) {
      for (const [key, tally] of [...(byDay.get(date) ?? new Map<string, DayTally>())].sort(([a], [b]) => a.localeCompare(b))) {
        if (tally.newPlayers.size === 0) continue;
        const [app, platform] = splitKey(key);
        const retained = {} as RetentionRow["retained"];
        for (const n of RETENTION_DAYS) {
          const later = addDays(date, n);
          const active = byDay.get(later)?.get(key)?.active;
          retained[`d${n}`] = daysBetween(later, today) < 0 ? null : active ? sharedCount(tally.newPlayers.seal(), active.seal()) : 0;
        }
        rows.push({ app, platform, date, size: tally.newPlayers.size, retained });
      }
    }
    return rows;
  }
}

function emptyTally(): DayTally {
  return { active: new PlayerSet(), newPlayers: new PlayerSet(), payers: new PlayerSet(), sessions: 0, sessionSeconds: 0, revenue: {}, revenueCoins: 0, adViews: 0, softPurchases: 0, softSources: {}, softSinks: {} };
}

function sealDay(keys: Map<string, DayTally> | undefined): void {
  for (const tally of keys?.values() ?? []) {
    tally.active.seal();
    tally.newPlayers.seal();
    tally.payers.seal();
  }
}

/** The rows an event counts in: its app and platform, and ALL of either. */
function keysOf(event: AnalyticsEvent): string[] {
  return [`${event.app}\n${event.platform}`, `${event.app}\n${ALL}`, `${ALL}\n${event.platform}`, `${ALL}\n${ALL}`];
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf("\n");
  return [key.slice(0, at), key.slice(at + 1)];
}

function count(tally: DayTally, event: AnalyticsEvent, user: number | undefined): void {
  if (user !== undefined) tally.active.add(user);
  const props = event.props;
  switch (event.name) {
    case SERVER_EVENTS.login:
      if (user !== undefined && props.new === true) tally.newPlayers.add(user);
      break;
    case SERVER_EVENTS.sessionEnd:
      tally.sessions++;
      tally.sessionSeconds += wholeNumber(props.seconds);
      break;
    case SERVER_EVENTS.orderDelivered:
      if (user !== undefined) tally.payers.add(user);
      if (typeof props.unit === "string") tally.revenue[props.unit] = (tally.revenue[props.unit] ?? 0) + wholeNumber(props.revenue);
      tally.revenueCoins += wholeNumber(props.coins);
      break;
    case SERVER_EVENTS.adReward:
      tally.adViews++;
      break;
    case SERVER_EVENTS.softPurchase:
      tally.softPurchases++;
      for (const [currency, amount] of amountsOf(props, "cost_")) add(tally.softSinks, currency, amount);
      break;
    case SERVER_EVENTS.gift:
    case SERVER_EVENTS.mailClaim:
    case SERVER_EVENTS.operatorGrant:
    case SERVER_EVENTS.currencyGranted:
      // An operator's debit is a grant of a negative amount: a sink.
      for (const [currency, amount] of amountsOf(props, "currency_")) add(amount >= 0 ? tally.softSources : tally.softSinks, currency, Math.abs(amount));
      break;
  }
}

/** The `<prefix><currency>` props of an event that are whole numbers. */
function amountsOf(props: AnalyticsEvent["props"], prefix: string): Array<[string, number]> {
  return Object.entries(props)
    .filter(([key, value]) => key.startsWith(prefix) && key.length > prefix.length && typeof value === "number" && Number.isFinite(value))
    .map(([key, value]) => [key.slice(prefix.length), Math.round(value as number)]);
}

function add(sums: Record<string, number>, currency: string, amount: number): void {
  if (amount !== 0) sums[currency] = (sums[currency] ?? 0) + amount;
}

function wholeNumber(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
}

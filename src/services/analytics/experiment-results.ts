/**
 * An experiment's results per variant (docs/analytics.md, "Experiment results"): the players
 * exposed, their payer conversion, revenue per player and next-day retention, each with a 95 %
 * interval. Who is in which variant is LiveOps' stored assignment (the exposure record written the
 * first time a player was served the variant), read, never recomputed here: a player the hash would
 * place but who was never served (no config fetched, outside the audience or the layer) is not
 * exposed. The players asked about are those with an event of the app while the experiment ran.
 */
import { AppError } from "../../core/errors";
import type { Experiment } from "../../core/liveops";
import type { AnalyticsEvent, AnalyticsStore } from "../../core/ports/analytics-store";
import { SERVER_EVENTS } from "./event-names";
import { addDays, dayStart, localDate } from "./zoned-days";

/** Where the experiment and its assignments come from (LiveOps). */
export interface ExperimentSource {
  /** The experiment of that id in the app's running definitions (any app when not given). */
  find(experimentId: string, app?: string): { app: string; experiment: Experiment } | undefined;
  /** The player's stored assignments in the app, experiment → variant. */
  assignments(app: string, userId: string): Promise<Record<string, string>>;
}

export interface Interval {
  low: number;
  high: number;
}

export interface VariantResult {
  variant: string;
  /** Players with a stored assignment to this variant and an event while the experiment ran. */
  players: number;
  payers: number;
  /** payers / players (4 decimals); `interval` is its 95 % Wilson score interval. */
  conversion: number;
  interval: Interval;
  /** Day-1 and day-7 retention (active again on the 1st / 7th day after their first in the window) of the players whose day has come; null when none has. */
  retention: Record<RetentionDay, RetentionResult | null>;
  /** Delivered paid orders' revenue per unit while the experiment ran. */
  revenue: Record<string, number>;
  /** revenue / players per unit (2 decimals), with a 95 % normal interval of the mean. */
  revenuePerPlayer: Record<string, { mean: number; interval: Interval }>;
}

export type RetentionDay = "d1" | "d7";

export interface RetentionResult {
  players: number;
  retained: number;
  /** retained / players (4 decimals); `interval` is its 95 % Wilson score interval. */
  rate: number;
  interval: Interval;
}

/** The retention days a result reports, and so how long after the end its players' returns are read. */
const RETENTION_DAYS: Record<RetentionDay, number> = { d1: 1, d7: 7 };
const LAST_RETENTION_DAY = Math.max(...Object.values(RETENTION_DAYS));

export interface ExperimentReport {
  experimentId: string;
  app: string;
  /** The window read: the experiment's start (or `lookbackDays` ago) to its end (or now). */
  from: string;
  to: string;
  timeZone: string;
  /** False while a variant has fewer than `minPlayersPerVariant` players: the numbers may be chance. */
  enoughData: boolean;
  minPlayersPerVariant: number;
  variants: VariantResult[];
}

export interface ExperimentResultsOptions {
  timeZone: string;
  now?: () => number;
  /** How far back an experiment without a start is read. Default 90 days. */
  lookbackDays?: number;
  minPlayersPerVariant?: number;
  pageSize?: number;
  /** Assignment reads at once. */
  concurrency?: number;
}

const Z95 = 1.959964;

interface PlayerTally {
  firstDay: string;
  activeDays: Set<string>;
  paid: boolean;
  revenue: Record<string, number>;
  /** The variant the player's own events name, when LiveOps wrote it on them. */
  variant?: string;
}

export class ExperimentResults {
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<AnalyticsStore, "scan">,
    private readonly source: ExperimentSource,
    private readonly options: ExperimentResultsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async results(experimentId: string, app?: string): Promise<ExperimentReport> {
    const found = this.source.find(experimentId, app);
    if (!found) throw new AppError("experiment_not_found", { data: { experimentId, ...(app ? { app } : {}) } });
    const { experiment } = found;
    const zone = this.options.timeZone;
    const now = this.now();
    const from = experiment.startsAt ? Date.parse(experiment.startsAt) : now - (this.options.lookbackDays ?? 90) * 86_400_000;
    const to = Math.min(now, experiment.endsAt ? Date.parse(experiment.endsAt) : now);
    // The day after the last day in the experiment is read too: the next-day retention of those who came last.
    const readTo = Math.max(to, Math.min(now, dayStart(addDays(localDate(to, zone), LAST_RETENTION_DAY + 1), zone)));
    // Not started yet: nobody exposed.
    const players = from < to ? await this.tally(found.app, experimentId, from, to, readTo) : new Map<string, PlayerTally>();
    const byVariant = new Map<string, PlayerTally[]>(experiment.variants.map((v) => [v.variant, []]));
    await this.assign(found.app, experimentId, players, byVariant);
    const minPlayers = this.options.minPlayersPerVariant ?? 100;
    const variants = [...byVariant].map(([variant, members]) => summarize(variant, members, readTo, zone));
    return {
      experimentId,
      app: found.app,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      timeZone: zone,
      enoughData: variants.every((v) => v.players >= minPlayers),
      minPlayersPerVariant: minPlayers,
      variants,
    };
  }

  /** Each player with an event of the app in [from, to), and their activity up to readTo. */
  private async tally(app: string, experimentId: string, from: number, to: number, readTo: number): Promise<Map<string, PlayerTally>> {
    const zone = this.options.timeZone;
    const players = new Map<string, PlayerTally>();
    const limit = this.options.pageSize ?? 5000;
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.scan({ from: new Date(from).toISOString(), to: new Date(readTo).toISOString(), after, limit });
      for (const event of page) if (event.app === app && event.userId) count(players, event, experimentId, Date.parse(event.at) < to, zone);
      if (page.length < limit) break;
      after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
    }
    return players;
  }

  private async assign(app: string, experimentId: string, players: Map<string, PlayerTally>, byVariant: Map<string, PlayerTally[]>): Promise<void> {
    const queue = [...players];
    const worker = async () => {
      for (let next = queue.pop(); next; next = queue.pop()) {
        const [userId, tally] = next;
        const variant = tally.variant ?? (await this.source.assignments(app, userId))[experimentId];
        if (variant !== undefined) byVariant.get(variant)?.push(tally);
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency ?? 16 }, worker));
  }
}

function count(players: Map<string, PlayerTally>, event: AnalyticsEvent, experimentId: string, during: boolean, zone: string): void {
  const userId = event.userId!;
  let tally = players.get(userId);
  if (!tally) {
    // Only an event while the experiment ran brings a player in; later ones only show their return.
    if (!during) return;
    players.set(userId, (tally = { firstDay: localDate(Date.parse(event.at), zone), activeDays: new Set(), paid: false, revenue: {} }));
  }
  tally.activeDays.add(localDate(Date.parse(event.at), zone));
  const named = event.experiments?.[experimentId];
  if (named !== undefined) tally.variant ??= named;
  if (during && event.name === SERVER_EVENTS.orderDelivered) {
    tally.paid = true;
    const { unit, revenue } = event.props;
    if (typeof unit === "string" && typeof revenue === "number" && Number.isFinite(revenue)) tally.revenue[unit] = (tally.revenue[unit] ?? 0) + Math.max(0, Math.round(revenue));
  }
}

function summarize(variant: string, members: PlayerTally[], readTo: number, zone: string): VariantResult {
  const players = members.length;
  const payers = members.filter((m) => m.paid).length;
  const revenue: Record<string, number> = {};
  for (const m of members) for (const [unit, amount] of Object.entries(m.revenue)) revenue[unit] = (revenue[unit] ?? 0) + amount;
  const revenuePerPlayer = Object.fromEntries(Object.keys(revenue).sort().map((unit) => [unit, meanInterval(members.map((m) => m.revenue[unit] ?? 0))]));
  return {
    variant,
    players,
    payers,
    conversion: round(players === 0 ? 0 : payers / players, 4),
    interval: wilson(payers, players),
    retention: { d1: retention(members, RETENTION_DAYS.d1, readTo, zone), d7: retention(members, RETENTION_DAYS.d7, readTo, zone) },
    revenue,
    revenuePerPlayer,
  };
}

/** Of the members whose `day`-th day after their first has begun by `readTo`, those active on it; null when none has. */
function retention(members: PlayerTally[], day: number, readTo: number, zone: string): RetentionResult | null {
  const eligible = members.filter((m) => dayStart(addDays(m.firstDay, day), zone) < readTo);
  if (eligible.length === 0) return null;
  const retained = eligible.filter((m) => m.activeDays.has(addDays(m.firstDay, day))).length;
  return { players: eligible.length, retained, rate: round(retained / eligible.length, 4), interval: wilson(retained, eligible.length) };
}

/** The 95 % Wilson score interval of a proportion: sound for small counts and rates near 0 or 1. */
export function wilson(successes: number, trials: number): Interval {
  if (trials === 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return { low: round(Math.max(0, centre - half), 4), high: round(Math.min(1, centre + half), 4) };
}

/** The mean and its 95 % normal-approximation interval (the sample standard deviation / √n). */
export function meanInterval(values: number[]): { mean: number; interval: Interval } {
  const n = values.length;
  if (n === 0) return { mean: 0, interval: { low: 0, high: 0 } };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = n < 2 ? 0 : values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  const half = Z95 * Math.sqrt(variance / n);
  return { mean: round(mean, 2), interval: { low: round(Math.max(0, mean - half), 2), high: round(mean + half, 2) } };
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/**
 * Which period of a board is current, and the rollover to the next one, decided once across every
 * process: a period is a row the store inserts once (`claimPeriod`), so of any number of processes
 * that see a period end, exactly one creates the next; the others read it back.
 *
 * A period ends at the board's next reset (cron in its timezone), or at its tournament's end, after
 * which one closed period marks the tournament over. A manual reset starts the next period now.
 * Each process keeps the current period for at most PERIOD_CACHE_MS (never past its end), so a
 * manual reset reaches the other processes' submissions within that time.
 */
import { Cron } from "croner";
import type { BoardDefinition } from "../../config/settings/leaderboards";
import type { LeaderboardStore, Period } from "../../core/ports/leaderboard-store";

export const PERIOD_CACHE_MS = 1000;

interface Cached {
  period: Period | null;
  until: number;
}

export class BoardPeriods {
  private readonly cached = new Map<string, Cached>();
  private readonly crons = new Map<string, Cron>();

  constructor(
    private readonly store: LeaderboardStore,
    private readonly now: () => number,
  ) {}

  /** When a period starting (or checked) at `from` ends; null when the board never resets. */
  periodEnd(board: BoardDefinition, from: number): number | null {
    let end: number | null = null;
    if (board.reset) {
      const key = `${board.reset}\0${board.timezone}`;
      let cron = this.crons.get(key);
      if (!cron) this.crons.set(key, (cron = new Cron(board.reset, { timezone: board.timezone, paused: true })));
      end = cron.nextRun(new Date(from))?.getTime() ?? null;
    }
    if (board.tournament) {
      const over = Date.parse(board.tournament.endsAt);
      end = end === null ? over : Math.min(end, over);
    }
    return end;
  }

  /** The current period, rolled over if its end has passed; null before a tournament starts. */
  async current(app: string, board: BoardDefinition, fresh = false): Promise<Period | null> {
    const cacheKey = `${app}\0${board.id}`;
    const now = this.now();
    const hit = this.cached.get(cacheKey);
    if (hit && !fresh && now < hit.until) return hit.period;
    let period = await this.store.currentPeriod(app, board.id);
    if (!period) {
      const startsAt = board.tournament ? Date.parse(board.tournament.startsAt) : now;
      if (now < startsAt) return this.keep(cacheKey, null, Math.min(now + PERIOD_CACHE_MS, startsAt));
      await this.store.claimPeriod(app, board.id, { seq: 1, startsAt: now, endsAt: this.periodEnd(board, now), closed: false, reason: "start", by: null });
      period = (await this.store.currentPeriod(app, board.id))!;
    }
    while (!period.closed && period.endsAt !== null && now >= period.endsAt) {
      const over = board.tournament !== undefined && now >= Date.parse(board.tournament.endsAt);
      await this.store.claimPeriod(app, board.id, {
        seq: period.seq + 1,
        startsAt: period.endsAt,
        endsAt: over ? null : this.periodEnd(board, now),
        closed: over,
        reason: "schedule",
        by: null,
      });
      period = (await this.store.currentPeriod(app, board.id))!;
    }
    return this.keep(cacheKey, period, Math.min(now + PERIOD_CACHE_MS, period.endsAt ?? Infinity));
  }

  /**
   * Starts the next period now, by hand. `expectedSeq` (the period the operator saw) makes a
   * repeated or concurrent reset start one period only. Returns the new current period.
   */
  async reset(app: string, board: BoardDefinition, by: string, expectedSeq?: number): Promise<{ period: Period; started: boolean }> {
    const current = await this.current(app, board, true);
    const seq = expectedSeq ?? current?.seq ?? 0;
    const now = this.now();
    const started = await this.store.claimPeriod(app, board.id, { seq: seq + 1, startsAt: now, endsAt: this.periodEnd(board, now), closed: false, reason: "manual", by });
    this.cached.delete(`${app}\0${board.id}`);
    return { period: (await this.current(app, board, true))!, started };
  }

  forget(app: string, boardId: string): void {
    this.cached.delete(`${app}\0${boardId}`);
  }

  private keep(key: string, period: Period | null, until: number): Period | null {
    this.cached.set(key, { period, until });
    return period;
  }
}

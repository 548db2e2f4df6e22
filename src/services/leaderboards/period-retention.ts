/**
 * How long the rank index keeps an ended period. The current period is indexed for as long as it
 * runs; once a period has ended and its rewards are paid, its index is kept `retentionMs` after its
 * end (so last week's ranking still reads fast for display), then expires, and reads of it answer
 * from the store (the record of truth) without indexing it again. The payout never reads the index.
 *
 * The expiry is counted from the period's end, not from when a process noticed it, so every
 * process (and a restarted one) sets the same one.
 */
import type { BoardDefinition } from "../../config/settings/leaderboards";
import type { LeaderboardStore, PeriodKey } from "../../core/ports/leaderboard-store";
import type { RankIndex } from "../../core/ports/rank-index";
import { PERIOD_CACHE_MS, type BoardPeriods } from "./board-periods";

export const DEFAULT_PERIOD_RETENTION_MS = 7 * 24 * 3600_000;

const idOf = (key: PeriodKey) => `${key.app}\0${key.board}\0${key.seq}`;

export class PeriodRetention {
  /** Ended, paid periods: when their index goes (ms since epoch). */
  private readonly until = new Map<string, number>();
  /** Ended periods whose rewards were unpaid when last asked, and until when that answer holds. */
  private readonly unpaid = new Map<string, number>();
  /** Periods this process gave their expiry. */
  private readonly retired = new Set<string>();

  constructor(
    private readonly store: LeaderboardStore,
    private readonly periods: BoardPeriods,
    private readonly index: RankIndex | undefined,
    private readonly boardOf: (app: string, boardId: string) => BoardDefinition | undefined,
    private readonly retentionMs: number,
    private readonly now: () => number,
    private readonly logger: { warn(obj: object, msg: string): void },
  ) {}

  /**
   * How much longer the index may hold the period: null while it runs or its rewards are unpaid;
   * ≤ 0 once it is past its retention.
   */
  async remainingMs(key: PeriodKey): Promise<number | null> {
    const id = idOf(key);
    let until = this.until.get(id);
    if (until === undefined) {
      const board = this.boardOf(key.app, key.board);
      if (!board) return null;
      if ((this.unpaid.get(id) ?? 0) > this.now()) return null;
      const ended = await this.endedAt(board, key);
      if (ended === null) return null;
      if (board.rewards.length > 0 && !(await this.store.payoutFinished(key))) {
        this.unpaid.set(id, this.now() + PERIOD_CACHE_MS);
        return null;
      }
      this.unpaid.delete(id);
      this.until.set(id, (until = ended + this.retentionMs));
    }
    return until - this.now();
  }

  /**
   * Gives an ended period whose rewards are paid its expiry in the index, once per process. A
   * failure (Redis away) is logged and left for the next call (the next tick).
   */
  async retire(key: PeriodKey): Promise<void> {
    const id = idOf(key);
    if (!this.index || this.retired.has(id)) return;
    try {
      const left = await this.remainingMs(key);
      if (left === null) return;
      await this.index.expire(key, left);
      this.retired.add(id);
    } catch (err) {
      this.logger.warn({ err, app: key.app, board: key.board, seq: key.seq }, "could not give an ended period's rank index its expiry; tried again later");
    }
  }

  /** When the period ended (the next one's start); null while it is the current one. */
  private async endedAt(board: BoardDefinition, key: PeriodKey): Promise<number | null> {
    const current = await this.periods.current(key.app, board);
    if (!current || key.seq >= current.seq) return null;
    const next = key.seq + 1 === current.seq ? current : await this.store.period({ ...key, seq: key.seq + 1 });
    return next ? next.startsAt : null;
  }
}

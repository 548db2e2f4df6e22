/**
 * Leaderboards and tournaments of every app: scores from the game's trusted code (rooms) and, where
 * a board allows, from clients; ranked reads; resets and season rewards once across processes;
 * operators' actions. Knows nothing of HTTP or rooms: both edges call it with the app explicitly.
 */
import type { BoardDefinition, BoardsByApp } from "../../config/settings/leaderboards";
import { AppError } from "../../core/errors";
import { IsoMemo, isoUtc } from "../../core/iso-time";
import { NO_ANALYTICS, type AnalyticsRecorder } from "../../core/ports/analytics-store";
import type { Cache } from "../../core/ports/cache";
import type { LeaderboardRecord, LeaderboardStore, Period, PeriodKey } from "../../core/ports/leaderboard-store";
import type { RankIndex } from "../../core/ports/rank-index";
import type { RewardGranter } from "../../core/ports/reward-grants";
import type { UserStore } from "../../core/ports/user-store";
import { USER_STATUS_ACTIVE } from "../../core/user";
import { SERVER_EVENTS } from "../analytics/event-names";
import { BoardPeriods } from "./board-periods";
import { DEFAULT_PERIOD_RETENTION_MS, PeriodRetention } from "./period-retention";
import { RankedReads, type PageCursor } from "./ranked-reads";
import { SeasonPayouts, type PayoutLogger, type PayoutNotice } from "./season-payouts";

export interface RankedRecord {
  rank: number;
  userId: string;
  name: string;
  score: number;
  subscore: number;
  metadata: Record<string, unknown> | null;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

export interface PeriodView {
  seq: number;
  startsAt: string;
  endsAt: string | null;
}

export type PeriodChoice = "current" | "previous";

export interface LeaderboardDeps {
  boards: BoardsByApp;
  store: LeaderboardStore;
  users: Pick<UserStore, "findById">;
  cache: Cache;
  index?: RankIndex;
  granter?: RewardGranter;
  logger: PayoutLogger;
  now?: () => number;
  afterGrant?: (key: PeriodKey, rank: number) => Promise<void>;
  payoutLeaseMs?: number;
  /** Tells each paid player of a season reward (mail); see SeasonPayouts. */
  notifyReward?: (notice: PayoutNotice) => Promise<void>;
  /** How long the rank index keeps an ended, paid period (period-retention.ts); 7 days by default. */
  periodRetentionMs?: number;
}

export interface SubmitOptions {
  subscore?: number;
  metadata?: Record<string, unknown> | null;
  /**
   * Applies `best` whatever the board's operator: a value that may be submitted again (an import
   * run twice) then changes nothing the second time, even on an `increment` board.
   */
  keepBest?: boolean;
}

export class LeaderboardService {
  readonly periods: BoardPeriods;
  readonly payouts: SeasonPayouts;
  readonly reads: RankedReads;
  readonly retention: PeriodRetention;
  private readonly now: () => number;
  private ticker?: NodeJS.Timeout;
  private analytics: AnalyticsRecorder = NO_ANALYTICS;

  constructor(private readonly deps: LeaderboardDeps) {
    this.now = deps.now ?? Date.now;
    this.periods = new BoardPeriods(deps.store, this.now);
    this.payouts = new SeasonPayouts(deps.store, deps.cache, deps.granter, deps.logger, this.now, deps.afterGrant, deps.payoutLeaseMs, deps.notifyReward);
    const boardOf = (app: string, id: string) => this.boards(app).find((b) => b.id === id);
    this.retention = new PeriodRetention(deps.store, this.periods, deps.index, boardOf, deps.periodRetentionMs ?? DEFAULT_PERIOD_RETENTION_MS, this.now, deps.logger);
    this.reads = new RankedReads(deps.store, deps.index, deps.logger, (key) => this.retention.remainingMs(key));
  }

  /** Where accepted submissions are counted (docs/analytics.md): never the score, never a wait. */
  reportTo(recorder: AnalyticsRecorder): void {
    this.analytics = recorder;
  }

  boards(app: string): readonly BoardDefinition[] {
    return this.deps.boards[app] ?? [];
  }

  board(app: string, boardId: string): BoardDefinition {
    const board = this.boards(app).find((b) => b.id === boardId);
    if (!board) throw new AppError("board_not_found", { data: { boardId } });
    return board;
  }

  /**
   * Submits a score under the board's operator and answers the player's record and rank after it.
   * Trusted code (rooms) calls this directly; the HTTP route checks `clientSubmit` and the rate first.
   */
  async submit(app: string, userId: string, boardId: string, score: number, options: SubmitOptions = {}): Promise<RankedRecord> {
    const board = this.board(app, boardId);
    const subscore = options.subscore ?? 0;
    for (const [field, value] of [["score", score], ["subscore", subscore]] as const) {
      // ±10^15: exact in a double, in Redis's scores and after many increments.
      if (!Number.isInteger(value) || Math.abs(value) > 1e15) {
        throw new AppError("invalid_request", { message: `${field}: must be an integer of at most ±10^15`, data: { fields: [{ field, message: "must be an integer of at most ±10^15" }] } });
      }
    }
    if ((board.minScore !== undefined && score < board.minScore) || (board.maxScore !== undefined && score > board.maxScore)) {
      throw new AppError("score_out_of_bounds", { data: { min: board.minScore ?? null, max: board.maxScore ?? null } });
    }
    if (await this.deps.store.isBanned(app, boardId, userId)) throw new AppError("banned_from_board");
    const period = await this.periods.current(app, board);
    if (!period || period.closed) throw new AppError("tournament_not_active");
    const key = { app, board: boardId, seq: period.seq };
    await this.admit(board, key, userId);
    const name = await this.nameOf(userId);
    const at = this.now();
    const { record, changed } = await this.deps.store.submit(key, board.order, options.keepBest ? "best" : board.operator, { userId, name, score, subscore, metadata: options.metadata ?? null, at });
    this.analytics.record({ name: SERVER_EVENTS.leaderboardSubmit, app, userId, props: { board: boardId, improved: changed } });
    const rank = changed ? await this.reads.written(key, board.order, record) : null;
    if (rank !== null) return view(rank, record);
    const [ranked] = await this.reads.ranksOf(key, board.order, [userId]);
    return view(ranked?.rank ?? (await this.deps.store.countAhead(key, board.order, record)) + 1, record);
  }

  /** Joins the current period of a tournament (idempotent). */
  async join(app: string, userId: string, boardId: string): Promise<{ joined: true; period: PeriodView }> {
    const board = this.board(app, boardId);
    if (!board.tournament) throw new AppError("invalid_request", { message: "This leaderboard is not a tournament: nothing to join" });
    if (await this.deps.store.isBanned(app, boardId, userId)) throw new AppError("banned_from_board");
    const period = await this.periods.current(app, board);
    if (!period || period.closed) throw new AppError("tournament_not_active");
    const outcome = await this.deps.store.join({ app, board: boardId, seq: period.seq }, userId, board.tournament.maxSize ?? null, this.now());
    if (outcome === "full") throw new AppError("tournament_full", { data: { maxSize: board.tournament.maxSize } });
    return { joined: true, period: periodView(period) };
  }

  async top(app: string, boardId: string, query: { limit: number; cursor?: PageCursor; period?: PeriodChoice }): Promise<{ records: RankedRecord[]; next: PageCursor | null; period: PeriodView | null }> {
    const { board, key, period } = await this.readKey(app, boardId, query.period);
    if (!key) return { records: [], next: null, period: null };
    const page = await this.reads.page(key, board.order, query.limit, query.cursor);
    const last = page[page.length - 1];
    const next = page.length === query.limit && last ? { offset: last.rank, score: last.record.score, subscore: last.record.subscore, reachedAt: last.record.reachedAt, userId: last.record.userId } : null;
    return { records: page.map((r) => view(r.rank, r.record, pageDate)), next, period };
  }

  async aroundMe(app: string, userId: string, boardId: string, query: { limit: number; period?: PeriodChoice }): Promise<{ records: RankedRecord[]; period: PeriodView | null }> {
    const { board, key, period } = await this.readKey(app, boardId, query.period);
    const around = key ? await this.reads.around(key, board.order, userId, query.limit) : null;
    if (!around) throw new AppError("no_record");
    return { records: around.map((r) => view(r.rank, r.record)), period };
  }

  async me(app: string, userId: string, boardId: string, query: { period?: PeriodChoice } = {}): Promise<RankedRecord & { period: PeriodView | null }> {
    const { board, key, period } = await this.readKey(app, boardId, query.period);
    const [mine] = key ? await this.reads.ranksOf(key, board.order, [userId]) : [];
    if (!mine) throw new AppError("no_record");
    return { ...view(mine.rank, mine.record), period };
  }

  async records(app: string, boardId: string, userIds: readonly string[], query: { period?: PeriodChoice } = {}): Promise<{ records: RankedRecord[]; period: PeriodView | null }> {
    const { board, key, period } = await this.readKey(app, boardId, query.period);
    const found = key ? await this.reads.ranksOf(key, board.order, [...new Set(userIds)]) : [];
    return { records: found.sort((a, b) => a.rank - b.rank).map((r) => view(r.rank, r.record)), period };
  }

  /** Makes good missed index writes, rolls over ended periods and pays their rewards; each process's ticker runs it. */
  async tick(): Promise<void> {
    await this.reads.catchUp();
    for (const [app, boards] of Object.entries(this.deps.boards)) {
      for (const board of boards) {
        if (!board.reset && !board.tournament && board.rewards.length === 0) continue;
        try {
          await this.settle(app, board);
        } catch (err) {
          this.deps.logger.warn({ err, app, board: board.id }, "leaderboard settle failed; retried on the next tick");
        }
      }
    }
  }

  /** Rolls the board over if due and pays the periods before the current one that are not paid. */
  async settle(app: string, board: BoardDefinition): Promise<void> {
    const current = await this.periods.current(app, board);
    if (!current) return;
    // The two periods before the current one: a restart after a long outage may find both unpaid.
    for (const seq of [current.seq - 2, current.seq - 1]) {
      if (seq < 1) continue;
      const key = { app, board: board.id, seq };
      if ((await this.payouts.settle(board, key)) !== "busy") await this.retention.retire(key);
    }
  }

  start(intervalMs: number): void {
    const run = () => {
      this.ticker = setTimeout(() => void this.tick().finally(run), intervalMs);
      this.ticker.unref();
    };
    void this.tick().finally(run);
  }

  stop(): void {
    if (this.ticker) clearTimeout(this.ticker);
    this.ticker = undefined;
  }

  // Operators' actions (the admin CLI audits each).

  async reset(app: string, boardId: string, by: string): Promise<{ period: PeriodView; started: boolean }> {
    const board = this.board(app, boardId);
    const { period, started } = await this.periods.reset(app, board, by);
    // A board that neither resets, ends nor pays is not ticked: its ended period is retired here.
    if (started && board.rewards.length === 0) await this.retention.retire({ app, board: boardId, seq: period.seq - 1 });
    return { period: periodView(period), started };
  }

  /** Removes every record of the player, on every board and period of every app (erase). */
  async eraseUser(userId: string): Promise<void> {
    for (const app of Object.keys(this.deps.boards)) {
      for (const { board, seq } of await this.deps.store.recordsOf(app, userId)) {
        const key = { app, board, seq };
        await this.deps.store.remove(key, userId);
        await this.reads.removed(key, userId);
      }
    }
  }

  async removeRecord(app: string, boardId: string, userId: string, period: PeriodChoice = "current"): Promise<boolean> {
    const { key } = await this.readKey(app, boardId, period);
    if (!key) return false;
    const removed = await this.deps.store.remove(key, userId);
    await this.reads.removed(key, userId);
    return removed;
  }

  /** Bans the player from the board and removes their current record. */
  async ban(app: string, boardId: string, userId: string, by: string): Promise<{ removed: boolean }> {
    this.board(app, boardId);
    await this.deps.store.ban(app, boardId, userId, this.now(), by);
    return { removed: await this.removeRecord(app, boardId, userId) };
  }

  async unban(app: string, boardId: string, userId: string): Promise<void> {
    this.board(app, boardId);
    await this.deps.store.unban(app, boardId, userId);
  }

  /** Every record the player has on the app's boards (admin, export). */
  async recordsOf(app: string, userId: string): Promise<Array<{ board: string; period: number; score: number; subscore: number; name: string; updatedAt: string; metadata: Record<string, unknown> | null }>> {
    const rows = await this.deps.store.recordsOf(app, userId);
    return rows.map(({ board, seq, record }) => ({ board, period: seq, score: record.score, subscore: record.subscore, name: record.name, updatedAt: new Date(record.updatedAt).toISOString(), metadata: record.metadata }));
  }

  async describe(app: string): Promise<Array<BoardDefinition & { period: PeriodView | null; records: number }>> {
    return Promise.all(
      this.boards(app).map(async (board) => {
        const period = await this.periods.current(app, board, true);
        const records = period ? await this.deps.store.count({ app, board: board.id, seq: period.seq }) : 0;
        return { ...board, period: period ? periodView(period) : null, records };
      }),
    );
  }

  private async admit(board: BoardDefinition, key: PeriodKey, userId: string): Promise<void> {
    const tournament = board.tournament;
    if (!tournament) return;
    if (tournament.joinRequired) {
      if (!(await this.deps.store.isMember(key, userId))) throw new AppError("tournament_join_required");
    } else if (tournament.maxSize !== undefined) {
      if ((await this.deps.store.join(key, userId, tournament.maxSize, this.now())) === "full") throw new AppError("tournament_full", { data: { maxSize: tournament.maxSize } });
    }
  }

  /** The period a read names: the current one (a finished tournament: its last), or the one before. */
  private async readKey(app: string, boardId: string, choice: PeriodChoice = "current"): Promise<{ board: BoardDefinition; key: PeriodKey | null; period: PeriodView | null }> {
    const board = this.board(app, boardId);
    const current = await this.periods.current(app, board);
    if (!current) return { board, key: null, period: null };
    const seq = current.seq - (current.closed ? 1 : 0) - (choice === "previous" ? 1 : 0);
    if (seq < 1) return { board, key: null, period: null };
    const period = seq === current.seq ? current : await this.deps.store.period({ app, board: boardId, seq });
    return { board, key: { app, board: boardId, seq }, period: period ? periodView(period) : null };
  }

  private async nameOf(userId: string): Promise<string> {
    const user = await this.deps.users.findById(userId);
    if (!user || user.status !== USER_STATUS_ACTIVE) throw new AppError("user_disabled");
    return user.nickname || user.username;
  }
}

/**
 * The dates of the top pages, which every reader sees again. Only theirs: a player's neighbours are
 * other dates at each read, and kept here they outlived a young-generation collection each, were
 * promoted, and made every scavenge 7–18 ms (around-me of random players at 6,800/s).
 */
const pageDates = new IsoMemo();
const pageDate = (ms: number) => pageDates.of(ms);

function view(rank: number, r: LeaderboardRecord, date: (ms: number) => string = isoUtc): RankedRecord {
  return { rank, userId: r.userId, name: r.name, score: r.score, subscore: r.subscore, metadata: r.metadata, updatedAt: date(r.updatedAt) };
}

function periodView(p: Period): PeriodView {
  return { seq: p.seq, startsAt: new Date(p.startsAt).toISOString(), endsAt: p.endsAt === null ? null : new Date(p.endsAt).toISOString() };
}

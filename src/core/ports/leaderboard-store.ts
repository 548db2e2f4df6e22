/**
 * What leaderboards keep: records per board period, the periods themselves, and the claims that
 * make a reset, a payout and a tournament seat happen once. The store is the record of truth; a
 * rank index (Redis) only serves ranks faster and is rebuilt from here when lost.
 *
 * Every decision that must happen once is an insert-only claim (a period row, a payout plan, a
 * payout's end, a seat), so the same design holds on FerretDB, whose updates are not atomic.
 */

export type SortOrder = "desc" | "asc";
export type ScoreOperator = "best" | "latest" | "increment";

/** Which board period of which app's board: `seq` counts the board's periods from 1. */
export interface PeriodKey {
  app: string;
  board: string;
  seq: number;
}

export interface LeaderboardRecord {
  userId: string;
  score: number;
  subscore: number;
  /** The player's display name when the record was last written (nickname, else username). */
  name: string;
  metadata: Record<string, unknown> | null;
  /** ms since epoch: when the current score was reached; earlier wins a tie. */
  reachedAt: number;
  /** ms since epoch of the last write that changed the record. */
  updatedAt: number;
  /** Grows by one on every change; the rank index applies a record only over an older version. */
  version: number;
}

export interface Submission {
  userId: string;
  name: string;
  score: number;
  subscore: number;
  metadata: Record<string, unknown> | null;
  at: number;
}

export interface SubmitResult {
  record: LeaderboardRecord;
  /** False when the operator kept the old record (a `best` that was not better). */
  changed: boolean;
}

export interface Period {
  seq: number;
  /** ms since epoch. */
  startsAt: number;
  /** ms since epoch; null when the board never resets on its own. */
  endsAt: number | null;
  /** A closed period takes no scores: a tournament after its end. */
  closed: boolean;
  reason: "start" | "schedule" | "manual";
  by: string | null;
}

/** One place of a period's final ranking that earns a reward. */
export interface PayoutWinner {
  rank: number;
  userId: string;
  score: number;
}

export interface PayoutPlan {
  winners: PayoutWinner[];
  createdAt: number;
}

/** A position in a ranking, exclusive: the next page starts after this record. */
export interface RankCursor {
  score: number;
  subscore: number;
  reachedAt: number;
  userId: string;
}

export interface LeaderboardStore {
  migrate(): Promise<void>;
  /** Applies the operator atomically per (period, user); `best` keeps the better of old and new by `order`. */
  submit(key: PeriodKey, order: SortOrder, operator: ScoreOperator, submission: Submission): Promise<SubmitResult>;
  /** Records in rank order, after `after` when given. */
  top(key: PeriodKey, order: SortOrder, limit: number, after?: RankCursor): Promise<LeaderboardRecord[]>;
  /** How many records rank ahead of this one (its rank is that plus one). */
  countAhead(key: PeriodKey, order: SortOrder, record: LeaderboardRecord): Promise<number>;
  /** Records ranking just before `record`, nearest first. */
  before(key: PeriodKey, order: SortOrder, record: LeaderboardRecord, limit: number): Promise<LeaderboardRecord[]>;
  find(key: PeriodKey, userIds: readonly string[]): Promise<LeaderboardRecord[]>;
  count(key: PeriodKey): Promise<number>;
  remove(key: PeriodKey, userId: string): Promise<boolean>;
  /** Every record of the period, in no order, in pages: for rebuilding the rank index. */
  scan(key: PeriodKey, afterUserId: string | null, limit: number): Promise<LeaderboardRecord[]>;
  /** A user's records on every board of an app, newest period first (admin, export). */
  recordsOf(app: string, userId: string): Promise<Array<{ board: string; seq: number; record: LeaderboardRecord }>>;

  /** The newest period of the board, or null before its first. */
  currentPeriod(app: string, board: string): Promise<Period | null>;
  period(key: PeriodKey): Promise<Period | null>;
  /** Inserts period `period.seq`; false when another caller inserted that seq first (nothing written). */
  claimPeriod(app: string, board: string, period: Period): Promise<boolean>;

  /** Inserts the period's payout plan once; returns whichever plan was stored first. */
  claimPayoutPlan(key: PeriodKey, plan: PayoutPlan): Promise<PayoutPlan>;
  payoutPlan(key: PeriodKey): Promise<PayoutPlan | null>;
  /** Marks the period's payout finished (idempotent). */
  finishPayout(key: PeriodKey, at: number): Promise<void>;
  payoutFinished(key: PeriodKey): Promise<boolean>;

  /** Takes a seat in a tournament period: "joined" (now or before) or "full". */
  join(key: PeriodKey, userId: string, maxSize: number | null, at: number): Promise<"joined" | "full">;
  isMember(key: PeriodKey, userId: string): Promise<boolean>;
  memberCount(key: PeriodKey): Promise<number>;

  ban(app: string, board: string, userId: string, at: number, by: string | null): Promise<void>;
  unban(app: string, board: string, userId: string): Promise<void>;
  isBanned(app: string, board: string, userId: string): Promise<boolean>;

  close(): Promise<void>;
}

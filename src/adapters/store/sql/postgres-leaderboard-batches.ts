/**
 * PostgreSQL: a board's hot statements batched per event-loop turn (turn-batch.ts), as the user
 * store's are (postgres-user-batches.ts). The ban checks of a turn's submissions are one lookup,
 * and the turn's submissions one upsert per operator: a statement's loopback write and backend
 * wake-up cost this process more CPU than the statement's own work (a profile of 50 concurrent new
 * bests: 31% of the busy time in `writev`). A batch of one runs the single-row statement, so a
 * quiet server sends exactly what it sent before.
 *
 * Nothing is weakened: each upsert applies its operator row by row in its conflict branch, as the
 * single statement does, and is committed before its callers hear of it. Submissions of one player
 * to one period in the same turn go in successive statements, in the order they were made. A
 * statement that PostgreSQL refused for its data (an increment past the column's range) was rolled
 * back whole: each submission then runs alone and gets its own answer. Any other failure (a lost
 * connection: the upsert may have been applied) fails the batch's callers, as it failed the one
 * caller of a single statement; none is sent again behind their backs.
 */
import { sql, type Kysely } from "kysely";
import type { LeaderboardRecord, PeriodKey, ScoreOperator, SortOrder, Submission, SubmitResult } from "../../../core/ports/leaderboard-store";
import { precompile } from "./precompiled-query";
import { found, settle, TurnBatch, type Outcome } from "./turn-batch";

type Row = Record<string, unknown>;

export interface BanCheck {
  app: string;
  board: string;
  userId: string;
}

export interface SubmissionCall {
  key: PeriodKey;
  order: SortOrder;
  operator: ScoreOperator;
  submission: Submission;
}

/** The store's single-row statements, and how it turns a row into a record. */
export interface SingleLeaderboardStatements {
  isBanned(app: string, board: string, userId: string): Promise<boolean>;
  submit(key: PeriodKey, order: SortOrder, operator: ScoreOperator, submission: Submission): Promise<SubmitResult>;
  toRecord(row: Row): LeaderboardRecord;
}

const COLUMNS = ["apps", "boards", "seqs", "users", "scores", "subscores", "sort_scores", "sort_subscores", "ats", "names", "metadatas"] as const;
type UpsertValues = Record<(typeof COLUMNS)[number], Array<string | number | null>>;

const idOf = (key: PeriodKey, userId: string) => `${key.app}\u0000${key.board}\u0000${key.seq}\u0000${userId}`;

export class PostgresLeaderboardBatches {
  readonly bans: TurnBatch<BanCheck, boolean>;
  readonly submissions: TurnBatch<SubmissionCall, SubmitResult>;

  constructor(db: Kysely<any>, single: SingleLeaderboardStatements) {
    const banLookup = precompile(["apps", "boards", "users"], (v: { apps: string[]; boards: string[]; users: string[] }) =>
      sql<{ ord: string }>`select given.ord
        from unnest(cast(${v.apps} as text[]), cast(${v.boards} as text[]), cast(${v.users} as text[])) with ordinality as given(app, board, user_id, ord)
        join leaderboard_bans b on b.app = given.app and b.board = given.board and b.user_id = given.user_id`.compile(db),
    );
    const upserts = {
      best: upsert(db, sql`excluded.score`, sql`excluded.sort_score`, sql`where (excluded.sort_score, excluded.sort_subscore) < (leaderboard_records.sort_score, leaderboard_records.sort_subscore)`),
      latest: upsert(db, sql`excluded.score`, sql`excluded.sort_score`, sql``),
      increment: upsert(db, sql`leaderboard_records.score + excluded.score`, sql`leaderboard_records.sort_score + excluded.sort_score`, sql``),
    };
    const lookup = precompile(["apps", "boards", "seqs", "users"], (v: { apps: string[]; boards: string[]; seqs: number[]; users: string[] }) =>
      sql<Row>`select r.* from unnest(cast(${v.apps} as text[]), cast(${v.boards} as text[]), cast(${v.seqs} as integer[]), cast(${v.users} as text[])) as given(app, board, seq, user_id)
        join leaderboard_records r on r.app = given.app and r.board = given.board and r.seq = given.seq and r.user_id = given.user_id`.compile(db),
    );

    this.bans = new TurnBatch(async (checks) => {
      if (checks.length === 1) return [found(await single.isBanned(checks[0].app, checks[0].board, checks[0].userId))];
      const { rows } = await db.executeQuery(banLookup.with({ apps: checks.map((c) => c.app), boards: checks.map((c) => c.board), users: checks.map((c) => c.userId) }));
      const banned = checks.map(() => false);
      for (const row of rows) banned[Number(row.ord) - 1] = true;
      return banned.map(found);
    });

    /** One operator's calls, each of a different player and period: one upsert, one lookup of those it left as they were. */
    const runGroup = async (calls: SubmissionCall[]): Promise<Outcome<SubmitResult>[]> => {
      if (calls.length === 1) return [await settle(single.submit(calls[0].key, calls[0].order, calls[0].operator, calls[0].submission))];
      let rows: Row[];
      try {
        ({ rows } = await db.executeQuery(upserts[calls[0].operator].with(upsertValues(calls))));
      } catch (err) {
        if (refusedForItsData(err)) return Promise.all(calls.map((c) => settle(single.submit(c.key, c.order, c.operator, c.submission))));
        throw err;
      }
      const written = new Map(rows.map((row) => [idOf({ app: String(row.app), board: String(row.board), seq: Number(row.seq) }, String(row.user_id)), row]));
      const kept = calls.filter((c) => !written.has(idOf(c.key, c.submission.userId)));
      const held = new Map<string, Row>();
      if (kept.length > 0) {
        const { rows: found } = await db.executeQuery(
          lookup.with({ apps: kept.map((c) => c.key.app), boards: kept.map((c) => c.key.board), seqs: kept.map((c) => c.key.seq), users: kept.map((c) => c.submission.userId) }),
        );
        for (const row of found) held.set(idOf({ app: String(row.app), board: String(row.board), seq: Number(row.seq) }, String(row.user_id)), row);
      }
      return calls.map((c) => {
        const id = idOf(c.key, c.submission.userId);
        const row = written.get(id) ?? held.get(id);
        if (!row) return { ok: false, error: new Error(`the batched submission found no record of ${c.submission.userId}`) };
        return found({ record: single.toRecord(row), changed: written.has(id) });
      });
    };

    this.submissions = new TurnBatch(async (calls) => {
      const outcomes: Outcome<SubmitResult>[] = new Array(calls.length);
      for (const round of rounds(calls)) {
        const groups = new Map<ScoreOperator, number[]>();
        for (const i of round) groups.set(calls[i].operator, [...(groups.get(calls[i].operator) ?? []), i]);
        await Promise.all(
          [...groups.values()].map(async (members) => {
            const answers = await runGroup(members.map((i) => calls[i])).catch((error: unknown) => members.map((): Outcome<SubmitResult> => ({ ok: false, error })));
            members.forEach((i, n) => (outcomes[i] = answers[n]));
          }),
        );
      }
      return outcomes;
    });
  }
}

/** The upsert of many submissions under one operator: the single statement's, over unnest. */
function upsert(db: Kysely<any>, score: ReturnType<typeof sql>, sortScore: ReturnType<typeof sql>, when: ReturnType<typeof sql>) {
  return precompile(COLUMNS, (v: UpsertValues) =>
    sql<Row>`insert into leaderboard_records (app, board, seq, user_id, score, subscore, sort_score, sort_subscore, reached_at, updated_at, version, name, metadata)
      select app, board, seq, user_id, score, subscore, sort_score, sort_subscore, at, at, 1, name, metadata
      from unnest(cast(${v.apps} as text[]), cast(${v.boards} as text[]), cast(${v.seqs} as integer[]), cast(${v.users} as text[]),
        cast(${v.scores} as bigint[]), cast(${v.subscores} as bigint[]), cast(${v.sort_scores} as bigint[]), cast(${v.sort_subscores} as bigint[]),
        cast(${v.ats} as bigint[]), cast(${v.names} as text[]), cast(${v.metadatas} as text[]))
        as given(app, board, seq, user_id, score, subscore, sort_score, sort_subscore, at, name, metadata)
      on conflict (app, board, seq, user_id) do update set
        score = ${score}, sort_score = ${sortScore}, subscore = excluded.subscore, sort_subscore = excluded.sort_subscore,
        reached_at = excluded.reached_at, updated_at = excluded.updated_at, version = leaderboard_records.version + 1,
        name = excluded.name, metadata = excluded.metadata
      ${when}
      returning *`.compile(db),
  );
}

function upsertValues(calls: SubmissionCall[]): UpsertValues {
  const sign = (c: SubmissionCall) => (c.order === "desc" ? -1 : 1);
  return {
    apps: calls.map((c) => c.key.app),
    boards: calls.map((c) => c.key.board),
    seqs: calls.map((c) => c.key.seq),
    users: calls.map((c) => c.submission.userId),
    scores: calls.map((c) => c.submission.score),
    subscores: calls.map((c) => c.submission.subscore),
    sort_scores: calls.map((c) => sign(c) * c.submission.score),
    sort_subscores: calls.map((c) => sign(c) * c.submission.subscore),
    ats: calls.map((c) => c.submission.at),
    names: calls.map((c) => c.submission.name),
    metadatas: calls.map((c) => (c.submission.metadata === null ? null : JSON.stringify(c.submission.metadata))),
  };
}

/** The calls in rounds where each player's record of a period appears once, their order kept. */
function rounds(calls: SubmissionCall[]): number[][] {
  const seen = new Map<string, number>();
  const out: number[][] = [];
  calls.forEach((c, i) => {
    const id = idOf(c.key, c.submission.userId);
    const round = seen.get(id) ?? 0;
    seen.set(id, round + 1);
    (out[round] ??= []).push(i);
  });
  return out;
}

/**
 * PostgreSQL refused the statement for its data (class 22, e.g. a bigint out of range) or a
 * constraint (class 23): it ran in its own transaction, so nothing of it was written.
 */
function refusedForItsData(err: unknown): boolean {
  const { code, severity } = (err ?? {}) as { code?: unknown; severity?: unknown };
  return severity === "ERROR" && typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code);
}

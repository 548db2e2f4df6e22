/**
 * The LeaderboardStore over Kysely, for SQLite and PostgreSQL. A submission is one upsert whose
 * conflict branch applies the operator (`best` only when better, `increment` adds), so concurrent
 * submissions of one player serialise on the row on both databases. Every "once" is an insert
 * that the primary key decides (ON CONFLICT DO NOTHING).
 */
import { sql, type Kysely } from "kysely";
import type {
  LeaderboardRecord,
  LeaderboardStore,
  PayoutPlan,
  Period,
  PeriodKey,
  RankCursor,
  ScoreOperator,
  SortOrder,
  Submission,
  SubmitResult,
} from "../../../core/ports/leaderboard-store";
import { LEADERBOARD_MIGRATIONS } from "./leaderboard-schema";
import { migrateFeatureToLatest, type SqlDialect } from "./migrations";
import { PostgresLeaderboardBatches } from "./postgres-leaderboard-batches";

type Row = Record<string, unknown>;
const JOIN_ATTEMPTS = 50;

export class KyselyLeaderboardStore implements LeaderboardStore {
  /** PostgreSQL: ban checks and submissions of one event-loop turn in one statement each. */
  private readonly batches?: PostgresLeaderboardBatches;

  constructor(
    private readonly db: Kysely<any>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    if (dialect === "postgres") {
      this.batches = new PostgresLeaderboardBatches(db, {
        isBanned: (app, board, userId) => this.isBannedAlone(app, board, userId),
        submit: (key, order, operator, submission) => this.submitAlone(key, order, operator, submission),
        toRecord,
      });
    }
  }

  migrate(): Promise<void> {
    return migrateFeatureToLatest(this.db, this.dialect, "leaderboard_migration", LEADERBOARD_MIGRATIONS);
  }

  submit(key: PeriodKey, order: SortOrder, operator: ScoreOperator, submission: Submission): Promise<SubmitResult> {
    if (this.batches) return this.batches.submissions.add({ key, order, operator, submission });
    return this.submitAlone(key, order, operator, submission);
  }

  private async submitAlone(key: PeriodKey, order: SortOrder, operator: ScoreOperator, s: Submission): Promise<SubmitResult> {
    const sign = order === "desc" ? -1 : 1;
    const metadata = s.metadata === null ? null : JSON.stringify(s.metadata);
    // Which conflicting rows the new values replace: `best` only a worse one; the others always.
    const when =
      operator === "best"
        ? sql`where (excluded.sort_score, excluded.sort_subscore) < (leaderboard_records.sort_score, leaderboard_records.sort_subscore)`
        : sql``;
    const score = operator === "increment" ? sql`leaderboard_records.score + excluded.score` : sql`excluded.score`;
    const sortScore = operator === "increment" ? sql`leaderboard_records.sort_score + excluded.sort_score` : sql`excluded.sort_score`;
    const { rows } = await sql<Row>`
      insert into leaderboard_records (app, board, seq, user_id, score, subscore, sort_score, sort_subscore, reached_at, updated_at, version, name, metadata)
      values (${key.app}, ${key.board}, ${key.seq}, ${s.userId}, ${s.score}, ${s.subscore}, ${sign * s.score}, ${sign * s.subscore}, ${s.at}, ${s.at}, 1, ${s.name}, ${metadata})
      on conflict (app, board, seq, user_id) do update set
        score = ${score}, sort_score = ${sortScore}, subscore = excluded.subscore, sort_subscore = excluded.sort_subscore,
        reached_at = excluded.reached_at, updated_at = excluded.updated_at, version = leaderboard_records.version + 1,
        name = excluded.name, metadata = excluded.metadata
      ${when}
      returning *`.execute(this.db);
    if (rows[0]) return { record: toRecord(rows[0]), changed: true };
    const [kept] = await this.find(key, [s.userId]);
    return { record: kept, changed: false };
  }

  async top(key: PeriodKey, order: SortOrder, limit: number, after?: RankCursor): Promise<LeaderboardRecord[]> {
    const sign = order === "desc" ? -1 : 1;
    const past = after
      ? sql`and (sort_score, sort_subscore, reached_at, user_id) > (${sign * after.score}, ${sign * after.subscore}, ${after.reachedAt}, ${after.userId})`
      : sql``;
    const { rows } = await sql<Row>`
      select * from leaderboard_records where app = ${key.app} and board = ${key.board} and seq = ${key.seq} ${past}
      order by sort_score, sort_subscore, reached_at, user_id limit ${limit}`.execute(this.db);
    return rows.map(toRecord);
  }

  async countAhead(key: PeriodKey, order: SortOrder, r: LeaderboardRecord): Promise<number> {
    const sign = order === "desc" ? -1 : 1;
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from leaderboard_records where app = ${key.app} and board = ${key.board} and seq = ${key.seq}
      and (sort_score, sort_subscore, reached_at, user_id) < (${sign * r.score}, ${sign * r.subscore}, ${r.reachedAt}, ${r.userId})`.execute(this.db);
    return Number(rows[0].n);
  }

  async before(key: PeriodKey, order: SortOrder, r: LeaderboardRecord, limit: number): Promise<LeaderboardRecord[]> {
    const sign = order === "desc" ? -1 : 1;
    const { rows } = await sql<Row>`
      select * from leaderboard_records where app = ${key.app} and board = ${key.board} and seq = ${key.seq}
      and (sort_score, sort_subscore, reached_at, user_id) < (${sign * r.score}, ${sign * r.subscore}, ${r.reachedAt}, ${r.userId})
      order by sort_score desc, sort_subscore desc, reached_at desc, user_id desc limit ${limit}`.execute(this.db);
    return rows.map(toRecord);
  }

  async find(key: PeriodKey, userIds: readonly string[]): Promise<LeaderboardRecord[]> {
    if (userIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("leaderboard_records")
      .selectAll()
      .where("app", "=", key.app)
      .where("board", "=", key.board)
      .where("seq", "=", key.seq)
      .where("user_id", "in", [...userIds])
      .execute();
    return rows.map(toRecord);
  }

  async count(key: PeriodKey): Promise<number> {
    const row = await this.periodRows("leaderboard_records", key).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async remove(key: PeriodKey, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("leaderboard_records")
      .where("app", "=", key.app)
      .where("board", "=", key.board)
      .where("seq", "=", key.seq)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async scan(key: PeriodKey, afterUserId: string | null, limit: number): Promise<LeaderboardRecord[]> {
    let query = this.periodRows("leaderboard_records", key).selectAll();
    if (afterUserId !== null) query = query.where("user_id", ">", afterUserId);
    return (await query.orderBy("user_id").limit(limit).execute()).map(toRecord);
  }

  async recordsOf(app: string, userId: string): Promise<Array<{ board: string; seq: number; record: LeaderboardRecord }>> {
    const rows = await this.db.selectFrom("leaderboard_records").selectAll().where("user_id", "=", userId).where("app", "=", app).orderBy("seq", "desc").execute();
    return rows.map((row: Row) => ({ board: String(row.board), seq: Number(row.seq), record: toRecord(row) }));
  }

  async currentPeriod(app: string, board: string): Promise<Period | null> {
    const row = await this.db.selectFrom("leaderboard_periods").selectAll().where("app", "=", app).where("board", "=", board).orderBy("seq", "desc").limit(1).executeTakeFirst();
    return row ? toPeriod(row) : null;
  }

  async period(key: PeriodKey): Promise<Period | null> {
    const row = await this.periodRows("leaderboard_periods", key).selectAll().executeTakeFirst();
    return row ? toPeriod(row) : null;
  }

  async claimPeriod(app: string, board: string, p: Period): Promise<boolean> {
    const row = await this.db
      .insertInto("leaderboard_periods")
      .values({ app, board, seq: p.seq, starts_at: p.startsAt, ends_at: p.endsAt, closed: p.closed ? 1 : 0, reason: p.reason, by: p.by })
      .onConflict((oc) => oc.doNothing())
      .returning("seq")
      .executeTakeFirst();
    return row !== undefined;
  }

  async claimPayoutPlan(key: PeriodKey, plan: PayoutPlan): Promise<PayoutPlan> {
    await this.db
      .insertInto("leaderboard_payouts")
      .values({ app: key.app, board: key.board, seq: key.seq, winners: JSON.stringify(plan.winners), created_at: plan.createdAt, finished_at: null })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return (await this.payoutPlan(key))!;
  }

  async payoutPlan(key: PeriodKey): Promise<PayoutPlan | null> {
    const row = await this.periodRows("leaderboard_payouts", key).selectAll().executeTakeFirst();
    return row ? { winners: JSON.parse(String(row.winners)), createdAt: Number(row.created_at) } : null;
  }

  async finishPayout(key: PeriodKey, at: number): Promise<void> {
    await this.db
      .updateTable("leaderboard_payouts")
      .set({ finished_at: at })
      .where("app", "=", key.app)
      .where("board", "=", key.board)
      .where("seq", "=", key.seq)
      .where("finished_at", "is", null)
      .execute();
  }

  async payoutFinished(key: PeriodKey): Promise<boolean> {
    const row = await this.periodRows("leaderboard_payouts", key).select("finished_at").executeTakeFirst();
    return row?.finished_at !== null && row?.finished_at !== undefined;
  }

  async join(key: PeriodKey, userId: string, maxSize: number | null, at: number): Promise<"joined" | "full"> {
    // A seat is a slot number unique in the period: concurrent joiners racing for one slot retry the next.
    for (let attempt = 0; attempt < JOIN_ATTEMPTS; attempt++) {
      if (await this.isMember(key, userId)) return "joined";
      const taken = await this.memberCount(key);
      if (maxSize !== null && taken >= maxSize) return "full";
      const row = await this.db
        .insertInto("leaderboard_members")
        .values({ app: key.app, board: key.board, seq: key.seq, user_id: userId, slot: taken + 1, joined_at: at })
        .onConflict((oc) => oc.doNothing())
        .returning("slot")
        .executeTakeFirst();
      if (row) return "joined";
    }
    throw new Error(`could not take a seat in ${key.board}#${key.seq} after ${JOIN_ATTEMPTS} attempts`);
  }

  async isMember(key: PeriodKey, userId: string): Promise<boolean> {
    return (await this.periodRows("leaderboard_members", key).select("slot").where("user_id", "=", userId).executeTakeFirst()) !== undefined;
  }

  async memberCount(key: PeriodKey): Promise<number> {
    const row = await this.periodRows("leaderboard_members", key).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async ban(app: string, board: string, userId: string, at: number, by: string | null): Promise<void> {
    await this.db.insertInto("leaderboard_bans").values({ app, board, user_id: userId, at, by }).onConflict((oc) => oc.doNothing()).execute();
  }

  async unban(app: string, board: string, userId: string): Promise<void> {
    await this.db.deleteFrom("leaderboard_bans").where("app", "=", app).where("board", "=", board).where("user_id", "=", userId).execute();
  }

  isBanned(app: string, board: string, userId: string): Promise<boolean> {
    if (this.batches) return this.batches.bans.add({ app, board, userId });
    return this.isBannedAlone(app, board, userId);
  }

  private async isBannedAlone(app: string, board: string, userId: string): Promise<boolean> {
    const row = await this.db.selectFrom("leaderboard_bans").select("at").where("app", "=", app).where("board", "=", board).where("user_id", "=", userId).executeTakeFirst();
    return row !== undefined;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private periodRows(table: string, key: PeriodKey) {
    return this.db.selectFrom(table).where("app", "=", key.app).where("board", "=", key.board).where("seq", "=", key.seq);
  }
}

function toRecord(row: Row): LeaderboardRecord {
  return {
    userId: String(row.user_id),
    score: Number(row.score),
    subscore: Number(row.subscore),
    name: String(row.name),
    metadata: row.metadata === null || row.metadata === undefined ? null : JSON.parse(String(row.metadata)),
    reachedAt: Number(row.reached_at),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
  };
}

function toPeriod(row: Row): Period {
  return {
    seq: Number(row.seq),
    startsAt: Number(row.starts_at),
    endsAt: row.ends_at === null || row.ends_at === undefined ? null : Number(row.ends_at),
    closed: Number(row.closed) === 1,
    reason: row.reason as Period["reason"],
    by: (row.by as string | null) ?? null,
  };
}

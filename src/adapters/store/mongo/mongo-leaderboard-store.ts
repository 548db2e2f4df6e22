/**
 * The LeaderboardStore on MongoDB, race-free on FerretDB 1.x too, whose updates are
 * read-modify-write (concurrent `$inc`s lose updates) and whose only race-free write is an insert
 * into `_id`. So every change of a record is decided by an insert-only version claim:
 *
 *   lb_records          the current record of (app, board, period, user); `_id` = its key
 *   lb_record_versions  `_id` = "<key>:<version>": the whole record at that version. A writer that
 *                       read version v inserts v+1; a duplicate means another writer took v+1 first,
 *                       so it rolls that claim forward into lb_records and tries again from there.
 *   lb_periods          `_id` = "<app>:<board>:<seq>": the period exists once
 *   lb_payouts / lb_payouts_done   a period's payout plan, and its end: inserted once
 *   lb_members / lb_seats          a tournament's members, and numbered seats up to its size
 *   lb_bans             `_id` = "<app>:<board>:<user>"
 */
import type { Collection, Connection } from "mongoose";
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
import { isDuplicateKey } from "./claims";

interface RecordDoc extends LeaderboardRecord {
  _id: string;
  app: string;
  board: string;
  seq: number;
  sortScore: number;
  sortSubscore: number;
}
interface PeriodDoc extends Period {
  _id: string;
  app: string;
  board: string;
}
interface ClaimDoc {
  _id: string;
  [field: string]: unknown;
}

const part = (s: string) => encodeURIComponent(s);
const periodId = (k: PeriodKey) => `${part(k.app)}:${part(k.board)}:${k.seq}`;
const recordId = (k: PeriodKey, userId: string) => `${periodId(k)}:${part(userId)}`;
const RANK_SORT = { sortScore: 1, sortSubscore: 1, reachedAt: 1, userId: 1 } as const;
const SUBMIT_ATTEMPTS = 500;

export class MongoLeaderboardStore implements LeaderboardStore {
  private readonly records: Collection<RecordDoc>;
  private readonly versions: Collection<RecordDoc>;
  private readonly periods: Collection<PeriodDoc>;
  private readonly payouts: Collection<ClaimDoc>;
  private readonly payoutsDone: Collection<ClaimDoc>;
  private readonly members: Collection<ClaimDoc>;
  private readonly seats: Collection<ClaimDoc>;
  private readonly bans: Collection<ClaimDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.records = connection.collection<RecordDoc>("lb_records");
    this.versions = connection.collection<RecordDoc>("lb_record_versions");
    this.periods = connection.collection<PeriodDoc>("lb_periods");
    this.payouts = connection.collection<ClaimDoc>("lb_payouts");
    this.payoutsDone = connection.collection<ClaimDoc>("lb_payouts_done");
    this.members = connection.collection<ClaimDoc>("lb_members");
    this.seats = connection.collection<ClaimDoc>("lb_seats");
    this.bans = connection.collection<ClaimDoc>("lb_bans");
  }

  async migrate(): Promise<void> {
    // Plain indexes only: uniqueness is always a claim's `_id`.
    await this.records.createIndex({ app: 1, board: 1, seq: 1, sortScore: 1, sortSubscore: 1, reachedAt: 1, userId: 1 });
    await this.records.createIndex({ userId: 1, app: 1 });
    await this.periods.createIndex({ app: 1, board: 1, seq: -1 });
    await this.seats.createIndex({ period: 1 });
  }

  async submit(key: PeriodKey, order: SortOrder, operator: ScoreOperator, s: Submission): Promise<SubmitResult> {
    const id = recordId(key, s.userId);
    const sign = order === "desc" ? -1 : 1;
    for (let attempt = 0; attempt < SUBMIT_ATTEMPTS; attempt++) {
      const current = await this.records.findOne({ _id: id });
      if (current && operator === "best" && !better(sign * s.score, sign * s.subscore, current)) {
        return { record: toRecord(current), changed: false };
      }
      const score = operator === "increment" && current ? current.score + s.score : s.score;
      const next: RecordDoc = {
        _id: id,
        app: key.app,
        board: key.board,
        seq: key.seq,
        userId: s.userId,
        score,
        subscore: s.subscore,
        sortScore: sign * score,
        sortSubscore: sign * s.subscore,
        name: s.name,
        metadata: s.metadata,
        reachedAt: s.at,
        updatedAt: s.at,
        version: (current?.version ?? 0) + 1,
      };
      try {
        await this.versions.insertOne({ ...next, _id: `${id}:${next.version}` });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another writer took this version: bring the record up to it, then decide again.
        const taken = await this.versions.findOne({ _id: `${id}:${next.version}` });
        if (taken) await this.write({ ...taken, _id: id });
        continue;
      }
      await this.write(next);
      return { record: toRecord(next), changed: true };
    }
    throw new Error(`record ${id} is contended beyond ${SUBMIT_ATTEMPTS} attempts`);
  }

  /**
   * Writes a claimed version, then rolls the record forward to the newest claim: FerretDB's conditioned
   * replace is not atomic, so a slower writer can put an older version back; the last writer leaves it right.
   */
  private async write(doc: RecordDoc): Promise<void> {
    await this.writeOnce(doc);
    for (;;) {
      const current = await this.records.findOne({ _id: doc._id });
      const next = current ? await this.versions.findOne({ _id: `${doc._id}:${current.version + 1}` }) : null;
      if (!next) return;
      await this.writeOnce({ ...next, _id: doc._id });
    }
  }

  private async writeOnce(doc: RecordDoc): Promise<void> {
    for (;;) {
      const current = await this.records.findOne({ _id: doc._id });
      if (current && current.version >= doc.version) return;
      try {
        if (!current) {
          await this.records.insertOne(doc);
          return;
        }
        const replaced = await this.records.replaceOne({ _id: doc._id, version: current.version }, doc);
        if (replaced.matchedCount > 0) return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  async top(key: PeriodKey, order: SortOrder, limit: number, after?: RankCursor): Promise<LeaderboardRecord[]> {
    const sign = order === "desc" ? -1 : 1;
    const filter = after ? { ...this.inPeriod(key), ...aheadOf(sign * after.score, sign * after.subscore, after.reachedAt, after.userId, "$gt") } : this.inPeriod(key);
    return (await this.records.find(filter).sort(RANK_SORT).limit(limit).toArray()).map(toRecord);
  }

  async countAhead(key: PeriodKey, order: SortOrder, r: LeaderboardRecord): Promise<number> {
    const sign = order === "desc" ? -1 : 1;
    return this.records.countDocuments({ ...this.inPeriod(key), ...aheadOf(sign * r.score, sign * r.subscore, r.reachedAt, r.userId, "$lt") });
  }

  async before(key: PeriodKey, order: SortOrder, r: LeaderboardRecord, limit: number): Promise<LeaderboardRecord[]> {
    const sign = order === "desc" ? -1 : 1;
    const docs = await this.records
      .find({ ...this.inPeriod(key), ...aheadOf(sign * r.score, sign * r.subscore, r.reachedAt, r.userId, "$lt") })
      .sort({ sortScore: -1, sortSubscore: -1, reachedAt: -1, userId: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toRecord);
  }

  async find(key: PeriodKey, userIds: readonly string[]): Promise<LeaderboardRecord[]> {
    if (userIds.length === 0) return [];
    return (await this.records.find({ _id: { $in: userIds.map((u) => recordId(key, u)) } }).toArray()).map(toRecord);
  }

  count(key: PeriodKey): Promise<number> {
    return this.records.countDocuments(this.inPeriod(key));
  }

  async remove(key: PeriodKey, userId: string): Promise<boolean> {
    const result = await this.records.deleteOne({ _id: recordId(key, userId) });
    return result.deletedCount > 0;
  }

  async scan(key: PeriodKey, afterUserId: string | null, limit: number): Promise<LeaderboardRecord[]> {
    const filter = afterUserId === null ? this.inPeriod(key) : { ...this.inPeriod(key), userId: { $gt: afterUserId } };
    return (await this.records.find(filter).sort({ userId: 1 }).limit(limit).toArray()).map(toRecord);
  }

  async recordsOf(app: string, userId: string): Promise<Array<{ board: string; seq: number; record: LeaderboardRecord }>> {
    const docs = await this.records.find({ userId, app }).sort({ seq: -1 }).toArray();
    return docs.map((d) => ({ board: d.board, seq: d.seq, record: toRecord(d) }));
  }

  async currentPeriod(app: string, board: string): Promise<Period | null> {
    const [doc] = await this.periods.find({ app, board }).sort({ seq: -1 }).limit(1).toArray();
    return doc ? toPeriod(doc) : null;
  }

  async period(key: PeriodKey): Promise<Period | null> {
    const doc = await this.periods.findOne({ _id: periodId(key) });
    return doc ? toPeriod(doc) : null;
  }

  async claimPeriod(app: string, board: string, p: Period): Promise<boolean> {
    return this.insertClaim(this.periods as unknown as Collection<ClaimDoc>, { ...p, _id: periodId({ app, board, seq: p.seq }), app, board });
  }

  async claimPayoutPlan(key: PeriodKey, plan: PayoutPlan): Promise<PayoutPlan> {
    await this.insertClaim(this.payouts, { _id: periodId(key), winners: plan.winners, createdAt: plan.createdAt });
    return (await this.payoutPlan(key))!;
  }

  async payoutPlan(key: PeriodKey): Promise<PayoutPlan | null> {
    const doc = await this.payouts.findOne({ _id: periodId(key) });
    return doc ? { winners: doc.winners as PayoutPlan["winners"], createdAt: doc.createdAt as number } : null;
  }

  async finishPayout(key: PeriodKey, at: number): Promise<void> {
    await this.insertClaim(this.payoutsDone, { _id: periodId(key), at });
  }

  async payoutFinished(key: PeriodKey): Promise<boolean> {
    return (await this.payoutsDone.findOne({ _id: periodId(key) })) !== null;
  }

  async join(key: PeriodKey, userId: string, maxSize: number | null, at: number): Promise<"joined" | "full"> {
    const period = periodId(key);
    if (!(await this.insertClaim(this.members, { _id: recordId(key, userId), at }))) return "joined";
    for (;;) {
      const taken = await this.seats.countDocuments({ period });
      if (maxSize !== null && taken >= maxSize) {
        await this.members.deleteOne({ _id: recordId(key, userId) });
        return "full";
      }
      if (await this.insertClaim(this.seats, { _id: `${period}#${taken + 1}`, period, userId, at })) return "joined";
    }
  }

  async isMember(key: PeriodKey, userId: string): Promise<boolean> {
    return (await this.members.findOne({ _id: recordId(key, userId) })) !== null;
  }

  memberCount(key: PeriodKey): Promise<number> {
    return this.seats.countDocuments({ period: periodId(key) });
  }

  async ban(app: string, board: string, userId: string, at: number, by: string | null): Promise<void> {
    await this.insertClaim(this.bans, { _id: `${part(app)}:${part(board)}:${part(userId)}`, at, by });
  }

  async unban(app: string, board: string, userId: string): Promise<void> {
    await this.bans.deleteOne({ _id: `${part(app)}:${part(board)}:${part(userId)}` });
  }

  async isBanned(app: string, board: string, userId: string): Promise<boolean> {
    return (await this.bans.findOne({ _id: `${part(app)}:${part(board)}:${part(userId)}` })) !== null;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private inPeriod(key: PeriodKey) {
    return { app: key.app, board: key.board, seq: key.seq };
  }

  /** True when inserted; false when the `_id` was claimed before. */
  private async insertClaim(collection: Collection<ClaimDoc>, doc: ClaimDoc): Promise<boolean> {
    try {
      await collection.insertOne(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
}

function better(sortScore: number, sortSubscore: number, current: RecordDoc): boolean {
  return sortScore < current.sortScore || (sortScore === current.sortScore && sortSubscore < current.sortSubscore);
}

/** Records strictly before (`$lt`) or after (`$gt`) a position in the ascending rank order. */
function aheadOf(sortScore: number, sortSubscore: number, reachedAt: number, userId: string, op: "$lt" | "$gt") {
  return {
    $or: [
      { sortScore: { [op]: sortScore } },
      { sortScore, sortSubscore: { [op]: sortSubscore } },
      { sortScore, sortSubscore, reachedAt: { [op]: reachedAt } },
      { sortScore, sortSubscore, reachedAt, userId: { [op]: userId } },
    ],
  };
}

function toRecord(d: LeaderboardRecord): LeaderboardRecord {
  return {
    userId: d.userId,
    score: d.score,
    subscore: d.subscore,
    name: d.name,
    metadata: d.metadata ?? null,
    reachedAt: d.reachedAt,
    updatedAt: d.updatedAt,
    version: d.version,
  };
}

function toPeriod(d: Period): Period {
  return { seq: d.seq, startsAt: d.startsAt, endsAt: d.endsAt ?? null, closed: Boolean(d.closed), reason: d.reason, by: d.by ?? null };
}

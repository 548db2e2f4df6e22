/**
 * Ranked reads of one board period: from the rank index when it is ready, else from the store (the
 * record of truth) while the index is rebuilt in the background. Both give the same ranks: the
 * index's tie order is the store's (score, subscore, who reached it first, user id).
 */
import type { LeaderboardRecord, LeaderboardStore, PeriodKey, RankCursor, SortOrder } from "../../core/ports/leaderboard-store";
import { aroundStart, type IndexedRecord, type RankIndex } from "../../core/ports/rank-index";
import { IndexCatchUp } from "./index-catch-up";

const BUILD_PAGE = 2000;
/** A build holds its claim this long past its last page; a dead builder's claim frees itself then. */
const BUILD_LEASE_MS = 30_000;
/** While Redis is away every read and write fails over to the store: one warning per kind this often. */
const WARN_EVERY_MS = 10_000;

export interface PageCursor extends RankCursor {
  /** How many records came before the next page. */
  offset: number;
}

export interface ReadsLogger {
  warn(obj: object, msg: string): void;
}

/**
 * How much longer the index may hold a period: null while it is live (or its rewards unpaid), ≤ 0
 * once an ended period is past its retention (read from the store; never indexed again).
 */
export type IndexRetention = (key: PeriodKey) => Promise<number | null>;

export class RankedReads {
  private readonly building = new Set<string>();
  /** Index writes that failed, made good when the index answers again. */
  private readonly missed?: IndexCatchUp;
  private readonly warned = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly store: LeaderboardStore,
    private readonly index: RankIndex | undefined,
    private readonly logger: ReadsLogger,
    private readonly retention: IndexRetention = async () => null,
  ) {
    if (index) this.missed = new IndexCatchUp(store, index);
  }

  async page(key: PeriodKey, order: SortOrder, limit: number, cursor?: PageCursor): Promise<IndexedRecord[]> {
    const offset = cursor?.offset ?? 0;
    const indexed = await this.fromIndex(key, order, (index) => index.range(key, offset, limit));
    if (indexed) return indexed;
    const records = await this.store.top(key, order, limit, cursor);
    return records.map((record, i) => ({ rank: offset + i + 1, record }));
  }

  async ranksOf(key: PeriodKey, order: SortOrder, userIds: readonly string[]): Promise<IndexedRecord[]> {
    const indexed = await this.fromIndex(key, order, (index) => index.ranksOf(key, userIds));
    if (indexed) return indexed;
    const records = await this.store.find(key, userIds);
    return Promise.all(records.map(async (record) => ({ rank: (await this.store.countAhead(key, order, record)) + 1, record })));
  }

  /** The player's neighbours: about half the page above, the rest below (null: no record). */
  async around(key: PeriodKey, order: SortOrder, userId: string, limit: number): Promise<IndexedRecord[] | null> {
    const indexed = await this.fromIndex(key, order, (index) => index.around(key, userId, limit));
    if (indexed) return indexed.length > 0 ? indexed : null;
    const [record] = await this.store.find(key, [userId]);
    if (!record) return null;
    const rank = (await this.store.countAhead(key, order, record)) + 1;
    const start = aroundStart(rank, limit);
    const above = (await this.store.before(key, order, record, rank - 1 - start)).reverse();
    const below = await this.store.top(key, order, limit - above.length - 1, cursorOf(record));
    return [...above, record, ...below].map((r, i) => ({ rank: rank - above.length + i, record: r }));
  }

  /**
   * Keeps the index in step after a write; answers the player's rank when the index had it (else
   * null: ask `ranksOf`). A failure leaves the store right; the write is made good in the index
   * when it answers again (index-catch-up.ts), and the period is read from the store until then.
   */
  async written(key: PeriodKey, order: SortOrder, record: LeaderboardRecord): Promise<number | null> {
    if (!this.index || this.missed?.pending(key)) {
      this.missed?.note(key, order, record.userId);
      return null;
    }
    return this.index.apply(key, order, [record]).catch((err) => {
      this.missed?.note(key, order, record.userId);
      this.warn(err, key, "rank index update failed; made good when Redis answers again");
      return null;
    });
  }

  async removed(key: PeriodKey, userId: string): Promise<void> {
    if (!this.index) return;
    await this.index.remove(key, userId).catch((err) => {
      this.missed?.noteRemoval(key);
      this.warn(err, key, "rank index removal failed; the period's index is rebuilt when Redis answers again");
    });
  }

  /** Makes good every index write that failed; run by each tick. */
  async catchUp(): Promise<void> {
    if (!this.missed?.size) return;
    await this.missed.runAll().catch((err) => this.warn(err, null, "rank index still unavailable; missed writes wait"));
  }

  /** Reads the index; when it is not ready (or fails), starts a rebuild and answers null (read the store). */
  private async fromIndex<T>(key: PeriodKey, order: SortOrder, read: (index: RankIndex) => Promise<T | null>): Promise<T | null> {
    if (!this.index) return null;
    try {
      // An ended period past its retention: its keys are gone or going; the store answers.
      const left = await this.retention(key);
      if (left !== null && left <= 0) return null;
      // Writes the index missed are made good first; until then it would answer from before them.
      if (this.missed?.pending(key)) await this.missed.run(key);
      const answer = await read(this.index);
      if (answer !== null) {
        if (this.index.stale?.(key)) void this.rebuild(key, order);
        return answer;
      }
    } catch (err) {
      this.warn(err, key, "rank index read failed; reading the store");
      return null;
    }
    void this.rebuild(key, order);
    return null;
  }

  /** Rebuilds a period's index from the store, once across processes (a lease in Redis). */
  async rebuild(key: PeriodKey, order: SortOrder): Promise<boolean> {
    const index = this.index;
    const id = `${key.app}:${key.board}:${key.seq}`;
    if (!index || this.building.has(id)) return false;
    this.building.add(id);
    try {
      const left = await this.retention(key);
      if (left !== null && left <= 0) return false;
      const token = await index.startBuild(key, BUILD_LEASE_MS);
      if (!token) return false;
      let after: string | null = null;
      for (;;) {
        const page = await this.store.scan(key, after, BUILD_PAGE);
        if (page.length === 0) break;
        await index.apply(key, order, page);
        // An ended period's partial build expires too, should this builder die before finishing.
        if (left !== null) await index.expire(key, left);
        after = page[page.length - 1].userId;
        if (!(await index.renewBuild(key, token, BUILD_LEASE_MS))) return false;
      }
      return await index.finishBuild(key, token, (await this.retention(key)) ?? undefined);
    } catch (err) {
      this.logger.warn({ err, board: key.board }, "rank index rebuild failed; reads use the store");
      return false;
    } finally {
      this.building.delete(id);
    }
  }

  private warn(err: unknown, key: PeriodKey | null, msg: string): void {
    const now = Date.now();
    const last = this.warned.get(msg);
    if (last && now - last.at < WARN_EVERY_MS) {
      last.suppressed++;
      return;
    }
    this.logger.warn({ err, board: key?.board, suppressed: last?.suppressed ?? 0 }, msg);
    this.warned.set(msg, { at: now, suppressed: 0 });
  }
}

export function cursorOf(r: LeaderboardRecord): RankCursor {
  return { score: r.score, subscore: r.subscore, reachedAt: r.reachedAt, userId: r.userId };
}

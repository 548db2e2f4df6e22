/**
 * Rank index writes that failed (Redis away, or its answer lost), made good once it answers again.
 * The store kept every write, so each missed player's record is read back from it and applied; a
 * record applies only over an older version, so a write that did reach Redis, or a newer one racing
 * the catch-up, is left as it is. A missed removal, a missed player without a record any more, or
 * more missed players than CATCH_UP_MAX, drop the period's index instead (a removed record's
 * version may start again below the one the index holds): the next read rebuilds it from the store.
 *
 * What is missed lives in this process until it is made good: the next read of the period and each
 * tick try it, and the period is read from the store until then.
 */
import type { LeaderboardStore, PeriodKey, SortOrder } from "../../core/ports/leaderboard-store";
import type { RankIndex } from "../../core/ports/rank-index";

export const CATCH_UP_MAX = 10_000;
const APPLY_PAGE = 1000;

interface Missed {
  key: PeriodKey;
  order: SortOrder;
  users: Set<string>;
  drop: boolean;
}

const idOf = (key: PeriodKey) => `${key.app}\0${key.board}\0${key.seq}`;

export class IndexCatchUp {
  private readonly missed = new Map<string, Missed>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly store: LeaderboardStore,
    private readonly index: RankIndex,
  ) {}

  /** The index missed a write of `userId`'s record. */
  note(key: PeriodKey, order: SortOrder, userId: string): void {
    const m = this.entry(key, order);
    if (m.drop) return;
    if (m.users.size >= CATCH_UP_MAX) this.noteRemoval(key);
    else m.users.add(userId);
  }

  /** The index missed a removal: the period's index is dropped (and rebuilt by the next read). */
  noteRemoval(key: PeriodKey): void {
    const m = this.entry(key, "desc"); // a dropped index applies nothing: its order is not used
    m.drop = true;
    m.users.clear();
  }

  private entry(key: PeriodKey, order: SortOrder): Missed {
    const id = idOf(key);
    let m = this.missed.get(id);
    if (!m) this.missed.set(id, (m = { key, order, users: new Set(), drop: false }));
    return m;
  }

  pending(key: PeriodKey): boolean {
    return this.missed.has(idOf(key));
  }

  get size(): number {
    return this.missed.size;
  }

  /**
   * Makes good what the period's index missed; throws (keeping it) when the index still fails.
   * Concurrent callers share one run, so none reads the index before it is done.
   */
  run(key: PeriodKey): Promise<void> {
    const id = idOf(key);
    const running = this.running.get(id);
    if (running) return running;
    const m = this.missed.get(id);
    if (!m) return Promise.resolve();
    // Taken out while it runs: a write missed meanwhile starts a new entry, never lost.
    this.missed.delete(id);
    const run = this.makeGood(m).catch((err: unknown) => {
      const again = this.missed.get(id);
      if (!again) this.missed.set(id, m);
      else if (m.drop) this.noteRemoval(key);
      else for (const user of m.users) this.note(key, m.order, user);
      throw err;
    });
    this.running.set(id, run);
    return run.finally(() => this.running.delete(id));
  }

  private async makeGood(m: Missed): Promise<void> {
    const users = [...m.users];
    for (let i = 0; i < users.length && !m.drop; i += APPLY_PAGE) {
      const page = users.slice(i, i + APPLY_PAGE);
      const records = await this.store.find(m.key, page);
      if (records.length < page.length) m.drop = true;
      else await this.index.apply(m.key, m.order, records);
    }
    if (m.drop) await this.index.expire(m.key, 0);
  }

  /** Every period's; the first failure stops it (the index is still away). */
  async runAll(): Promise<void> {
    for (const m of [...this.missed.values()]) await this.run(m.key);
  }
}

/**
 * The rank index in this process's memory, for the embedded setup (SQLite, no Redis), which the
 * settings allow in one process only: every write passes through here, so the index stays in step.
 * A rank is a binary search instead of a count over the store's index (100,000 records: microseconds
 * instead of milliseconds). Writes from other processes (the admin CLI) reach it at the next
 * refresh: each period's index is rebuilt from the store in the background after REFRESH_MS,
 * served as it was meanwhile.
 */
import crypto from "node:crypto";
import type { LeaderboardRecord, PeriodKey, SortOrder } from "../../core/ports/leaderboard-store";
import { aroundStart, type IndexedRecord, type RankIndex } from "../../core/ports/rank-index";

export const MEMORY_INDEX_REFRESH_MS = 5_000;

interface Entry {
  s: number;
  ss: number;
  record: LeaderboardRecord;
}

class SortedRecords {
  list: Entry[] = [];
  readonly byUser = new Map<string, Entry>();

  /** While true, records are only collected (a build); `sort` puts them in order once. */
  constructor(private collecting = false) {}

  apply(sign: number, r: LeaderboardRecord): void {
    const old = this.byUser.get(r.userId);
    if (old && old.record.version >= r.version) return;
    const entry = { s: sign * r.score, ss: sign * r.subscore, record: r };
    this.byUser.set(r.userId, entry);
    if (this.collecting) return;
    if (old) this.list.splice(this.position(old), 1);
    this.list.splice(this.position(entry), 0, entry);
  }

  /** Ends a build: one sort instead of an insertion per record. */
  sort(): void {
    this.list = [...this.byUser.values()].sort(compare);
    this.collecting = false;
  }

  remove(userId: string): void {
    const old = this.byUser.get(userId);
    if (!old) return;
    this.byUser.delete(userId);
    if (!this.collecting) this.list.splice(this.position(old), 1);
  }

  /** Where `e` is, or would go, in rank order. */
  position(e: Entry): number {
    let low = 0;
    let high = this.list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.list[mid], e) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function compare(a: Entry, b: Entry): number {
  if (a.s !== b.s) return a.s - b.s;
  if (a.ss !== b.ss) return a.ss - b.ss;
  if (a.record.reachedAt !== b.record.reachedAt) return a.record.reachedAt - b.record.reachedAt;
  return a.record.userId < b.record.userId ? -1 : a.record.userId > b.record.userId ? 1 : 0;
}

interface Period {
  live?: SortedRecords;
  builtAt: number;
  sign: number;
  building?: { token: string; next: SortedRecords };
  /** An ended period's index is forgotten at this time (ms since epoch). */
  expiresAt?: number;
}

export class MemoryRankIndex implements RankIndex {
  private readonly periods = new Map<string, Period>();

  constructor(private readonly now: () => number = Date.now) {}

  private period(key: PeriodKey): Period {
    const id = `${key.app}\0${key.board}\0${key.seq}`;
    let p = this.periods.get(id);
    if (p?.expiresAt !== undefined && this.now() >= p.expiresAt) p = undefined;
    if (!p) this.periods.set(id, (p = { builtAt: 0, sign: 1 }));
    return p;
  }

  async expire(key: PeriodKey, ttlMs: number): Promise<void> {
    const p = this.period(key);
    if (p.live || p.building) p.expiresAt = this.now() + ttlMs;
    // Nothing reads an ended period once it is past: forget every such one now, not on its next read.
    for (const [id, other] of this.periods) if (other.expiresAt !== undefined && this.now() >= other.expiresAt) this.periods.delete(id);
    if (!p.live && !p.building) this.periods.delete(`${key.app}\0${key.board}\0${key.seq}`);
  }

  async ready(key: PeriodKey): Promise<boolean> {
    return this.period(key).live !== undefined;
  }

  stale(key: PeriodKey): boolean {
    const p = this.period(key);
    return p.live !== undefined && !p.building && this.now() - p.builtAt > MEMORY_INDEX_REFRESH_MS;
  }

  async apply(key: PeriodKey, order: SortOrder, records: readonly LeaderboardRecord[]): Promise<number | null> {
    const p = this.period(key);
    p.sign = order === "desc" ? -1 : 1;
    for (const r of records) {
      p.live?.apply(p.sign, r);
      p.building?.next.apply(p.sign, r);
    }
    const entry = records.length === 1 ? p.live?.byUser.get(records[0].userId) : undefined;
    return entry ? p.live!.position(entry) + 1 : null;
  }

  async remove(key: PeriodKey, userId: string): Promise<void> {
    const p = this.period(key);
    p.live?.remove(userId);
    p.building?.next.remove(userId);
  }

  async range(key: PeriodKey, offset: number, limit: number): Promise<IndexedRecord[] | null> {
    const live = this.period(key).live;
    if (!live) return null;
    return live.list.slice(offset, offset + limit).map((e, i) => ({ rank: offset + i + 1, record: e.record }));
  }

  async around(key: PeriodKey, userId: string, limit: number): Promise<IndexedRecord[] | null> {
    const mine = await this.ranksOf(key, [userId]);
    if (!mine) return null;
    if (mine.length === 0) return [];
    return this.range(key, aroundStart(mine[0].rank, limit), limit);
  }

  async ranksOf(key: PeriodKey, userIds: readonly string[]): Promise<IndexedRecord[] | null> {
    const live = this.period(key).live;
    if (!live) return null;
    const out: IndexedRecord[] = [];
    for (const userId of userIds) {
      const entry = live.byUser.get(userId);
      if (entry) out.push({ rank: live.position(entry) + 1, record: entry.record });
    }
    return out;
  }

  async startBuild(key: PeriodKey): Promise<string | null> {
    const p = this.period(key);
    if (p.building) return null;
    const token = crypto.randomBytes(8).toString("hex");
    p.building = { token, next: new SortedRecords(true) };
    return token;
  }

  async renewBuild(key: PeriodKey, token: string): Promise<boolean> {
    return this.period(key).building?.token === token;
  }

  async finishBuild(key: PeriodKey, token: string, expireInMs?: number): Promise<boolean> {
    const p = this.period(key);
    if (p.building?.token !== token) return false;
    p.building.next.sort();
    p.live = p.building.next;
    p.builtAt = this.now();
    p.building = undefined;
    if (expireInMs !== undefined) p.expiresAt = p.builtAt + expireInMs;
    return true;
  }

  async close(): Promise<void> {
    this.periods.clear();
  }
}

/**
 * Ranks served from memory shared by every process (Redis sorted sets), kept in step with the
 * leaderboard store and rebuilt from it when lost. Never the record of truth: a period whose index
 * is not `ready` is read from the store while it is rebuilt.
 */
import type { LeaderboardRecord, PeriodKey, SortOrder } from "./leaderboard-store";

export interface IndexedRecord {
  rank: number;
  record: LeaderboardRecord;
}

export interface RankIndex {
  /** Whether the period's index is complete (built from the store and not lost since). */
  ready(key: PeriodKey): Promise<boolean>;
  /**
   * Applies each record unless the index holds the same or a newer version of it. Given one record,
   * answers its player's rank when the index is complete (null otherwise): a write and its rank in
   * one round trip.
   */
  apply(key: PeriodKey, order: SortOrder, records: readonly LeaderboardRecord[]): Promise<number | null>;
  remove(key: PeriodKey, userId: string): Promise<void>;
  /** Records at ranks offset+1 … offset+limit; null while the period's index is not ready. */
  range(key: PeriodKey, offset: number, limit: number): Promise<IndexedRecord[] | null>;
  /**
   * The player's neighbours in one read: `limit` records from `aroundStart` of the player's rank;
   * [] when the player has no record, null while not ready.
   */
  around(key: PeriodKey, userId: string, limit: number): Promise<IndexedRecord[] | null>;
  /** The ranks and records of those of the players who have one; null while not ready. */
  ranksOf(key: PeriodKey, userIds: readonly string[]): Promise<IndexedRecord[] | null>;
  /**
   * Starts a build: true when this caller should build (nobody else is), with a token that
   * `finishBuild` checks, so a build that the index lost mid-way (a flush) is never marked ready.
   */
  startBuild(key: PeriodKey, ttlMs: number): Promise<string | null>;
  /** Whether a ready index should be rebuilt in the background (served as it is meanwhile). */
  stale?(key: PeriodKey): boolean;
  /** Keeps a long build's claim alive; false when it was lost (the index was flushed): stop building. */
  renewBuild(key: PeriodKey, token: string, ttlMs: number): Promise<boolean>;
  /**
   * Marks the build complete (ready) unless its claim was lost. With `expireInMs` (an ended
   * period's build), the period's index goes after that long, its ready mark with it, atomically.
   */
  finishBuild(key: PeriodKey, token: string, expireInMs?: number): Promise<boolean>;
  /**
   * Lets the period's index go after `ttlMs`: an ended period is kept a while for display, then
   * reads answer from the store. At ≤ 0 it goes at once, with any build under way (which can then
   * never mark it ready): the next read rebuilds it from the store. Does nothing to a period the
   * index does not hold.
   */
  expire(key: PeriodKey, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Where a page of `limit` around the 1-based `rank` starts (0-based): about half of it above. */
export function aroundStart(rank: number, limit: number): number {
  return Math.max(0, rank - 1 - Math.floor((limit - 1) / 2));
}

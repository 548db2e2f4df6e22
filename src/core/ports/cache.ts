export interface CacheEntry {
  key: string;
  value: string;
  ttlSec: number;
}

/**
 * Key-value cache shared by all processes (Redis) or local to one (memory).
 * Keys are given without the configured prefix; implementations add it.
 * TTLs are always positive; implementations reject a non-positive TTL.
 */
/**
 * How a cache wants per-user keys spelled (perUserKey):
 * - "required": Redis Cluster. Keys written in one atomic step must share a slot, so per-user keys
 *   carry the user id as a `{hash tag}`.
 * - "legacy": one shared Redis. Per-user keys are the spec's, without braces; earlier versions wrote
 *   them hash-tagged here, so a session from before an upgrade is read from there too (SessionKeys).
 * - "none": this process's memory, which holds nothing from before the process started.
 */
export type HashTagUse = "required" | "legacy" | "none";

export interface Cache {
  readonly hashTags: HashTagUse;
  get(key: string): Promise<string | null>;
  /** Several keys in one round trip (Redis MGET): the values in the order of `keys`, null where absent. */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  set(key: string, value: string, ttlSec: number): Promise<void>;
  /**
   * Writes all entries in one atomic step (a reader never sees some written and others not) and
   * returns what each key held just before, in entry order, null where absent, followed by the
   * values of `alsoRead` at that same moment: a login learns whether it replaced a session (under
   * either spelling of its keys) in the one round trip that starts its own.
   */
  setMany(entries: CacheEntry[], alsoRead?: readonly string[]): Promise<(string | null)[]>;
  delete(...keys: string[]): Promise<void>;
  /** Deletes `key` only while it still holds `expected`. Returns whether it deleted. */
  deleteIfEquals(key: string, expected: string): Promise<boolean>;
  /**
   * Atomically: if `guardKey` holds `expected`, write every entry and return true; otherwise write
   * nothing and return false. Used for refresh-token rotation so concurrent refreshes rotate once.
   */
  replaceIfEquals(guardKey: string, expected: string, entries: CacheEntry[]): Promise<boolean>;
  /** Sets `key` only if absent, expiring after `ttlMs`. The building block for locks. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Increments a counter that lives `windowSec` from its first increment (fixed window).
   * Returns the new count and the milliseconds until the window resets.
   */
  increment(key: string, windowSec: number): Promise<{ count: number; resetInMs: number }>;
  /** Remaining lifetime in milliseconds, or null when the key does not exist. */
  ttlMs(key: string): Promise<number | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

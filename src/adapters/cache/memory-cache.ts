/**
 * The cache for a single process. Every method body runs without an await, so each one is atomic
 * on Node's single thread exactly like the Redis scripts are atomic on the server.
 */
import type { Cache, CacheEntry, HashTagUse } from "../../core/ports/cache";

interface Slot {
  value: string;
  expiresAt: number;
}

export interface MemoryCacheOptions {
  /** Clock in milliseconds; tests inject one to expire keys without sleeping. */
  now?: () => number;
  sweepIntervalMs?: number;
  /** Most values (set, setMany, replaceIfEquals) held at once; past it the expired go, then the oldest. */
  maxValues?: number;
  /** Most counters and locks (increment, setIfAbsent) held at once; same rule, apart from the values. */
  maxCounters?: number;
  /** Told (at most once a minute) when a live value had to go: players are being logged out. */
  logger?: { warn(obj: object, msg: string): void };
}

/**
 * Values are written only after something succeeded (a login, a refresh, a platform fetch): three
 * per session, ~1.4 KB a session, so this holds ~165,000 sessions in ~250 MB. Refresh tokens live
 * 30 days: a game with more players a month than that belongs on Redis, and the warning says so.
 */
export const DEFAULT_MAX_VALUES = 500_000;
/**
 * Counters and locks are what a client can multiply at will (per address, per made-up user name):
 * a ceiling on what such a flood costs, about 20 MB. They have their own bound so that a flood
 * evicts only its own kind, never a session.
 */
export const DEFAULT_MAX_COUNTERS = 100_000;
const WARN_EVERY_MS = 60_000;

/** Shared by both adapters so a bad TTL is refused the same way before anything is written. */
export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
}

/** Keys of one kind, bounded apart; a key lives in one kind at a time. */
interface Bounded {
  slots: Map<string, Slot>;
  max: number;
}

export class MemoryCache implements Cache {
  readonly hashTags: HashTagUse = "none";
  private readonly values: Bounded;
  private readonly counters: Bounded;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private lastFullSweepAt = -Infinity;
  private lastWarnAt = -Infinity;
  private evictedSinceWarn = 0;

  constructor(private readonly options: MemoryCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.values = { slots: new Map(), max: options.maxValues ?? DEFAULT_MAX_VALUES };
    this.counters = { slots: new Map(), max: options.maxCounters ?? DEFAULT_MAX_COUNTERS };
    assertPositiveInteger("maxValues", this.values.max);
    assertPositiveInteger("maxCounters", this.counters.max);
    // Reads already ignore expired slots; the sweep only bounds memory for keys nobody reads again.
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    return keys.map((key) => this.live(key)?.value ?? null);
  }

  async set(key: string, value: string, ttlSec: number): Promise<void> {
    assertPositiveInteger("ttlSec", ttlSec);
    this.write({ key, value, ttlSec });
  }

  async setMany(entries: CacheEntry[], alsoRead: readonly string[] = []): Promise<(string | null)[]> {
    for (const e of entries) assertPositiveInteger("ttlSec", e.ttlSec);
    // Every read before any write, as Redis's script does.
    const values = [...entries.map((e) => e.key), ...alsoRead].map((key) => this.live(key)?.value ?? null);
    for (const e of entries) this.write(e);
    return values;
  }

  async delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.forget(key);
  }

  async deleteIfEquals(key: string, expected: string): Promise<boolean> {
    if (this.live(key)?.value !== expected) return false;
    this.forget(key);
    return true;
  }

  async replaceIfEquals(guardKey: string, expected: string, entries: CacheEntry[]): Promise<boolean> {
    for (const e of entries) assertPositiveInteger("ttlSec", e.ttlSec);
    if (this.live(guardKey)?.value !== expected) return false;
    for (const e of entries) this.write(e);
    return true;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertPositiveInteger("ttlMs", ttlMs);
    if (this.live(key)) return false;
    this.store(this.counters, key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  async increment(key: string, windowSec: number): Promise<{ count: number; resetInMs: number }> {
    assertPositiveInteger("windowSec", windowSec);
    const now = this.now();
    const slot = this.live(key);
    if (!slot) {
      const expiresAt = now + windowSec * 1000;
      this.store(this.counters, key, { value: "1", expiresAt });
      return { count: 1, resetInMs: expiresAt - now };
    }
    const count = Number(slot.value) + 1;
    // Same refusal as Redis INCR on a non-integer value.
    if (!Number.isSafeInteger(count)) throw new Error(`value at ${key} is not an integer`);
    slot.value = String(count);
    return { count, resetInMs: slot.expiresAt - now };
  }

  async ttlMs(key: string): Promise<number | null> {
    const slot = this.live(key);
    return slot ? slot.expiresAt - this.now() : null;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.values.slots.clear();
    this.counters.slots.clear();
  }

  private write(e: CacheEntry): void {
    this.store(this.values, e.key, { value: e.value, expiresAt: this.now() + e.ttlSec * 1000 });
  }

  /** Every write goes through here, so no kind ever holds more than its bound. */
  private store(kind: Bounded, key: string, slot: Slot): void {
    // Delete first so a rewritten key moves to the young end of the map's insertion order.
    const other = kind === this.values ? this.counters : this.values;
    other.slots.delete(key);
    if (!kind.slots.delete(key) && kind.slots.size >= kind.max) this.makeRoom(kind);
    kind.slots.set(key, slot);
  }

  /**
   * Drops expired keys (a full scan, at most once a second so a flood does not make every write
   * scan), and if none were, the kind's oldest-written key: under a flood of distinct counters the
   * oldest are the flood's own first keys; among values, the least recently written session.
   */
  private makeRoom(kind: Bounded): void {
    const now = this.now();
    if (now - this.lastFullSweepAt >= 1000) {
      this.lastFullSweepAt = now;
      this.sweep();
      if (kind.slots.size < kind.max) return;
    }
    const oldest = kind.slots.entries().next();
    if (oldest.done) return;
    const [key, slot] = oldest.value;
    kind.slots.delete(key);
    if (kind === this.values && slot.expiresAt > now) this.warnLiveValueEvicted(now);
  }

  private warnLiveValueEvicted(now: number): void {
    this.evictedSinceWarn++;
    if (!this.options.logger || now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.options.logger.warn(
      { maxValues: this.values.max, evicted: this.evictedSinceWarn },
      "the in-memory cache is full: live sessions are being dropped (those players must log in again); set REDIS_URL",
    );
    this.lastWarnAt = now;
    this.evictedSinceWarn = 0;
  }

  private live(key: string): Slot | undefined {
    let kind = this.values;
    let slot = kind.slots.get(key);
    if (!slot) {
      kind = this.counters;
      slot = kind.slots.get(key);
      if (!slot) return undefined;
    }
    if (slot.expiresAt > this.now()) return slot;
    kind.slots.delete(key);
    return undefined;
  }

  private forget(key: string): void {
    if (!this.values.slots.delete(key)) this.counters.slots.delete(key);
  }

  private sweep(): void {
    const now = this.now();
    for (const kind of [this.values, this.counters]) {
      for (const [key, slot] of kind.slots) if (slot.expiresAt <= now) kind.slots.delete(key);
    }
  }
}

/**
 * The cache for a single process. Every method body runs without an await, so each one is atomic
 * on Node's single thread exactly like the Redis scripts are atomic on the server.
 */
import type { Cache, CacheEntry } from "../../core/ports/cache";

interface Slot {
  value: string;
  expiresAt: number;
}

export interface MemoryCacheOptions {
  /** Clock in milliseconds; tests inject one to expire keys without sleeping. */
  now?: () => number;
  sweepIntervalMs?: number;
  /** Most keys held at once; past it the expired ones go, then the oldest. */
  maxEntries?: number;
}

/**
 * Far above what one process's sessions and counters need (a key is a few hundred bytes), and a
 * ceiling on what a flood of distinct keys can cost: about 50 MB.
 */
export const DEFAULT_MAX_ENTRIES = 100_000;

/** Shared by both adapters so a bad TTL is refused the same way before anything is written. */
export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
}

export class MemoryCache implements Cache {
  private readonly slots = new Map<string, Slot>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxEntries: number;
  private lastFullSweepAt = -Infinity;

  constructor(options: MemoryCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    assertPositiveInteger("maxEntries", this.maxEntries);
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

  async setMany(entries: CacheEntry[]): Promise<(string | null)[]> {
    for (const e of entries) assertPositiveInteger("ttlSec", e.ttlSec);
    return entries.map((e) => {
      const previous = this.live(e.key)?.value ?? null;
      this.write(e);
      return previous;
    });
  }

  async delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.slots.delete(key);
  }

  async deleteIfEquals(key: string, expected: string): Promise<boolean> {
    if (this.live(key)?.value !== expected) return false;
    this.slots.delete(key);
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
    this.store(key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  async increment(key: string, windowSec: number): Promise<{ count: number; resetInMs: number }> {
    assertPositiveInteger("windowSec", windowSec);
    const now = this.now();
    const slot = this.live(key);
    if (!slot) {
      const expiresAt = now + windowSec * 1000;
      this.store(key, { value: "1", expiresAt });
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
    this.slots.clear();
  }

  private write(e: CacheEntry): void {
    this.store(e.key, { value: e.value, expiresAt: this.now() + e.ttlSec * 1000 });
  }

  /** Every write goes through here, so the map never holds more than maxEntries keys. */
  private store(key: string, slot: Slot): void {
    // Delete first so a rewritten key moves to the young end of the map's insertion order.
    if (!this.slots.delete(key) && this.slots.size >= this.maxEntries) this.makeRoom();
    this.slots.set(key, slot);
  }

  /**
   * Drops expired keys (a full scan, at most once a second so a flood does not make every write
   * scan), and if none were, the oldest-written key: under a flood of distinct keys the oldest are
   * the flood's own first keys, not a busy player's session, which is rewritten on every refresh.
   */
  private makeRoom(): void {
    const now = this.now();
    if (now - this.lastFullSweepAt >= 1000) {
      this.lastFullSweepAt = now;
      this.sweep();
      if (this.slots.size < this.maxEntries) return;
    }
    const oldest = this.slots.keys().next();
    if (!oldest.done) this.slots.delete(oldest.value);
  }

  private live(key: string): Slot | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt > this.now()) return slot;
    this.slots.delete(key);
    return undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, slot] of this.slots) if (slot.expiresAt <= now) this.slots.delete(key);
  }
}

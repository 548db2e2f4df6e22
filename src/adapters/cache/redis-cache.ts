/**
 * The cache shared by all instances, on one Redis or a Redis Cluster. Conditional writes are Lua
 * scripts so they are atomic on the server; every connection or timeout failure becomes
 * `service_unavailable` so a request fails fast with 503 instead of hanging while Redis is away.
 * On a cluster an atomic write (setMany, replaceIfEquals) must keep to one hash slot, which the
 * session keys do through their `{userId}` hash tag (there only: hashTags); reads and deletes of
 * several keys are split by slot.
 */
import type { Cache, CacheEntry, HashTagUse } from "../../core/ports/cache";
import { AppError } from "../../core/errors";
import { assertPositiveInteger } from "./memory-cache";
import { groupBySlot } from "./hash-slot";
import { connectRedis, describeTarget, isCluster, type RedisClient, type RedisTarget } from "./redis-connection";
import { RedisWatchdog, type WatchdogTimings } from "./redis-watchdog";

export interface CacheLogger {
  warn(obj: object, msg: string): void;
}

export interface RedisCacheOptions {
  /** Prepended to every key by ioredis (also to script KEYS); "" keeps keys exactly as given. */
  keyPrefix?: string;
  logger?: CacheLogger;
  commandTimeoutMs?: number;
  /** How soon a silent Redis is noticed (redis-watchdog.ts). */
  watchdog?: WatchdogTimings;
}

const WARN_EVERY_MS = 10_000;
/** ioredis's message when `commandTimeout` expires. */
const COMMAND_TIMED_OUT = "Command timed out";

const DELETE_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// KEYS[1] is the guard, KEYS[2..] the entries; ARGV[1] the expected value, then value/ttl pairs.
const REPLACE_IF_EQUALS = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2 * i - 2], 'EX', ARGV[2 * i - 1])
end
return 1`;

// Each key's previous value, then its new value with its TTL; ARGV holds value/ttl pairs. A script,
// not MULTI with GET/SET pairs: one command and one reply instead of eight of each (a login's
// session write cost ~45 µs of client CPU as MULTI, ~17 µs as this script, measured here).
// A missing key's GET is false in Lua, which Redis answers as nil.
// KEYS: the entries' keys, then the keys only read; ARGV[1]: how many entries, then value and TTL of each.
// Every GET before any SET, so a key both written and read reads as it was before the step.
const SET_MANY_RETURNING_PREVIOUS = `
local values = {}
for i = 1, #KEYS do
  values[i] = redis.call('GET', KEYS[i])
end
for i = 1, tonumber(ARGV[1]) do
  redis.call('SET', KEYS[i], ARGV[2 * i], 'EX', ARGV[2 * i + 1])
end
return values`;

// One script so a crash between INCR and PEXPIRE cannot leave a counter that never resets;
// a counter found without expiry (written by something else) is given one too.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

interface ScriptedCommands {
  cacheDeleteIfEquals(key: string, expected: string): Promise<number>;
  cacheReplaceIfEquals(numKeys: number, ...args: (string | number)[]): Promise<number>;
  cacheIncrement(key: string, windowMs: number): Promise<[number, number]>;
  cacheSetMany(numKeys: number, ...args: (string | number)[]): Promise<(string | null)[]>;
}

type ScriptedRedis = RedisClient & ScriptedCommands;

/** Atomic writes touching several hash slots of a cluster: a programming error, not an outage. */
export class CrossSlotWriteError extends Error {
  constructor(keys: readonly string[]) {
    super(`an atomic cache write must keep to one Redis Cluster hash slot; give these keys one {hash tag}: ${keys.join(", ")}`);
    this.name = "CrossSlotWriteError";
  }
}

export class RedisCache implements Cache {
  private readonly redis: ScriptedRedis;
  private readonly watchdog: RedisWatchdog;
  private readonly cluster: boolean;
  readonly hashTags: HashTagUse;
  private lastError: Error | undefined;
  private lastWarnAt = 0;
  private suppressedWarnings = 0;

  constructor(
    private readonly target: RedisTarget,
    private readonly options: RedisCacheOptions = {},
  ) {
    const timeout = options.commandTimeoutMs ?? 2000;
    this.cluster = isCluster(target);
    this.hashTags = this.cluster ? "required" : "legacy";
    const redis = connectRedis(target, {
      keyPrefix: options.keyPrefix ?? "",
      // Queue only until the first connect so boot-time commands wait; afterwards fail at once.
      enableOfflineQueue: true,
      // 0: every lost connection fails its queued commands at once. With 1, ioredis keeps the
      // queue of the first lost connection and silently drops it on the next ready, so those
      // commands wait out their own timeouts, whose "timed out" errors then looked like a fault
      // of the healthy connection that replaced it.
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      commandTimeout: timeout,
      // Never give up: the service recovers on its own when Redis comes back, within a second
      // (the fault suite asserts it), so a lost Redis is tried again every 100 ms (a connect to a
      // Redis that refuses costs next to nothing; a silent one is given up by the watchdog).
      retryStrategy: (attempt) => Math.min(attempt * 50, 100),
      // A command that already timed out for its caller must not run later behind its back
      // (e.g. a refresh-token rotation the client was told failed).
      autoResendUnfulfilledCommands: false,
      // The commands of one event-loop turn leave in one write (ioredis sends them at setImmediate):
      // under load, logins' session writes and the session checks of /api and room joins share
      // system calls, which cost more here than the commands themselves. Each command keeps its own
      // result, error and timeout. Not on a cluster, whose batches split per node anyway.
      enableAutoPipelining: !this.cluster,
      // A cluster's own ready check (CLUSTER INFO) goes to a node connection that may wait for a
      // silent node for the whole command timeout; the watchdog's PING of every node checks instead,
      // so a cluster that answers again is used within the second. Each node keeps its ready check.
      ...(this.cluster ? { enableReadyCheck: false } : {}),
    }) as ScriptedRedis;
    redis.defineCommand("cacheDeleteIfEquals", { numberOfKeys: 1, lua: DELETE_IF_EQUALS });
    redis.defineCommand("cacheReplaceIfEquals", { lua: REPLACE_IF_EQUALS });
    redis.defineCommand("cacheIncrement", { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand("cacheSetMany", { lua: SET_MANY_RETURNING_PREVIOUS });
    redis.on("error", (err: Error) => this.onError(err));
    redis.once("ready", () => {
      redis.options.enableOfflineQueue = false;
    });
    this.redis = redis;
    this.watchdog = new RedisWatchdog(redis, (err) => this.onError(err), options.watchdog);
  }

  /** Resolves once connected; rejects after `timeoutMs` so a wrong URL fails at boot. */
  async waitUntilReady(timeoutMs: number): Promise<void> {
    const redis = this.redis;
    if (redis.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        redis.off("ready", onReady);
        const reason = this.lastError ? `: ${this.lastError.message}` : "";
        reject(new Error(`Redis at ${describeTarget(this.target)} did not answer within ${timeoutMs} ms${reason}`, { cause: this.lastError }));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      redis.once("ready", onReady);
    });
  }

  get(key: string): Promise<string | null> {
    return this.run(() => this.redis.get(key));
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    if (!this.cluster) return this.run(() => this.redis.mget(...keys));
    // One MGET per slot, in parallel; the answers put back in the order asked.
    const values: (string | null)[] = new Array(keys.length).fill(null);
    await Promise.all(
      groupBySlot(keys).map(async (positions) => {
        const found = await this.run(() => this.redis.mget(...positions.map((i) => keys[i])));
        positions.forEach((at, j) => (values[at] = found[j]));
      }),
    );
    return values;
  }

  async set(key: string, value: string, ttlSec: number): Promise<void> {
    assertPositiveInteger("ttlSec", ttlSec);
    await this.run(() => this.redis.set(key, value, "EX", ttlSec));
  }

  async setMany(entries: CacheEntry[], alsoRead: readonly string[] = []): Promise<(string | null)[]> {
    for (const e of entries) assertPositiveInteger("ttlSec", e.ttlSec);
    if (entries.length === 0 && alsoRead.length === 0) return [];
    // GETs then SETs in one script: atomic, one round trip, any Redis version (SET … GET needs 6.2).
    const keys = [...entries.map((e) => e.key), ...alsoRead];
    this.assertOneSlot(keys);
    const args = [entries.length, ...entries.flatMap((e) => [e.value, e.ttlSec])];
    return this.run(() => this.redis.cacheSetMany(keys.length, ...keys, ...args));
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const groups = this.cluster ? groupBySlot(keys).map((g) => g.map((i) => keys[i])) : [keys];
    await Promise.all(groups.map((group) => this.run(() => this.redis.del(...group))));
  }

  async deleteIfEquals(key: string, expected: string): Promise<boolean> {
    return (await this.run(() => this.redis.cacheDeleteIfEquals(key, expected))) === 1;
  }

  async replaceIfEquals(guardKey: string, expected: string, entries: CacheEntry[]): Promise<boolean> {
    for (const e of entries) assertPositiveInteger("ttlSec", e.ttlSec);
    const keys = [guardKey, ...entries.map((e) => e.key)];
    this.assertOneSlot(keys);
    const args = [expected, ...entries.flatMap((e) => [e.value, e.ttlSec])];
    return (await this.run(() => this.redis.cacheReplaceIfEquals(keys.length, ...keys, ...args))) === 1;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertPositiveInteger("ttlMs", ttlMs);
    return (await this.run(() => this.redis.set(key, value, "PX", ttlMs, "NX"))) === "OK";
  }

  async increment(key: string, windowSec: number): Promise<{ count: number; resetInMs: number }> {
    assertPositiveInteger("windowSec", windowSec);
    const [count, ttl] = await this.run(() => this.redis.cacheIncrement(key, windowSec * 1000));
    // PTTL can round down to 0 in the key's last millisecond; the window has not reset yet.
    return { count, resetInMs: Math.max(ttl, 1) };
  }

  async ttlMs(key: string): Promise<number | null> {
    const ttl = await this.run(() => this.redis.pttl(key));
    if (ttl === -2) return null;
    // -1: a key without expiry, which this adapter never writes; report it as living forever.
    return ttl === -1 ? Number.POSITIVE_INFINITY : ttl;
  }

  async ping(): Promise<void> {
    await this.run(() => this.redis.ping());
  }

  async close(): Promise<void> {
    this.watchdog.stop();
    if (this.redis.status === "end") return;
    if (this.redis.status === "ready") {
      try {
        await this.redis.quit();
        return;
      } catch {
        // fall through: drop the connection without waiting
      }
    }
    this.redis.disconnect();
  }

  private assertOneSlot(keys: readonly string[]): void {
    if (this.cluster && groupBySlot(keys).length > 1) throw new CrossSlotWriteError(keys);
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    const connection = this.connection();
    try {
      // While the watchdog finds Redis silent, fail at once; a command in flight fails at its verdict.
      if (this.watchdog.silent) throw new Error("Redis is silent (no answer to the watchdog's PING)");
      return await this.watchdog.failedOnSilence(command());
    } catch (err) {
      // A reply error is Redis answering (e.g. WRONGTYPE): a bug, not an outage.
      // (CLUSTERDOWN, TRYAGAIN and LOADING are Redis saying it cannot serve yet: an outage.)
      if (err instanceof Error && err.name === "ReplyError" && !/^(CLUSTERDOWN|TRYAGAIN|LOADING)\b/.test(err.message)) throw err;
      if (err instanceof Error && err.message === COMMAND_TIMED_OUT) this.reconnectAfterTimeout(connection);
      throw new AppError("service_unavailable", { message: "The cache is unavailable; retry later", cause: err });
    }
  }

  /**
   * A command that timed out stays in ioredis's queue waiting for its reply. If that reply never
   * comes (the bytes were lost with a broken path), every later reply would be matched to the
   * wrong command or never arrive, so the connection is replaced rather than trusted again: its
   * queue fails at once and the next commands go to a fresh connection. Only the connection the
   * command went out on is replaced, never one that has since taken its place.
   */
  private reconnectAfterTimeout(connection: unknown): void {
    if (this.redis.status === "ready" && this.connection() === connection) this.redis.disconnect(true);
  }

  /** The socket of one Redis; a cluster has one per node and reconnects them as a whole. */
  private connection(): unknown {
    return "stream" in this.redis ? this.redis.stream : this.redis;
  }

  private onError(err: Error): void {
    this.lastError = err;
    const logger = this.options.logger;
    if (!logger) return;
    // ioredis reports every failed reconnect (about once a second); one line per interval is enough.
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) {
      this.suppressedWarnings++;
      return;
    }
    logger.warn({ err, url: describeTarget(this.target), suppressed: this.suppressedWarnings }, "Redis cache connection error");
    this.lastWarnAt = now;
    this.suppressedWarnings = 0;
  }
}


/**
 * The buffered, batched, bounded writer of analytics events. `record` only appends to memory and
 * never waits or throws, so no request is slowed or failed by analytics. A timer writes batches;
 * a batch the store refuses stays at the head of the buffer and is tried again (events have ids,
 * so a batch whose answer was lost is stored once). The buffer is bounded: while the store is out,
 * new events beyond `maxBuffered` are dropped and counted. On shutdown `close` writes what it can
 * within its budget; what is left is counted as dropped (docs/analytics.md states the bound).
 */
import crypto from "node:crypto";
import type { AnalyticsEvent, AnalyticsRecorder, AnalyticsStore } from "../../core/ports/analytics-store";
import type { Logger } from "../../logging/logger";
import { NO_ANALYTICS_COUNTERS, type AnalyticsCounters } from "./analytics-events";

export interface EventWriterOptions {
  /** The most events held in memory (buffer and backlog together). */
  maxBuffered: number;
  /** The most events per store write. */
  batchSize: number;
  /** How often the buffer is written. */
  flushMs: number;
  /** The platform of a player whose event did not say (looked up while writing, never while recording). */
  platformOf?: (userId: string) => Promise<string | undefined>;
  counters?: AnalyticsCounters;
  now?: () => number;
  /**
   * A write not answered within this long counts as failed and is tried again later (its events
   * keep their ids, so one that landed after all is stored once): a store that never answers
   * (blackholed) cannot hold the writer. Default 10 s.
   */
  writeTimeoutMs?: number;
  /** Also given every batch the store accepted (the JSON Lines sink); its failures are logged, not retried. */
  sink?: (events: readonly AnalyticsEvent[]) => Promise<void>;
  /** false: every fact is dropped at once (ANALYTICS_RECORD=false). */
  recording?: boolean;
}

/** Players whose platform this process knows: bounded, the oldest forgotten first. */
const KNOWN_PLATFORMS_MAX = 50_000;
const RETRY_MAX_MS = 30_000;

type Pending = Omit<AnalyticsEvent, "platform"> & { platform: string | undefined };
/** What an event of the player at `at` carries of LiveOps: their variants and the live events active for them. */
export type Stamper = (app: string, userId: string, at: number) => Promise<Pick<AnalyticsEvent, "experiments" | "liveEvents">>;

export class EventWriter implements AnalyticsRecorder {
  private buffer: Pending[] = [];
  private readonly platforms = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private failures = 0;
  private retryAt = 0;
  private readonly counters: AnalyticsCounters;
  private readonly now: () => number;
  private fence: ((userIds: string[]) => Promise<void>) | undefined;
  private stamp: Stamper | undefined;
  /** Events whose stamp was asked (once: a batch retried keeps what it got). */
  private readonly stamped = new WeakSet<Pending>();
  private stampFailures = 0;

  constructor(
    private readonly store: Pick<AnalyticsStore, "append">,
    private readonly logger: Logger,
    private readonly options: EventWriterOptions,
  ) {
    this.counters = options.counters ?? NO_ANALYTICS_COUNTERS;
    this.now = options.now ?? Date.now;
  }

  record(fact: Parameters<AnalyticsRecorder["record"]>[0]): void {
    if (this.options.recording === false) return;
    try {
      if (this.buffer.length >= this.options.maxBuffered) {
        this.counters.dropped("buffer_full", 1);
        return;
      }
      if (fact.platform && fact.userId) this.remember(fact.userId, fact.platform);
      this.buffer.push({
        id: fact.id ?? crypto.randomUUID(),
        name: fact.name,
        app: fact.app,
        platform: fact.platform ?? (fact.userId ? this.platforms.get(fact.userId) : "unknown"),
        userId: fact.userId,
        at: fact.at ?? new Date(this.now()).toISOString(),
        props: fact.props ? safeKeys(fact.props) : {},
        experiments: {},
        liveEvents: [],
      });
      this.counters.recorded(1);
      this.counters.setBacklog(this.buffer.length);
    } catch (err) {
      // Analytics must never fail the request that caused it.
      this.logger.warn({ err, event: "analytics_record_failed" }, "an analytics event could not be recorded");
    }
  }

  /** Events waiting in this process. */
  get backlog(): number {
    return this.buffer.length;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  /** Writes what is buffered, batch by batch, until empty or a write fails; one flush at a time. */
  flush(): Promise<void> {
    this.writing ??= this.writeAll().finally(() => (this.writing = undefined));
    return this.writing;
  }

  /** Forgets a player's buffered events (an erase): they are never written. */
  /**
   * Checked after every batch lands with the batch's players: an erase may have begun on another
   * process while this one held their events, and removes them here (the per-player write fence of
   * docs/economy.md). A failure is logged; the erase sweep's reruns remove what is left.
   */
  fenceWith(fence: (userIds: string[]) => Promise<void>): void {
    this.fence = fence;
  }

  /**
   * Stamps each event of a player, while it is written, with their experiment variants and the live
   * events active for them at its `at` (LiveOps: event-stamps.ts). A stamp that cannot be read (the
   * LiveOps store out) leaves the event's empty: analytics never waits on it.
   */
  stampWith(stamp: Stamper): void {
    this.stamp = stamp;
  }

  forget(userId: string): void {
    this.buffer = this.buffer.filter((e) => e.userId !== userId);
    this.platforms.delete(userId);
    this.counters.setBacklog(this.buffer.length);
  }

  /** Stops the timer and writes what it can within `budgetMs`; the rest is counted as dropped. */
  async close(budgetMs = 5_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + budgetMs;
    this.retryAt = 0;
    while (this.buffer.length > 0 && Date.now() < deadline) {
      const before = this.failures;
      await Promise.race([this.flush(), new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref())]);
      if (this.failures > before) break;
    }
    if (this.buffer.length > 0) {
      this.counters.dropped("shutdown", this.buffer.length);
      this.logger.warn({ event: "analytics_events_lost", count: this.buffer.length }, "analytics events still buffered at shutdown were not written");
      this.buffer = [];
      this.counters.setBacklog(0);
    }
  }

  private async writeAll(): Promise<void> {
    if (this.now() < this.retryAt) return;
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.options.batchSize);
      try {
        const events = await this.completed(batch);
        await withTimeout(this.store.append(events), this.options.writeTimeoutMs ?? 10_000);
      } catch (err) {
        this.failures++;
        this.counters.writeFailed();
        // Backs off while the store is out, so a dead store is not asked on every tick.
        this.retryAt = this.now() + Math.min(RETRY_MAX_MS, this.options.flushMs * 2 ** Math.min(this.failures, 10));
        if (this.failures === 1 || this.failures % 100 === 0) this.logger.warn({ err, event: "analytics_write_failed", backlog: this.buffer.length, failures: this.failures }, "analytics events could not be written; kept and retried");
        return;
      }
      this.failures = 0;
      if (this.fence) {
        const users = [...new Set(batch.map((e) => e.userId).filter((id): id is string => typeof id === "string"))];
        await this.fence(users).catch((err) => this.logger.warn({ err, event: "analytics_erase_fence_failed" }, "could not check the batch's players against erases; the erase sweep removes what is left"));
      }
      // Only the events written leave: forget() may have removed some of the batch meanwhile.
      if (batch.every((e, i) => this.buffer[i] === e)) this.buffer.splice(0, batch.length);
      else this.buffer = this.buffer.filter((e) => !batch.includes(e));
      this.counters.written(batch.length);
      this.counters.setBacklog(this.buffer.length);
      if (this.options.sink) await this.options.sink(batch as AnalyticsEvent[]).catch((err) => this.logger.warn({ err, event: "analytics_sink_failed", count: batch.length }, "analytics events could not be written to the JSON Lines sink"));
    }
  }

  /** The batch with every event's platform and stamp filled in. */
  private async completed(batch: Pending[]): Promise<AnalyticsEvent[]> {
    for (const event of batch) {
      if (event.platform === undefined) event.platform = (event.userId && (this.platforms.get(event.userId) ?? (await this.lookUp(event.userId)))) || "unknown";
      if (this.stamp && event.userId && !this.stamped.has(event)) {
        this.stamped.add(event);
        try {
          Object.assign(event, await this.stamp(event.app, event.userId, Date.parse(event.at)));
        } catch (err) {
          if (this.stampFailures++ % 1000 === 0) this.logger.warn({ err, event: "analytics_stamp_failed" }, "an event's experiments and live events could not be read; written without them");
        }
      }
    }
    return batch as AnalyticsEvent[];
  }

  private async lookUp(userId: string): Promise<string | undefined> {
    const platform = await this.options.platformOf?.(userId).catch(() => undefined);
    if (platform) this.remember(userId, platform);
    return platform;
  }

  private remember(userId: string, platform: string): void {
    if (this.platforms.size >= KNOWN_PLATFORMS_MAX) this.platforms.delete(this.platforms.keys().next().value!);
    this.platforms.set(userId, platform);
  }
}

const SAFE_KEY = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Prop keys every store and a warehouse column can hold: a `.` or `$` is refused by a document
 * store (FerretDB), and one refused event would hold back every batch it is in.
 */
function safeKeys(props: AnalyticsEvent["props"]): AnalyticsEvent["props"] {
  if (Object.keys(props).every((key) => SAFE_KEY.test(key))) return props;
  return Object.fromEntries(Object.entries(props).map(([key, value]) => [key.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 64) || "_", value]));
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the analytics store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

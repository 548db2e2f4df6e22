/**
 * Notices a Redis that went silent (packets dropped or held: no reset, no close) within a second,
 * where TCP would take minutes and a command timeout seconds. Each connection (one, or each node of
 * a cluster) is sent a PING every `probeEveryMs` while ready; one unanswered after `answerWithinMs`,
 * or a connection still not ready that long after it started, is destroyed at once (not ioredis's
 * disconnect, which waits for a FIN a silent peer never sends), so ioredis connects again.
 * From the verdict until every connection answers a PING again, `silent` is true and the owner fails
 * its commands at once; those in flight (failedOnSilence) fail at the verdict, instead of waiting
 * for their timeouts (or, on a cluster, being retried onto another connection that waits too).
 */
import type { Cluster, default as Redis } from "ioredis";
import type { RedisClient } from "./redis-connection";

export interface WatchdogTimings {
  probeEveryMs: number;
  answerWithinMs: number;
}

/** First 503 within probeEveryMs + answerWithinMs of the silence; recovery within about answerWithinMs + a retry. */
export const DEFAULT_WATCHDOG: WatchdogTimings = { probeEveryMs: 100, answerWithinMs: 400 };

interface Watch {
  /** When the unanswered PING went out. */
  probeSentAt?: number;
  /** When the connection was first seen connecting (not yet ready). */
  connectingSince?: number;
}

const CONNECTING = new Set(["connecting", "connect"]);

export class RedisWatchdog {
  private readonly watches = new WeakMap<Redis, Watch>();
  private readonly timer: NodeJS.Timeout;
  /** Between a verdict and every connection answering again: the owner's commands fail at once. */
  silent = false;
  /** Fails each command waiting for its answer at the verdict. */
  private readonly inFlight = new Set<(err: Error) => void>();

  constructor(
    private readonly client: RedisClient,
    /** Told of each verdict (the owner logs it). */
    private readonly report: (err: Error) => void,
    private readonly timings: WatchdogTimings = DEFAULT_WATCHDOG,
  ) {
    this.timer = setInterval(() => this.check(), timings.probeEveryMs);
    this.timer.unref();
    // Probed as soon as it is back, not at the next tick: recovery is part of the second too.
    client.on("ready", () => this.check());
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** `pending`, or its failure as soon as Redis is found silent. */
  failedOnSilence<T>(pending: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.inFlight.add(reject);
      pending.then(
        (value) => {
          this.inFlight.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.inFlight.delete(reject);
          reject(err);
        },
      );
    });
  }

  private declareSilent(address: string, why: string): void {
    const err = new Error(`Redis at ${address} went silent (${why}); connecting again`);
    this.silent = true;
    for (const fail of this.inFlight) fail(err);
    this.inFlight.clear();
    this.report(err);
  }

  private connections(): Redis[] {
    return "nodes" in this.client ? this.client.nodes("all") : [this.client];
  }

  private check(): void {
    const now = Date.now();
    if ("nodes" in this.client) {
      this.checkClusterConnecting(this.client, now);
      // Until the cluster is ready its nodes are its own business (slot map, ready check).
      if (this.client.status !== "ready") return;
    }
    for (const redis of this.connections()) {
      let watch = this.watches.get(redis);
      if (!watch) this.watches.set(redis, (watch = {}));
      // "wait": a cluster's node connection not yet opened (ioredis opens them on first use); the
      // probe opens it, or a cluster that only the watchdog talks to would never be seen answering.
      if (redis.status === "ready" || redis.status === "wait") {
        watch.connectingSince = undefined;
        if (watch.probeSentAt === undefined) this.probe(redis, watch, now);
        else if (now - watch.probeSentAt > this.timings.answerWithinMs) this.judge(redis, watch, "no answer to PING");
      } else if (CONNECTING.has(redis.status)) {
        watch.probeSentAt = undefined;
        watch.connectingSince ??= now;
        if (now - watch.connectingSince > this.timings.answerWithinMs) this.judge(redis, watch, "not ready after connecting");
      } else {
        watch.probeSentAt = undefined;
        watch.connectingSince = undefined;
      }
    }
  }

  /** A cluster's own connect (slot map, ready check) may wait on a silent node as well. */
  private clusterConnectingSince: number | undefined;

  private checkClusterConnecting(cluster: Cluster, now: number): void {
    if (!CONNECTING.has(cluster.status)) {
      this.clusterConnectingSince = undefined;
      return;
    }
    this.clusterConnectingSince ??= now;
    // Its slot map asks each node in turn, within SLOTS_REFRESH_TIMEOUT_MS: a safety net, not the rule.
    if (now - this.clusterConnectingSince <= 2 * this.timings.answerWithinMs) return;
    this.clusterConnectingSince = undefined;
    this.declareSilent("cluster", "not ready after connecting");
    for (const node of cluster.nodes("all")) destroyStream(node);
    cluster.disconnect(true);
  }

  private probe(redis: Redis, watch: Watch, now: number): void {
    watch.probeSentAt = now;
    const settled = (answered: boolean) => {
      if (watch.probeSentAt !== now) return;
      watch.probeSentAt = undefined;
      if (answered && this.silent && this.allAnswering()) this.silent = false;
    };
    redis.ping().then(
      () => settled(true),
      () => settled(false),
    );
  }

  /** Every connection ready with no PING overdue (and a cluster ready as a whole). */
  private allAnswering(): boolean {
    if (this.client.status !== "ready") return false;
    const connections = this.connections();
    return connections.length > 0 && connections.every((redis) => redis.status === "ready" && this.watches.get(redis)?.probeSentAt === undefined);
  }

  /**
   * Decides after this turn's I/O has been read (setImmediate runs after the poll phase): when the
   * event loop itself was stalled, an answer already in the socket is seen before the verdict, so a
   * busy process does not take its own lateness for a silent Redis.
   */
  private judge(redis: Redis, watch: Watch, why: string): void {
    const since = watch.probeSentAt ?? watch.connectingSince;
    setImmediate(() => {
      if ((watch.probeSentAt ?? watch.connectingSince) !== since) return;
      watch.probeSentAt = undefined;
      watch.connectingSince = undefined;
      this.declareSilent(`${redis.options.host ?? ""}:${redis.options.port ?? ""}`, why);
      destroyStream(redis);
      // A cluster reconnects as a whole (slot map first): left to itself it would retry the failed
      // commands on fresh node connections that wait for the silent node just the same.
      if ("nodes" in this.client) {
        for (const node of this.client.nodes("all")) destroyStream(node);
        this.client.disconnect(true);
      }
    });
  }
}

function destroyStream(redis: Redis): void {
  const stream = (redis as unknown as { stream?: { destroy(): void; destroyed: boolean } }).stream;
  if (stream && !stream.destroyed) stream.destroy();
}

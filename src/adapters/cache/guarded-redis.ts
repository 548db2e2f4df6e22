/**
 * A Redis connection that fails fast while Redis is away, with the cache's discipline
 * (redis-cache.ts): after the first connect, commands fail at once while it is disconnected (no
 * offline queue, no retries) and at the watchdog's verdict while it is silent; and a connection on
 * which a command timed out is replaced, because the reply that never came would otherwise leave
 * every later reply matched to the command before it. For the leaderboards' rank index, whose
 * callers answer from the store when it fails.
 */
import { connectRedis, isCluster, type RedisClient, type RedisTarget } from "./redis-connection";
import { RedisWatchdog, type WatchdogTimings } from "./redis-watchdog";

/** ioredis's message when `commandTimeout` expires. */
const COMMAND_TIMED_OUT = "Command timed out";

export interface GuardedRedisOptions {
  keyPrefix: string;
  commandTimeoutMs?: number;
  watchdog?: WatchdogTimings;
}

export class GuardedRedis {
  readonly client: RedisClient;
  private readonly watchdog: RedisWatchdog;

  constructor(target: RedisTarget, options: GuardedRedisOptions) {
    const cluster = isCluster(target);
    // Each command leaves at once, not at the turn's end (redis-turn-writes.ts): 50 concurrent
    // around-me reads then went out together and Redis, the busier side, answered them together, so
    // this process and Redis took turns instead of overlapping: 20–40% fewer reads a second.
    const client = connectRedis(
      target,
      {
        keyPrefix: options.keyPrefix,
        // Queued until the first connect (a one-off tool's first command), failed at once afterwards.
        enableOfflineQueue: true,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        commandTimeout: options.commandTimeoutMs ?? 2000,
        retryStrategy: (attempt) => Math.min(attempt * 50, 100),
        // A command its caller was told failed must not run later behind its back.
        autoResendUnfulfilledCommands: false,
        ...(cluster ? { enableReadyCheck: false } : {}),
      },
      false,
    );
    client.on("error", () => undefined); // failures reach each command's caller
    client.once("ready", () => {
      client.options.enableOfflineQueue = false;
    });
    this.client = client;
    this.watchdog = new RedisWatchdog(client, () => undefined, options.watchdog);
  }

  async run<T>(command: (redis: RedisClient) => Promise<T>): Promise<T> {
    const connection = this.connection();
    if (this.watchdog.silent) throw new Error("Redis is silent (no answer to the watchdog's PING)");
    try {
      return await this.watchdog.failedOnSilence(command(this.client));
    } catch (err) {
      if (err instanceof Error && err.message === COMMAND_TIMED_OUT && this.client.status === "ready" && this.connection() === connection) {
        this.client.disconnect(true);
      }
      throw err;
    }
  }

  close(): void {
    this.watchdog.stop();
    this.client.disconnect();
  }

  /** The socket of one Redis; a cluster has one per node and reconnects them as a whole. */
  private connection(): unknown {
    return "stream" in this.client ? this.client.stream : this.client;
  }
}

/**
 * Colyseus's Redis presence and driver, with their connections' "error" events handled. Without a
 * listener, ioredis prints "[ioredis] Unhandled error event" with a stack to stderr on every
 * reconnect attempt while Redis is away: dozens of lines a second. The outage is already reported
 * (throttled) by the cache adapter, which talks to the same Redis, and these clients reconnect
 * by themselves.
 *
 * Their keys (`roomcaches`, presence hashes and lists) live under the same CACHE_KEY_PREFIX as the
 * cache's: without it, two deployments sharing one Redis (staging and production, two games, two
 * test runs) would list each other's rooms and matchmake players into seats that no process of
 * theirs holds. Pub/sub channel names are not prefixed by ioredis, on either side; room channels are
 * random ids and session-end messages name user ids, so they cannot be mistaken across deployments.
 */
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import type { RedisOptions } from "ioredis";
import type { EventEmitter } from "node:events";

const ignore = () => undefined;

class QuietRedisPresence extends RedisPresence {
  constructor(options: RedisOptions) {
    super(options);
    this.pub.on("error", ignore);
    this.sub.on("error", ignore);
    // No ready check (INFO) on the subscriber connection, read by ioredis when the socket connects.
    // Colyseus and the session guard subscribe at boot, and ioredis 5.8.2+ writes a SUBSCRIBE issued
    // while connecting at once: the INFO after it was refused in subscriber mode, which now and then
    // failed the boot (redis/ioredis#2037, fixed in ioredis 6). A subscriber needs no such check:
    // SUBSCRIBE is served even while Redis is still loading its data, which is what INFO waits out.
    this.sub.options.enableReadyCheck = false;
  }
}

/**
 * Options instead of the URL, because only options can carry a key prefix. An options object, not an
 * ioredis instance: the Colyseus packages bundle their own ioredis and would not recognise ours.
 */
export function colyseusRedisOptions(url: string, keyPrefix: string): RedisOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    keyPrefix,
  };
}

export function createColyseusRedis(url: string, keyPrefix: string): { presence: RedisPresence; driver: RedisDriver } {
  const options = colyseusRedisOptions(url, keyPrefix);
  const driver = new RedisDriver(options);
  // The driver keeps its client private; the field name is checked by the fault test's log check.
  (driver as unknown as { _client: EventEmitter })._client.on("error", ignore);
  return { presence: new QuietRedisPresence(options), driver };
}

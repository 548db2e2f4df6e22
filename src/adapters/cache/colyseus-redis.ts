/**
 * Colyseus's Redis presence and driver, with their connections' "error" events handled. Without a
 * listener, ioredis prints "[ioredis] Unhandled error event" with a stack to stderr on every
 * reconnect attempt while Redis is away: dozens of lines a second. The outage is already reported
 * (throttled) by the cache adapter, which talks to the same Redis, and these clients reconnect
 * by themselves.
 */
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import type { EventEmitter } from "node:events";

const ignore = () => undefined;

class QuietRedisPresence extends RedisPresence {
  constructor(url: string) {
    super(url);
    this.pub.on("error", ignore);
    this.sub.on("error", ignore);
  }
}

export function createColyseusRedis(url: string): { presence: RedisPresence; driver: RedisDriver } {
  const driver = new RedisDriver(url);
  // The driver keeps its client private; the field name is checked by the fault test's log check.
  (driver as unknown as { _client: EventEmitter })._client.on("error", ignore);
  return { presence: new QuietRedisPresence(url), driver };
}

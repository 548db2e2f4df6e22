import type { AppConfig } from "../../config/config";
import type { Cache } from "../../core/ports/cache";
import { MemoryCache } from "./memory-cache";
import { RedisCache, type CacheLogger } from "./redis-cache";

const FIRST_CONNECT_WAIT_MS = 5000;

/**
 * Builds the configured cache. The prefix applies to Redis only: the memory cache is private to
 * this process, so there is nothing to share a namespace with.
 * For Redis it waits for the first connection so a wrong URL or a down server fails the boot.
 */
export async function createCache(config: AppConfig["cache"], prefix: string, logger?: CacheLogger): Promise<Cache> {
  if (config.kind === "memory") return new MemoryCache({ logger });
  const cache = new RedisCache(config.kind === "redis" ? config.url : { nodes: config.nodes }, { keyPrefix: prefix, logger });
  try {
    await cache.waitUntilReady(FIRST_CONNECT_WAIT_MS);
  } catch (err) {
    await cache.close();
    throw err;
  }
  return cache;
}

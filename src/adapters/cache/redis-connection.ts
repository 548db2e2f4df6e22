/**
 * One Redis or a Redis Cluster, as the same ioredis command surface. A cluster is named by seed
 * nodes (`redis://host:port`, credentials and TLS taken from the first); ioredis discovers the rest
 * and follows MOVED/ASK redirections.
 */
import Redis, { Cluster, type RedisOptions } from "ioredis";
import { batchRedisWritesPerTurn } from "./redis-turn-writes";

const SLOTS_REFRESH_TIMEOUT_MS = 250;

/** A Redis URL, or the seed nodes of a cluster. */
export type RedisTarget = string | { readonly nodes: readonly string[] };

export type RedisClient = Redis | Cluster;

export function isCluster(target: RedisTarget): target is { readonly nodes: readonly string[] } {
  return typeof target !== "string";
}

/** host and port of a `redis://host:port` node URL. */
export function nodeAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ""), port: parsed.port ? Number(parsed.port) : 6379 };
}

/** Credentials, database and TLS of a Redis URL as ioredis options. */
export function urlOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * Connects to `target`. `options` are per-connection options; for a cluster they apply to each
 * node's connection, except those ioredis keeps at the cluster level (key prefix, offline queue,
 * retry strategy), which are moved there. The commands of one event-loop turn leave in one write
 * (redis-turn-writes.ts) unless `batchWritesPerTurn` is false.
 */
export function connectRedis(target: RedisTarget, options: RedisOptions, batchWritesPerTurn = true): RedisClient {
  const client = openRedis(target, options);
  if (batchWritesPerTurn) batchRedisWritesPerTurn(client);
  return client;
}

function openRedis(target: RedisTarget, options: RedisOptions): RedisClient {
  if (!isCluster(target)) return new Redis(target, options);
  const { keyPrefix, enableOfflineQueue, retryStrategy, enableReadyCheck, ...perNode } = options;
  const { db: _db, ...credentials } = urlOptions(target.nodes[0]); // a cluster has database 0 only
  return new Cluster(target.nodes.map(nodeAddress), {
    keyPrefix,
    enableOfflineQueue,
    enableReadyCheck,
    clusterRetryStrategy: retryStrategy,
    redisOptions: { ...perNode, ...credentials },
    // One slot-map refresh at a time, bounded: a node that is away must not stall the others, nor
    // keep a cluster that answers again from reconnecting within the second (redis-watchdog.ts).
    slotsRefreshTimeout: SLOTS_REFRESH_TIMEOUT_MS,
  });
}

/** Where a target points, without credentials, for log lines. */
export function describeTarget(target: RedisTarget): string {
  const redact = (url: string) => {
    try {
      const parsed = new URL(url);
      if (parsed.password) parsed.password = "***";
      return parsed.toString();
    } catch {
      return "(unparseable Redis URL)";
    }
  };
  return isCluster(target) ? `cluster ${target.nodes.map(redact).join(",")}` : redact(target);
}

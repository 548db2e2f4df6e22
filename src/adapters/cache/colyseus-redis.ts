/**
 * Colyseus's Redis presence and driver, on one Redis or a Redis Cluster, with their connections'
 * "error" events handled. Without a listener, ioredis prints "[ioredis] Unhandled error event" with
 * a stack to stderr on every reconnect attempt while Redis is away: dozens of lines a second. The
 * outage is already reported (throttled) by the cache adapter, which talks to the same Redis, and
 * these clients reconnect by themselves, quickly (at most a second apart), so a host that was cut off
 * is back soon after its network is.
 *
 * Their keys (`roomcaches`, presence hashes and lists) live under the same CACHE_KEY_PREFIX as the
 * cache's: without it, two deployments sharing one Redis (staging and production, two games, two
 * test runs) would list each other's rooms and matchmake players into seats that no process of
 * theirs holds. Pub/sub channel names are not prefixed by ioredis, on either side; room channels are
 * random ids and session-end messages name user ids, so they cannot be mistaken across deployments.
 */
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import type { EventEmitter } from "node:events";
import type { AppConfig } from "../../config/config";
import { nodeAddress, urlOptions } from "./redis-connection";
import { batchRedisWritesPerTurn } from "./redis-turn-writes";

const ignore = () => undefined;
const CONNECT_TIMEOUT_MS = 2000;
/** Reconnect attempts at most a second apart (ioredis's default backs off to 2 s). */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1000);

type SharedCache = Extract<AppConfig["cache"], { kind: "redis" | "redis-cluster" }>;
/** What RedisPresence and RedisDriver take: options of one Redis, or cluster nodes and options. */
type ConnectionArgs = [RedisOptions] | [Array<{ host: string; port: number }>, ClusterOptions];

/** Something with a connection that can be dropped and reopened. */
interface Reconnectable extends EventEmitter {
  disconnect(reconnect?: boolean): void;
}

class QuietRedisPresence extends RedisPresence {
  constructor(...args: ConnectionArgs) {
    super(...(args as [RedisOptions]));
    this.pub.on("error", ignore);
    this.sub.on("error", ignore);
    batchRedisWritesPerTurn(this.pub);
    // No ready check (INFO) on the subscriber connection, read by ioredis when the socket connects.
    // Colyseus and the session guard subscribe at boot, and ioredis 5.8.2+ writes a SUBSCRIBE issued
    // while connecting at once: the INFO after it was refused in subscriber mode, which now and then
    // failed the boot (redis/ioredis#2037, fixed in ioredis 6). A subscriber needs no such check:
    // SUBSCRIBE is served even while Redis is still loading its data, which is what INFO waits out.
    // (A cluster's subscriber is a node connection of its own, made without that race.)
    if (args.length === 1) this.sub.options.enableReadyCheck = false;
  }

  connections(): Reconnectable[] {
    return [this.pub, this.sub];
  }
}

/** A room listing as the driver keeps it (Colyseus 0.18's IRoomCache: a plain record). */
type RoomListing = Parameters<RedisDriver["persist"]>[0];

/**
 * The driver, remembering the room listings this process created: when another process wrongly
 * unlisted them (this one was cut off or slow), host-health.ts writes them back. A room creates its
 * listing with `persist(listing, true)` (or `insert`), keeps that same object up to date through
 * `update`, and removes it with `remove(roomId)`.
 */
export class ListingRedisDriver extends RedisDriver {
  private readonly own = new Map<string, RoomListing>();

  constructor(...args: ConnectionArgs) {
    super(...(args as [RedisOptions]));
    const client = (this as unknown as { _client: Redis | Cluster })._client;
    client.on("error", ignore);
    batchRedisWritesPerTurn(client);
  }

  override async persist(listing: RoomListing, create = false): Promise<boolean> {
    if (create && listing.roomId) this.own.set(listing.roomId, listing);
    return super.persist(listing, create);
  }

  override async remove(roomId: string): Promise<boolean> {
    this.own.delete(roomId);
    return super.remove(roomId);
  }

  /** Listings of this process's rooms, each able to write itself back. */
  ownListings(): Array<{ roomId: string; processId: string; save(): Promise<unknown> }> {
    return [...this.own.values()].map((listing) => ({ roomId: listing.roomId, processId: listing.processId, save: () => super.persist(listing) }));
  }

  /** The driver's connection; the field name is checked by the fault test's log check. */
  connection(): Reconnectable {
    return (this as unknown as { _client: Reconnectable })._client;
  }
}

/**
 * Options instead of the URL, because only options can carry a key prefix. An options object, not an
 * ioredis instance: a Colyseus package bundling its own ioredis would not recognise ours.
 */
export function colyseusRedisOptions(url: string, keyPrefix: string): RedisOptions {
  return {
    ...nodeAddress(url),
    ...urlOptions(url),
    keyPrefix,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy,
  };
}

function connectionArgs(cache: SharedCache, keyPrefix: string): ConnectionArgs {
  if (cache.kind === "redis") return [colyseusRedisOptions(cache.url, keyPrefix)];
  const { db: _db, ...credentials } = urlOptions(cache.nodes[0]);
  return [
    cache.nodes.map(nodeAddress),
    { keyPrefix, clusterRetryStrategy: retryStrategy, slotsRefreshTimeout: CONNECT_TIMEOUT_MS, redisOptions: { ...credentials, connectTimeout: CONNECT_TIMEOUT_MS } },
  ];
}

export interface ColyseusRedis {
  presence: RedisPresence;
  driver: ListingRedisDriver;
  /** Drops and reopens every connection: for a connection the network silently lost. */
  reconnect(): void;
}

export function createColyseusRedis(cache: SharedCache, keyPrefix: string): ColyseusRedis {
  const args = connectionArgs(cache, keyPrefix);
  const driver = new ListingRedisDriver(...args);
  const presence = new QuietRedisPresence(...args);
  const connections = () => [presence.connections(), driver.connection()].flat();
  return { presence, driver, reconnect: () => connections().forEach((c) => c.disconnect(true)) };
}

/** A presence of its own, for operator commands that only publish (npm run admin). */
export function createColyseusPresence(cache: SharedCache, keyPrefix: string): RedisPresence {
  return new QuietRedisPresence(...connectionArgs(cache, keyPrefix));
}

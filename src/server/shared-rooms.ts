/**
 * The presence wiring: with shared Redis (one or a cluster), Colyseus's presence and driver on it,
 * and the dead/returning host checks beside them (host-health.ts); alone, Colyseus's in-process
 * defaults and nothing to check.
 */
import type { Presence } from "@colyseus/core";
import type { AppConfig } from "../config/config";
import { createColyseusRedis } from "../adapters/cache/colyseus-redis";
import type { Logger } from "../logging/logger";
import { effectivePresenceTimeoutMs } from "./colyseus-environment";
import { HostHealth } from "./host-health";

export interface SharedRooms {
  /** Server options: presence and driver, or none (Colyseus's local ones). */
  serverOptions: { presence?: Presence; driver?: ReturnType<typeof createColyseusRedis>["driver"] };
  /** Starts the host checks once the game server is defined. */
  start(): void;
  /** Before Colyseus unlists this process at shutdown, so the checks never list it again. */
  stop(): void;
}

export function createSharedRooms(settings: AppConfig, logger: Logger): SharedRooms {
  if (settings.cache.kind === "memory") return { serverOptions: {}, start: () => undefined, stop: () => undefined };
  // Pass options, not an ioredis instance: a Colyseus package bundling its own ioredis would ignore ours.
  const redis = createColyseusRedis(settings.cache, settings.cacheKeyPrefix);
  let health: HostHealth | undefined;
  return {
    serverOptions: { presence: redis.presence, driver: redis.driver },
    start() {
      const presenceTimeoutMs = effectivePresenceTimeoutMs();
      if (presenceTimeoutMs !== settings.colyseus.presenceRequestTimeoutMs) {
        // Colyseus was loaded before the settings were handed to it (a test booting in-process).
        logger.warn({ configured: settings.colyseus.presenceRequestTimeoutMs, effective: presenceTimeoutMs }, "PRESENCE_REQUEST_TIMEOUT_MS not in effect");
      }
      health = new HostHealth({
        intervalMs: settings.hostCheckIntervalMs,
        presenceTimeoutMs,
        logger,
        ownListings: () => redis.driver.ownListings(),
        reconnect: redis.reconnect,
      });
      health.start();
    },
    stop: () => health?.stop(),
  };
}

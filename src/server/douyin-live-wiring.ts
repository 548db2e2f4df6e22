/**
 * Douyin live-stream games' part of the composition root (docs/douyin-live.md): the gift ledger on
 * the configured database, the intake and sessions on the default app's Douyin credentials and
 * token, the sweep and failed-data poll timers. Room delivery is connected once the game server has
 * its presence (app.config.ts → rooms/DouyinLiveRoom.ts).
 */
import promClient from "prom-client";
import { createLiveGiftLedger } from "../adapters/store/create-live-gift-ledger";
import type { Cache } from "../core/ports/cache";
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import { DEFAULT_APP } from "../core/apps";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { LIVE_MSG_TYPES } from "../platforms/douyin/douyin-live";
import { DouyinLiveClient } from "../platforms/douyin/douyin-live-client";
import { LiveIntake } from "../services/douyin-live/live-intake";
import { DouyinLiveMonitor } from "../services/douyin-live/live-monitor";
import type { LiveRoomDelivery, LiveRoomMessage } from "../services/douyin-live/live-ports";
import { DouyinLiveSessions } from "../services/douyin-live/live-sessions";
import type { PlatformTokenService } from "../services/platform-token-service";

import type { DouyinLiveServices } from "../services/service-groups";
export type { DouyinLiveServices };

export interface DouyinLiveWiringInput {
  config: AppConfig;
  apps: readonly AppSettings[];
  cache: Cache;
  tokens: PlatformTokenService;
  logger: Logger;
  metrics: Metrics;
  /** The embedded simulator's URL, where Douyin's live side is simulated too. */
  simulatorUrl?: string;
  now?: () => number;
}

export async function buildDouyinLive(input: DouyinLiveWiringInput): Promise<DouyinLiveServices | undefined> {
  const { config, cache, logger } = input;
  const live = config.douyinLive;
  const settings = input.apps.find((a) => a.key === DEFAULT_APP)?.platforms.douyin;
  if (!live.enabled || !settings) return undefined;
  const ledger = await createLiveGiftLedger(config.store);
  let publish: ((liveRoomId: string, messages: LiveRoomMessage[]) => Promise<void>) | undefined;
  const delivery: LiveRoomDelivery = {
    deliver: async (liveRoomId, messages) => {
      if (!publish) throw new Error("the game server is not up yet");
      await publish(liveRoomId, messages);
    },
  };
  const dropped = new promClient.Counter({
    name: "douyin_live_messages_dropped_total",
    help: "Douyin live messages not delivered by this process: duplicates by msg_id, no game room in time, queue full (gifts stay in the ledger)",
    labelNames: ["reason", "type"] as const,
    registers: [input.metrics.registry],
  });
  const deps = { settings, timeoutMs: config.platformTimeoutMs, busyRetries: 0, logger };
  const client = new DouyinLiveClient(deps, live.apiBaseUrl ?? input.simulatorUrl);
  const withToken = <T>(call: (accessToken: string) => Promise<T>) => input.tokens.withPlatformToken("douyin", DEFAULT_APP, call);
  const monitor = new DouyinLiveMonitor(cache, ledger, client, withToken, logger, input.now);
  const intake = new LiveIntake(ledger, cache, delivery, logger, {
    pendingMs: live.pendingMs,
    maxQueued: 20_000,
    redeliverAfterMs: 10_000,
    seenTtlMs: 600_000,
    now: input.now,
    dropped: (reason, type, n) => dropped.inc({ reason, type }, n),
    counted: (liveRoomId, messages) => monitor.count(liveRoomId, messages),
  });
  const msgTypes = LIVE_MSG_TYPES.filter((t) => live.secrets[t]);
  const sessions = new DouyinLiveSessions(
    client,
    withToken,
    ledger,
    intake,
    cache,
    logger,
    { msgTypes, topGiftIds: live.topGiftIds, bindingTtlMs: 30_000, failedDataPageSize: 100, listing: monitor },
    input.now,
  );
  const watched = new Set<string>();
  const sweep = setInterval(() => void intake.sweep().catch((err: unknown) => logger.warn({ err }, "douyin live: sweep failed")), 5000);
  const poll = setInterval(() => {
    for (const room of watched) void sessions.pollFailedData(room).catch((err: unknown) => logger.warn({ err, liveRoomId: room }, "douyin live: failed-data query failed; next poll retries"));
  }, live.failedDataPollMs);
  sweep.unref();
  poll.unref();
  return {
    intake,
    sessions,
    monitor,
    pushPath: live.pushPath,
    secrets: live.secrets,
    connectRooms: (fn) => void (publish = fn),
    watch: (room) => void watched.add(room),
    unwatch: (room) => void watched.delete(room),
    close: async () => {
      clearInterval(sweep);
      clearInterval(poll);
      await ledger.close();
    },
  };
}

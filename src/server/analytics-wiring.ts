/**
 * Analytics' part of the composition root (container.ts): the store on the configured database,
 * the buffered writer every service records through, the reports, and the periodic rollup of the
 * last days (docs/analytics.md).
 */
import { createAnalyticsStore } from "../adapters/store/create-analytics-store";
import { jsonLinesSink } from "../adapters/analytics/jsonl-sink";
import type { AppConfig } from "../config/config";
import { parseIdentityNamespace } from "../core/apps";
import type { AnalyticsStore } from "../core/ports/analytics-store";
import type { ErasureMarks } from "../core/ports/erasure-marks";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { analyticsMetrics } from "./analytics-metrics";
import { AnalyticsReports } from "../services/analytics/analytics-reports";
import { ClientEvents } from "../services/analytics/client-events";
import { EventWriter } from "../services/analytics/event-writer";
import { ExperimentResults, type ExperimentSource } from "../services/analytics/experiment-results";
import { RollupService } from "../services/analytics/rollup-service";
import { addDays } from "../services/analytics/zoned-days";
import { RoomSessions } from "../services/analytics/room-sessions";

import type { AnalyticsServices } from "../services/service-groups";
export type { AnalyticsServices };

/** Days before today the periodic rollup redoes at least: late events of these days are counted. */
const RECENT_DAYS = 2;

/** As many days back as a client event's `at` may be, so each accepted one is counted by the servers. */
export function recentDays(clientEventPastMs: number): number {
  return Math.max(RECENT_DAYS, Math.ceil(clientEventPastMs / 86_400_000));
}
const BATCH_SIZE = 500;

/** The events of those among `userIds` whose erase has begun are removed (the writer's fence). */
export async function eraseMarkedEvents(store: Pick<AnalyticsStore, "eraseUser">, erasures: Pick<ErasureMarks, "markedAmong">, userIds: string[]): Promise<void> {
  // One read for the batch's players: a point read each cost a new-player login 0.3 ms of CPU (bench --analytics-ab).
  await Promise.all((await erasures.markedAmong(userIds)).map((userId) => store.eraseUser(userId)));
}

export async function buildAnalytics(input: { config: AppConfig; users: Pick<UserStore, "listIdentities">; logger: Logger; metrics: Metrics; now?: () => number }): Promise<AnalyticsServices> {
  const { config, logger } = input;
  const settings = config.analytics;
  const store = await createAnalyticsStore(config.store, { shareSqlite: true });
  const counters = analyticsMetrics(input.metrics.registry);
  const writer = new EventWriter(store, logger, {
    maxBuffered: settings.bufferMax,
    batchSize: BATCH_SIZE,
    flushMs: settings.flushMs,
    counters,
    now: input.now,
    sink: settings.jsonLines ? jsonLinesSink(settings.jsonLines) : undefined,
    recording: settings.record,
    platformOf: async (userId) => {
      const [first] = await input.users.listIdentities(userId);
      return first ? parseIdentityNamespace(first.platform).platform : "account";
    },
  });
  const rollups = new RollupService(store, { timeZone: settings.timeZone, eventRetentionDays: settings.eventRetentionDays, now: input.now });
  let timer: NodeJS.Timeout | undefined;
  const rollUpRecent = async () => {
    const today = rollups.today();
    try {
      await rollups.rollup(addDays(today, -recentDays(settings.clientEventPastMs)), today);
    } catch (err) {
      logger.warn({ err, event: "analytics_rollup_failed" }, "the periodic analytics rollup failed; the next one tries again");
    }
    try {
      const deleted = await rollups.prune();
      if (deleted > 0) logger.info({ event: "analytics_events_pruned", count: deleted, retentionDays: settings.eventRetentionDays }, "analytics events past the retention period deleted");
    } catch (err) {
      logger.warn({ err, event: "analytics_prune_failed" }, "could not delete analytics events past the retention period; the next rollup tries again");
    }
  };
  const services: AnalyticsServices = {
    store,
    writer,
    rollups,
    reports: new AnalyticsReports(store),
    clientEvents: new ClientEvents(writer, { pastMs: settings.clientEventPastMs, counters, now: input.now }),
    counters,
    roomSessions: new RoomSessions(writer, input.now),
    joinLiveOps(source, stamper) {
      services.experiments = new ExperimentResults(store, source, { timeZone: settings.timeZone, now: input.now });
      writer.stampWith(stamper);
    },
    start() {
      writer.start();
      if (settings.rollupMinutes > 0 && !timer) {
        timer = setInterval(() => void rollUpRecent(), settings.rollupMinutes * 60_000);
        timer.unref();
      }
    },
    async close() {
      if (timer) clearInterval(timer);
      await writer.close();
      await store.close();
    },
  };
  return services;
}

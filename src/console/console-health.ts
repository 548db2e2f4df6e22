/**
 * The health screen's facts: the processes (every host's with shared Redis), rooms and players per
 * room type and process, login and error counts from this process's metrics, order states and the
 * reconciler's last sweeps. Read-only; nothing here is a secret.
 */
import os from "node:os";
import { matchMaker } from "@colyseus/core";
import type { Services } from "../services/services";

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
}

async function metricValues(services: Services, name: string): Promise<MetricValue[]> {
  const metric = services.metrics.registry.getSingleMetric(name);
  if (!metric) return [];
  return ((await metric.get()).values ?? []) as MetricValue[];
}

export async function consoleHealth(services: Services) {
  const uptimeSec = process.uptime();
  const [processes, listings, logins, requests, orderStates] = await Promise.all([
    matchMaker.stats.fetchAll().catch(() => []),
    matchMaker.query({}).catch(() => []),
    metricValues(services, "logins_total"),
    metricValues(services, "http_requests_total"),
    services.payments.ledger.countByState().catch(() => []),
  ]);
  const rooms = new Map<string, { name: string; processId: string; rooms: number; players: number }>();
  for (const listing of listings) {
    const k = `${listing.name}\0${listing.processId}`;
    const row = rooms.get(k) ?? { name: listing.name, processId: listing.processId, rooms: 0, players: 0 };
    row.rooms += 1;
    row.players += listing.clients;
    rooms.set(k, row);
  }
  const loginTotals = { ok: 0, failed: 0 };
  for (const v of logins) {
    if (v.labels.outcome === "ok") loginTotals.ok += v.value;
    else loginTotals.failed += v.value;
  }
  const requestTotals = { total: 0, clientErrors: 0, serverErrors: 0 };
  for (const v of requests) {
    const status = Number(v.labels.status ?? v.labels.status_code ?? 0);
    requestTotals.total += v.value;
    if (status >= 500) requestTotals.serverErrors += v.value;
    else if (status >= 400) requestTotals.clientErrors += v.value;
  }
  const perMinute = (n: number) => Math.round((n / Math.max(uptimeSec / 60, 1 / 60)) * 100) / 100;
  return {
    thisProcess: {
      processId: matchMaker.processId,
      host: os.hostname(),
      pid: process.pid,
      node: process.version,
      env: services.config.env,
      uptimeSec: Math.round(uptimeSec),
      rssBytes: process.memoryUsage().rss,
      store: services.config.store.kind,
      cache: services.config.cache.kind,
    },
    processes: processes.map((p) => ({ processId: p.processId, rooms: p.roomCount, players: p.ccu })),
    rooms: [...rooms.values()].sort((a, b) => a.name.localeCompare(b.name) || a.processId.localeCompare(b.processId)),
    logins: { ...loginTotals, okPerMinute: perMinute(loginTotals.ok), failedPerMinute: perMinute(loginTotals.failed) },
    requests: { ...requestTotals, serverErrorsPerMinute: perMinute(requestTotals.serverErrors) },
    orders: orderStates,
    reconcilerRuns: services.payments.reconciler.runs,
  };
}

/** The apps this deployment serves and the settings an operator may see: ids and switches, never a secret. */
export function consoleApps(services: Services) {
  const { config, platformApps, platformDefinitions } = services;
  return {
    apps: platformApps.appKeys.map((key) => ({
      key,
      platforms: platformDefinitions
        .map((def) => platformApps.find(def.name, key))
        .filter((e) => e !== undefined)
        .map((e) => {
          const coins = e!.definition.coins;
          const payments = coins !== undefined && services.payments.paymentsOn(e!.definition.name, key);
          return { platform: e!.definition.name, appId: e!.appId, payments, refunds: payments && coins!.refunds };
        }),
    })),
    // What each platform can do with coins at all (the platform registry): the pages offer only that.
    platforms: platformDefinitions.map((def) => ({ name: def.name, displayName: def.displayName, coins: def.coins !== undefined, refunds: def.coins?.refunds ?? false })),
    settings: {
      env: config.env,
      simulator: config.simulator,
      store: config.store.kind,
      cache: config.cache.kind,
      platforms: platformDefinitions.map((p) => p.name),
      accessTokenTtlSec: config.jwt.accessTtlSec,
      refreshTokenTtlSec: config.jwt.refreshTtlSec,
      rateLimitEnabled: config.rateLimit.enabled,
      metricsEnabled: config.metrics.enabled,
      apiDocsEnabled: config.apiDocsEnabled,
      playgroundEnabled: config.playgroundEnabled,
      console: config.console,
    },
  };
}

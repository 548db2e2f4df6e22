/** Analytics metrics on the server's registry (observability/metrics.ts; here, beside the wiring, because it fills in the services' event interface): the event writer's intake, writes, losses and backlog. */
import client from "prom-client";
import type { AnalyticsCounters } from "../services/analytics/analytics-events";

export function analyticsMetrics(registry: client.Registry): AnalyticsCounters {
  const recorded = new client.Counter({ name: "analytics_events_recorded_total", help: "Analytics events this process took into its buffer", registers: [registry] });
  const written = new client.Counter({ name: "analytics_events_written_total", help: "Analytics events the store confirmed", registers: [registry] });
  const dropped = new client.Counter({
    name: "analytics_events_dropped_total",
    help: "Analytics events lost: buffer_full (the backlog bound was reached during a store outage), shutdown (still buffered when the process stopped)",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const failures = new client.Counter({ name: "analytics_write_failures_total", help: "Batches of analytics events the store refused or did not answer (kept and retried)", registers: [registry] });
  const refused = new client.Counter({ name: "analytics_client_events_refused_total", help: "Client events refused by POST /api/events, by reason", labelNames: ["reason"] as const, registers: [registry] });
  const backlog = new client.Gauge({ name: "analytics_events_backlog", help: "Analytics events waiting in this process to be written", registers: [registry] });
  return {
    recorded: (n) => recorded.inc(n),
    written: (n) => written.inc(n),
    dropped: (reason, n) => dropped.inc({ reason }, n),
    writeFailed: () => failures.inc(),
    refused: (reason, n) => refused.inc({ reason }, n),
    setBacklog: (n) => backlog.set(n),
  };
}

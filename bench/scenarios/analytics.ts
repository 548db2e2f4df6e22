/**
 * The analytics step (docs/analytics.md), on PostgreSQL, in this one process through the services
 * (no HTTP: the route's own cost is that of any small authenticated POST in the HTTP scenarios):
 * - ingestion: batches of 100 client events judged (ClientEvents) and written by the event writer
 *   to the store, timed until the store holds them all; events per second and per core of this
 *   process (the database's CPU not included);
 * - a generated dataset of DAYS days × DAU players (a sliding third of them new each day): the
 *   rollup of all the days, timed with the process's peak heap, then the daily and retention reads
 *   of the console over the range, p50/p99.
 */
import { Pool } from "pg";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import type { AppConfig } from "../../src/config/config";
import { ALL } from "../../src/core/ports/analytics-store";
import { AnalyticsReports } from "../../src/services/analytics/analytics-reports";
import { ClientEvents } from "../../src/services/analytics/client-events";
import { EventWriter } from "../../src/services/analytics/event-writer";
import { RollupService } from "../../src/services/analytics/rollup-service";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";
import { prepareBackends } from "../lib/backends";
import { log, type Context } from "../lib/context";
import { isAborting, tempDir } from "../lib/lifecycle";
import { section, simpleTable } from "../lib/report";

const INGEST_EVENTS = 200_000;
const BATCH = 100;
const DAYS = 90;
const READS = 50;
const ZONE = "Asia/Shanghai";
const silent = { warn: () => undefined, info: () => undefined, error: () => undefined } as never;

export async function analyticsStep(ctx: Context): Promise<string> {
  const DAU = ctx.flags.analyticsDau;
  const title = "Analytics: client-event ingestion, rollup and reads (PostgreSQL)";
  const pg = await prepareBackends(ctx, "redis-pg", tempDir("mgl-bench-analytics-"));
  if (typeof pg === "string") return section(title, [], simpleTable(["measure", "result"], []), [`skipped: ${pg}`]);
  const config = { kind: "postgres", url: pg.env.DATABASE_URL, connectTimeoutMs: 3000, acquireTimeoutMs: 10_000, queryTimeoutMs: 600_000 } as AppConfig["store"];
  const store = await createAnalyticsStore(config);
  const rows: string[][] = [];
  try {
    // Ingestion.
    const writer = new EventWriter(store, silent, { maxBuffered: 1_000_000, batchSize: 500, flushMs: 50 });
    writer.start();
    const events = new ClientEvents(writer, { pastMs: 72 * 3600_000 });
    const batch = Array.from({ length: BATCH }, (_, i) => ({ name: "level_done", props: { level: i, stars: 3, mode: "classic" } }));
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let sent = 0; sent < INGEST_EVENTS && !isAborting(); sent += BATCH) {
      events.accept("default", `u${sent % 5000}`, batch);
      if (writer.backlog > 50_000) await writer.flush();
    }
    await writer.close(600_000);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const cores = (used.user + used.system) / 1e6 / seconds;
    rows.push(["ingestion: accepted and stored", `${Math.round(INGEST_EVENTS / seconds)}/s, ${Math.round(INGEST_EVENTS / seconds / Math.max(cores, 0.01))}/s per core (${cores.toFixed(2)} cores)`]);

    // Generated dataset, then the rollup and the reads.
    const first = "2026-01-01";
    const seeded = Date.now();
    await seed(pg.env.DATABASE_URL, first, DAU);
    log(`analytics: ${(DAYS * DAU).toLocaleString("en")} events seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const last = addDays(first, DAYS - 1);
    const rollups = new RollupService(store, { timeZone: ZONE, now: () => dayStart(addDays(last, 1), ZONE) + 3600_000 });
    let peak = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 200);
    const rollupStarted = Date.now();
    try {
      await rollups.rollup(first, last);
    } finally {
      clearInterval(sampler);
    }
    rows.push([`rollup of ${DAYS} days × ${DAU.toLocaleString("en")} DAU`, `${((Date.now() - rollupStarted) / 1000).toFixed(1)} s, peak heap ${Math.round(peak / 2 ** 20)} MiB`]);
    const reports = new AnalyticsReports(store);
    for (const [label, read] of [["daily read", () => reports.daily({ app: ALL, platform: ALL, from: first, to: last })], ["retention read", () => reports.retention({ app: ALL, platform: ALL, from: first, to: last })]] as const) {
      const times: number[] = [];
      for (let i = 0; i < READS && !isAborting(); i++) {
        const t0 = process.hrtime.bigint();
        await read();
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      rows.push([`${label}, ${DAYS} days (p50 / p99)`, `${times[Math.floor(times.length / 2)]!.toFixed(1)} ms / ${times[Math.floor(times.length * 0.99)]!.toFixed(1)} ms`]);
    }
  } finally {
    await store.close();
  }
  return section(title, [], simpleTable(["measure", "result"], rows), [
    `Ingestion: ${INGEST_EVENTS.toLocaleString("en")} client events in batches of ${BATCH} through ClientEvents and the event writer (batches of 500) into PostgreSQL; per core: events per second over this process's CPU seconds per second (the database's not included). No HTTP and no Redis rate limit.`,
    `Dataset: one login a player a day over ${DAYS} days, ${DAU.toLocaleString("en")} players a day, a third of them new each day; reads are the console's over all ${DAYS} days.`,
  ]);
}

/** DAYS × DAU login events in one statement: day d's players are p(d·DAU/3) … p(d·DAU/3 + DAU − 1). */
async function seed(url: string, first: string, DAU: number): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    const start = new Date(dayStart(first, ZONE) + 3600_000).toISOString();
    await pool.query(
      `insert into analytics_events (id, name, app, platform, user_id, at, props, experiments, live_events)
       select 'seed-' || d || '-' || i, 'login', 'default', 'wechat', 'p' || (d * $2 / 3 + i),
              $3::timestamptz + (d || ' days')::interval + (i % 3600 || ' seconds')::interval,
              case when d = 0 or i >= $2 - $2 / 3 then '{"new":true}' else '{"new":false}' end, '{}', '[]'
       from generate_series(0, $1 - 1) d, generate_series(0, $2 - 1) i`,
      [DAYS, DAU, start],
    );
    await pool.query("analyze analytics_events");
  } finally {
    await pool.end();
  }
}

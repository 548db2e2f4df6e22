/**
 * The leaderboards step: one board of 1,000,000 records on PostgreSQL + Redis, and one of 100,000 on
 * the embedded SQLite, read by 50 concurrent readers (top-100 and around-me, p50/p99) and written
 * with new bests, all in this one process through the service (no HTTP: the routes' own cost is in
 * the HTTP scenarios). The records are seeded with one SQL statement; the Redis index is built by
 * the service's own rebuild, whose time is reported too.
 */
import path from "node:path";
import { Pool } from "pg";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { MemoryRankIndex } from "../../src/adapters/cache/memory-rank-index";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import type { AppConfig } from "../../src/config/config";
import { parseBoards } from "../../src/config/settings/leaderboards";
import type { LeaderboardStore } from "../../src/core/ports/leaderboard-store";
import type { RankIndex } from "../../src/core/ports/rank-index";
import { LeaderboardService } from "../../src/services/leaderboards/leaderboard-service";
import { prepareBackends } from "../lib/backends";
import { log, type Context } from "../lib/context";
import { isAborting, tempDir } from "../lib/lifecycle";
import { section, simpleTable } from "../lib/report";

const READERS = 50;
const TARGETS = { top: 10, around: 20, sqlite: 20, submitsPerCore: 5000 };

interface Run {
  label: string;
  records: number;
  store: AppConfig["store"];
  redisUrl?: string;
  prefix: string;
}

export async function leaderboardsStep(ctx: Context): Promise<string> {
  const title = "Leaderboards: reads and new bests in one process";
  const tmp = tempDir("mgl-bench-lb-");
  const rows: string[][] = [];
  const notes: string[] = [];
  const pg = await prepareBackends(ctx, "redis-pg", tmp);
  const runs: Run[] = [];
  if (typeof pg === "string") notes.push(`PostgreSQL + Redis skipped: ${pg}`);
  else {
    const store = { kind: "postgres", url: pg.env.DATABASE_URL, connectTimeoutMs: 3000, acquireTimeoutMs: 10_000, queryTimeoutMs: 600_000 } as AppConfig["store"];
    runs.push({ label: "PostgreSQL + Redis", records: 1_000_000, store, redisUrl: pg.env.REDIS_URL, prefix: `${pg.env.CACHE_KEY_PREFIX}lb:` });
  }
  runs.push({ label: "SQLite (embedded)", records: 100_000, store: { kind: "sqlite", path: path.join(tmp, "lb.sqlite"), synchronous: "NORMAL" }, prefix: "" });

  for (const run of runs) {
    if (isAborting()) break;
    const store = await createLeaderboardStore(run.store);
    // As the server wires it: Redis when configured, else this process's memory (one process only).
    const index = run.redisUrl ? new RedisRankIndex(run.redisUrl, run.prefix) : new MemoryRankIndex();
    try {
      rows.push(...(await measureRun(ctx, run, store, index, notes)));
    } finally {
      await index?.close();
      await store.close();
    }
  }
  const table = simpleTable(["store", "records", "measure", "p50 ms", "p99 ms", "rate", "target"], rows);
  notes.push(
    `${READERS} concurrent readers for ${ctx.flags.durationSec} s each; around-me of random players, 21 records; submissions are strictly better scores of random players (every one a write to the store and the index), ${READERS} at a time.`,
    "Per core: submissions per second divided by this process's CPU seconds per second (the databases' CPU not included). The player-name lookup is a stub here (one user-store read per submission in the server).",
  );
  return section(title, [], table, notes);
}

async function measureRun(ctx: Context, run: Run, store: LeaderboardStore, index: RankIndex, notes: string[]): Promise<string[][]> {
  const parsed = parseBoards([{ id: "bench", operator: "best" }], "bench");
  if (!("boards" in parsed)) throw new Error(parsed.problems.join("; "));
  const service = new LeaderboardService({
    boards: { default: parsed.boards },
    store,
    users: { findById: async (id: string) => ({ id, username: id, nickname: null, status: 1 }) as never },
    cache: new MemoryCache(),
    index,
    logger: { info: () => undefined, warn: (obj: object, msg: string) => log(`${msg} ${JSON.stringify(obj)}`) },
  });
  const period = (await service.periods.current("default", parsed.boards[0]))!;
  const key = { app: "default", board: "bench", seq: period.seq };
  const seedStart = Date.now();
  await seed(run, key.seq);
  log(`${run.label}: ${run.records} records seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  {
    const started = Date.now();
    const built = await service.reads.rebuild(key, "desc");
    if (!built) throw new Error("the rank index was not built");
    notes.push(`${run.label}: the ${run.redisUrl ? "Redis" : "in-process"} index of ${run.records.toLocaleString("en")} records was rebuilt from the store in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
  const users = (i: number) => `u${Math.floor(Math.random() * i)}`;
  const topTarget = run.redisUrl ? TARGETS.top : TARGETS.sqlite;
  const aroundTarget = run.redisUrl ? TARGETS.around : TARGETS.sqlite;
  const top = await load(ctx, () => service.top("default", "bench", { limit: 100 }));
  const around = await load(ctx, () => service.aroundMe("default", users(run.records), "bench", { limit: 21 }));
  let next = 10_000_000;
  const cpu = process.cpuUsage();
  const submits = await load(ctx, () => service.submit("default", users(run.records), "bench", next++));
  const used = process.cpuUsage(cpu);
  const cores = (used.user + used.system) / 1e6 / submits.seconds;
  const perCore = submits.count / submits.seconds / Math.max(cores, 0.01);
  const records = run.records.toLocaleString("en");
  const verdict = (p99: number, max: number) => `${p99 <= max ? "PASS" : "MISS"} (p99 ≤ ${max} ms)`;
  return [
    [run.label, records, "top-100", fmt(top.p50), fmt(top.p99), `${Math.round(top.count / top.seconds)}/s`, verdict(top.p99, topTarget)],
    [run.label, records, "around-me (21)", fmt(around.p50), fmt(around.p99), `${Math.round(around.count / around.seconds)}/s`, verdict(around.p99, aroundTarget)],
    [
      run.label,
      records,
      "new bests",
      fmt(submits.p50),
      fmt(submits.p99),
      `${Math.round(submits.count / submits.seconds)}/s, ${Math.round(perCore)}/s per core (${cores.toFixed(2)} cores)`,
      run.redisUrl ? `${perCore >= TARGETS.submitsPerCore ? "PASS" : "MISS"} (≥ ${TARGETS.submitsPerCore}/s per core)` : "–",
    ],
  ];
}

/** READERS loops calling `op` for the configured duration (after the warm-up); latencies in ms. */
async function load(ctx: Context, op: () => Promise<unknown>): Promise<{ p50: number; p99: number; count: number; seconds: number }> {
  const warmUntil = Date.now() + ctx.flags.warmupSec * 1000;
  const until = warmUntil + ctx.flags.durationSec * 1000;
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      while (Date.now() < until && !isAborting()) {
        const started = process.hrtime.bigint();
        try {
          await op();
        } catch {
          errors++;
        }
        if (Date.now() >= warmUntil) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  if (errors > 0) log(`leaderboards: ${errors} operations failed`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), count: latencies.length, seconds: ctx.flags.durationSec };
}

const fmt = (ms: number) => ms.toFixed(2);

/** `run.records` records of distinct players, scores spread over 0..999,999, in one statement. */
async function seed(run: Run, seq: number): Promise<void> {
  const columns = "app, board, seq, user_id, score, subscore, sort_score, sort_subscore, reached_at, updated_at, version, name, metadata";
  if (run.store.kind === "postgres") {
    const pool = new Pool({ connectionString: run.store.url, max: 1 });
    try {
      await pool.query(
        `insert into leaderboard_records (${columns})
         select 'default', 'bench', $1, 'u' || g, s, 0, -s, 0, 1700000000000 + g, 1700000000000 + g, 1, 'u' || g, null
         from generate_series(0, $2 - 1) g, lateral (select (g::bigint * 7919) % 1000000 as s) x`,
        [seq, run.records],
      );
      await pool.query("analyze leaderboard_records");
    } finally {
      await pool.end();
    }
    return;
  }
  const Database = (await import("better-sqlite3")).default;
  const db = new Database((run.store as { path: string }).path);
  try {
    db.prepare(
      `with recursive g(n) as (select 0 union all select n + 1 from g where n + 1 < ?)
       insert into leaderboard_records (${columns})
       select 'default', 'bench', ?, 'u' || n, (n * 7919) % 1000000, 0, -((n * 7919) % 1000000), 0, 1700000000000 + n, 1700000000000 + n, 1, 'u' || n, null from g`,
    ).run(run.records, seq);
    db.exec("analyze");
  } finally {
    db.close();
  }
}

/**
 * The cloud saves step: 100,000 players' objects on PostgreSQL (the saves use no cache, so Redis
 * plays no part) and on the embedded SQLite, read and written by 50 concurrent callers in this one
 * process through the service (no HTTP: the routes' own cost is in the HTTP scenarios). A versioned
 * write is a read then a put with the version read, as a game does; only the put is timed.
 */
import path from "node:path";
import { Pool } from "pg";
import { createSaveStore } from "../../src/adapters/store/create-save-store";
import type { AppConfig } from "../../src/config/config";
import { parseConfig } from "../../src/config/config";
import { SaveService } from "../../src/services/saves/save-service";
import { prepareBackends } from "../lib/backends";
import { log, type Context } from "../lib/context";
import { isAborting, tempDir } from "../lib/lifecycle";
import { section, simpleTable } from "../lib/report";

const CALLERS = 50;
const PLAYERS = 100_000;
const VALUE = JSON.stringify({ level: 12, coins: 3400, unlocked: ["a", "b", "c"], settings: { music: true, sfx: 0.5 } });

export async function savesStep(ctx: Context): Promise<string> {
  const title = "Cloud saves: reads and versioned writes in one process";
  const tmp = tempDir("mgl-bench-saves-");
  const rows: string[][] = [];
  const notes: string[] = [];
  const runs: Array<{ label: string; store: AppConfig["store"] }> = [];
  const pg = await prepareBackends(ctx, "redis-pg", tmp);
  if (typeof pg === "string") notes.push(`PostgreSQL skipped: ${pg}`);
  else runs.push({ label: "PostgreSQL", store: { kind: "postgres", url: pg.env.DATABASE_URL, connectTimeoutMs: 3000, acquireTimeoutMs: 10_000, queryTimeoutMs: 600_000 } as AppConfig["store"] });
  runs.push({ label: "SQLite (embedded)", store: { kind: "sqlite", path: path.join(tmp, "saves.sqlite"), synchronous: "NORMAL" } });

  for (const run of runs) {
    if (isAborting()) break;
    const store = await createSaveStore(run.store);
    try {
      const started = Date.now();
      await seed(run.store);
      log(`${run.label}: ${PLAYERS} objects seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const saves = new SaveService(store, parseConfig({}).saves);
      const player = () => `u${Math.floor(Math.random() * PLAYERS)}`;
      const ref = { collection: "progress", key: "main" };
      const reads = await load(ctx, async () => void (await saves.get("default", player(), ref)));
      let conflicts = 0;
      const cpu = process.cpuUsage();
      const writes = await load(ctx, async (time) => {
        const owner = player();
        const current = await saves.get("default", owner, ref);
        await time(() => saves.put("default", owner, { ...ref, value: { ...current.value, coins: Number(current.value.coins) + 1 }, version: current.version }).catch((err: { code?: string }) => {
          if (err.code !== "version_conflict") throw err;
          conflicts++;
        }));
      });
      const used = process.cpuUsage(cpu);
      const cores = (used.user + used.system) / 1e6 / writes.seconds;
      const rate = (r: { count: number; seconds: number }) => Math.round(r.count / r.seconds);
      rows.push([run.label, "read", fmt(reads.p50), fmt(reads.p99), `${rate(reads)}/s`]);
      rows.push([run.label, "versioned write", fmt(writes.p50), fmt(writes.p99), `${rate(writes)}/s, ${Math.round(rate(writes) / Math.max(cores, 0.01))}/s per core (${cores.toFixed(2)} cores, read + write)`]);
      if (conflicts > 0) notes.push(`${run.label}: ${conflicts} writes met a concurrent writer of the same object (409).`);
    } finally {
      await store.close();
    }
  }
  const table = simpleTable(["store", "measure", "p50 ms", "p99 ms", "rate"], rows);
  notes.push(
    `${CALLERS} concurrent callers for ${ctx.flags.durationSec} s each, on ${PLAYERS.toLocaleString("en")} players' objects (${VALUE.length} bytes each), random players.`,
    "Per core: writes per second divided by this process's CPU seconds per second, the read before each write included (the database's CPU not included).",
  );
  return section(title, [], table, notes);
}

type Timer = (op: () => Promise<unknown>) => Promise<unknown>;

/** CALLERS loops calling `op` for the configured duration (after the warm-up); `time` marks the part timed (default: all). */
async function load(ctx: Context, op: (time: Timer) => Promise<unknown>): Promise<{ p50: number; p99: number; count: number; seconds: number }> {
  const warmUntil = Date.now() + ctx.flags.warmupSec * 1000;
  const until = warmUntil + ctx.flags.durationSec * 1000;
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (Date.now() < until && !isAborting()) {
        let timed: number | undefined;
        const time: Timer = async (inner) => {
          const started = process.hrtime.bigint();
          try {
            return await inner();
          } finally {
            timed = Number(process.hrtime.bigint() - started) / 1e6;
          }
        };
        const started = process.hrtime.bigint();
        try {
          await op(time);
        } catch {
          errors++;
        }
        if (Date.now() >= warmUntil) latencies.push(timed ?? Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  if (errors > 0) log(`saves: ${errors} operations failed`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), count: latencies.length, seconds: ctx.flags.durationSec };
}

const fmt = (ms: number) => ms.toFixed(2);

/** One object per player, in one statement. */
async function seed(store: AppConfig["store"]): Promise<void> {
  const columns = "app, owner_id, collection, key, value, version, deleted, permission_read, permission_write, created_at, updated_at";
  const at = new Date().toISOString();
  if (store.kind === "postgres") {
    const pool = new Pool({ connectionString: store.url, max: 1 });
    try {
      await pool.query(`insert into saves (${columns}) select 'default', 'u' || g, 'progress', 'main', $1, 1, 0, 'owner', 'owner', $2, $2 from generate_series(0, $3 - 1) g`, [VALUE, at, PLAYERS]);
      await pool.query("analyze saves");
    } finally {
      await pool.end();
    }
    return;
  }
  const Database = (await import("better-sqlite3")).default;
  const db = new Database((store as { path: string }).path);
  try {
    db.prepare(
      `with recursive g(n) as (select 0 union all select n + 1 from g where n + 1 < ?)
       insert into saves (${columns}) select 'default', 'u' || n, 'progress', 'main', ?, 1, 0, 'owner', 'owner', ?, ? from g`,
    ).run(PLAYERS, VALUE, at, at);
    db.exec("analyze");
  } finally {
    db.close();
  }
}

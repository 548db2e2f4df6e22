/**
 * `npm run bench`: starts the baselines, the platform simulator and the service as child processes
 * on 127.0.0.1, loads them with autocannon (HTTP) and colyseus.js (rooms), prints one table per
 * service run and writes them to bench/results/latest.md. Everything it starts, it stops, also on
 * error and Ctrl-C; every load is bounded in time and count.
 *
 * Run `npm run bench -- --help` for the flags.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import Redis from "ioredis";
import { Client as PgClient } from "pg";
import { simulatorPlatformEnv } from "../src/simulator/simulator-server";
import { rampIdleClients, type CapacityStep } from "./lib/capacity";
import { runHttpLoad, stopHttpLoad, type HttpLoad, type Measurement } from "./lib/http-load";
import { ensurePeersInstalled, PEERS, startPeer } from "./lib/peers";
import { formatProfile, summarizeProfile } from "./lib/profile";
import {
  cpuTicks,
  freePort,
  httpGet,
  killAllNow,
  meterOutsideLoad,
  rssMiB,
  sleep,
  startNode,
  stopAll,
  waitForHttp,
  waitUntilIdle,
  type Child,
  type OutsideLoad,
} from "./lib/procs";
import { fmt, markdownTable, simpleTable, targetText, textTable, type Row, type RunTable } from "./lib/report";
import { joinAnchor, runRoomLoad, stopRoomLoad } from "./lib/room-load";

const ROOT = path.resolve(__dirname, "..");
const BUILD_DIR = path.join(ROOT, "bench", ".build");
const RESULTS_DIR = path.join(ROOT, "bench", "results");
/** tsx's loader by absolute URL, so children with another cwd (the service's temp dir) still find it. */
const TSX_IMPORT = ["--import", pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json", { paths: [ROOT] })), "dist/loader.mjs")).href];

const SCENARIOS = ["access-token", "users-me", "returning-login", "new-login", "new-login-normal", "rooms"] as const;
/** Parts of the bench beyond the per-run scenarios, selectable with --only like them. */
const STEPS = ["peers", "scale", "capacity"] as const;
type ScenarioId = (typeof SCENARIOS)[number] | (typeof STEPS)[number];
const PEERS_DIR = path.join(ROOT, "bench", "peers");
const RUNS = ["embedded", "redis-pg"] as const;
type RunId = (typeof RUNS)[number];

/** Route targets: × Express hello, judged on CPU per request (see the report's text); rooms: × join without auth. */
const TARGETS = { "access-token": 0.8, "users-me": 0.6, "returning-login": 0.4, "new-login": 0.25, rooms: 0.9 } as const;
/** Against the peers' anonymous sign-in rate, same run. */
const PEER_TARGETS = { returningVsColyseus: 1.0, newVsColyseus: 0.7, vsBetterAuth: 4 } as const;
/** 2 processes' CPU per request ÷ 1 process's. */
const SCALE_MAX_RATIO = 1.15;
const CAPACITY = { clients: 10_000, rssMiB: 1024, idleRssMiB: 150, joinP99Ms: 200, step: 1000, workers: 4, joinConcurrency: 2, roomSize: 50 } as const;

const HELP = `npm run bench [-- flags]

  --duration <s>          seconds per measured scenario (default 10)
  --warmup <s>            seconds of unmeasured load before each scenario (default 1)
  --connections <n>       autocannon connections (default 50)
  --room-concurrency <n>  concurrent join+leave loops (default 20)
  --room-players <n>      distinct players pre-logged in for the room loops (default 40, ≥ concurrency)
  --no-anchor             let the lobby empty between joins (by default one idle client stays in it, so
                          the loops measure joining a live lobby, not Colyseus disposing and re-creating it)
  --max-requests <n>      cap on requests per HTTP scenario (default 2000000)
  --capacity-clients <n>  where the capacity ramp stops at the latest (default 10000, the target)
  --runs <list>           service runs: embedded,redis-pg (default both; redis-pg is skipped if unreachable)
  --only <list>           scenarios: ${SCENARIOS.join(",")} and steps: ${STEPS.join(",")}
                          (default all; the baselines always run, before each service run that has a scenario;
                          peers: @colyseus/auth and better-auth from bench/peers (npm ci there on first use);
                          scale: CPU per request of 2 processes vs 1 over Redis + PostgreSQL;
                          capacity: idle authenticated lobby clients one process holds, and its idle RSS)
  --no-build              run the service from src/ through tsx instead of compiling it first
  --profile               run the service under node --cpu-prof and print its top self-time functions
                          (numbers are then skewed; results go to bench/results/profile.md)
  --out <file>            Markdown output (default bench/results/latest.md)

Env: BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_DATABASE_URL
(default postgres://postgres@127.0.0.1:5432/test), BENCH_NOAUTH_REDIS_URL (default: BENCH_REDIS_URL, database 1).`;

interface Flags {
  durationSec: number;
  warmupSec: number;
  connections: number;
  roomConcurrency: number;
  roomPlayers: number;
  maxRequests: number;
  capacityClients: number;
  runs: RunId[];
  only: ScenarioId[];
  build: boolean;
  anchor: boolean;
  profile: boolean;
  out: string;
}

function parseFlags(): Flags {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "1" },
      connections: { type: "string", default: "50" },
      "room-concurrency": { type: "string", default: "20" },
      "room-players": { type: "string", default: "40" },
      "max-requests": { type: "string", default: "2000000" },
      "capacity-clients": { type: "string", default: String(CAPACITY.clients) },
      runs: { type: "string", default: RUNS.join(",") },
      only: { type: "string", default: [...SCENARIOS, ...STEPS].join(",") },
      "no-build": { type: "boolean", default: false },
      "no-anchor": { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      out: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const int = (name: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number in ${min}..${max}`);
    return n;
  };
  const list = <T extends string>(name: string, v: string, allowed: readonly T[]): T[] => {
    const items = v.split(",").map((s) => s.trim()).filter(Boolean);
    for (const i of items) if (!allowed.includes(i as T)) throw new Error(`--${name}: unknown "${i}" (one of ${allowed.join(", ")})`);
    return items as T[];
  };
  const profile = values.profile ?? false;
  const flags: Flags = {
    durationSec: int("duration", values.duration!, 1, 120),
    warmupSec: int("warmup", values.warmup!, 0, 30),
    connections: Math.floor(int("connections", values.connections!, 1, 1000)),
    roomConcurrency: Math.floor(int("room-concurrency", values["room-concurrency"]!, 1, 200)),
    roomPlayers: Math.floor(int("room-players", values["room-players"]!, 1, 500)),
    maxRequests: Math.floor(int("max-requests", values["max-requests"]!, 1, 100_000_000)),
    capacityClients: Math.floor(int("capacity-clients", values["capacity-clients"]!, 1, 50_000)),
    runs: list("runs", values.runs!, RUNS),
    only: list("only", values.only!, [...SCENARIOS, ...STEPS] as ScenarioId[]),
    build: !values["no-build"],
    anchor: !values["no-anchor"],
    profile,
    out: path.resolve(values.out ?? path.join(RESULTS_DIR, profile ? "profile.md" : "latest.md")),
  };
  // Each loop owns a player (a new login of a player ends its previous session), plus the anchor's.
  flags.roomPlayers = Math.max(flags.roomPlayers, flags.roomConcurrency + 1);
  return flags;
}

// ---------------------------------------------------------------------------------------------
// Clean-up: children are stopped by pid (procs.ts); other resources register a function here.

const cleanups: (() => Promise<void>)[] = [];
let aborting = false;

async function cleanUp(): Promise<void> {
  stopHttpLoad();
  stopRoomLoad();
  await stopAll();
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    await fn().catch((err: unknown) => log(`clean-up step failed: ${String(err)}`));
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (aborting) return;
  aborting = true;
  log(`${signal}: stopping everything this bench started…`);
  void cleanUp().finally(() => process.exit(130));
}

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

// ---------------------------------------------------------------------------------------------

/** Filled before the context exists. */
const ctx0 = { loadAtStart: [0, 0, 0] };

function loadAverage(): number[] {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}

interface Context {
  flags: Flags;
  tag: string;
  seq: number;
  simulatorUrl: string;
  /** One secret for every service process of the run, so a token from one is good on another. */
  jwtSecret: string;
  tables: RunTable[];
  profiles: string[];
  /** Extra Markdown sections (peers, scale, capacity), in order. */
  sections: string[];
  startedAt: number;
}

async function main(): Promise<void> {
  const flags = parseFlags();
  // Children that run TypeScript through tsx need the project's tsconfig (decorators), whatever their cwd.
  process.env.TSX_TSCONFIG_PATH = path.join(ROOT, "tsconfig.json");
  ctx0.loadAtStart = loadAverage();
  const probe = meterOutsideLoad();
  await new Promise((r) => setTimeout(r, 1000));
  const busy = probe();
  if (busy && busy.otherCores + busy.databaseCores > 0.2) {
    log(`warning: other processes are using ${(busy.otherCores + busy.databaseCores).toFixed(2)} cores right now: they will skew these numbers`);
  }
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", killAllNow);

  const ctx: Context = {
    flags,
    tag: crypto.randomBytes(3).toString("hex"),
    seq: 0,
    simulatorUrl: "",
    jwtSecret: crypto.randomBytes(32).toString("hex"),
    tables: [],
    profiles: [],
    sections: [],
    startedAt: Date.now(),
  };

  // A hard cap on the whole run, so a hang can never keep load or processes going.
  const perScenario = flags.durationSec + flags.warmupSec + 15;
  const hardCapMs = Math.max(10 * 60_000, 3 * 1000 * (120 + perScenario * 8 * flags.runs.length)) + 20 * 60_000;
  const hardCap = setTimeout(() => {
    log(`hard time cap of ${Math.round(hardCapMs / 1000)} s reached: aborting`);
    onSignal("SIGTERM");
  }, hardCapMs);
  hardCap.unref();

  if (flags.build) buildService();

  // The standalone platform simulator, shared by both service runs (codes never repeat).
  const simPort = await freePort();
  const simulator = startNode({
    name: "simulator",
    args: [...TSX_IMPORT, path.join(ROOT, "src/simulator/main.ts")],
    env: { SIMULATOR_PORT: String(simPort), SIMULATOR_HOST: "127.0.0.1" },
    cwd: ROOT,
  });
  ctx.simulatorUrl = `http://127.0.0.1:${simPort}`;

  await waitForHttp(simulator, `${ctx.simulatorUrl}/__simulator/stats`);

  const anyScenario = flags.only.some((id) => (SCENARIOS as readonly string[]).includes(id));
  for (const run of anyScenario ? flags.runs : []) {
    if (aborting) break;
    ctx.tables.push(await serviceRun(ctx, run));
  }
  if (flags.only.includes("peers") && !aborting) ctx.sections.push(await peersStep(ctx));
  if (flags.only.includes("scale") && !aborting) ctx.sections.push(await scaleStep(ctx));
  if (flags.only.includes("capacity") && !aborting) ctx.sections.push(await capacityStep(ctx));

  await simulator.stop();
  writeReport(ctx);
  const elapsed = Math.round((Date.now() - ctx.startedAt) / 1000);
  log(`done in ${elapsed} s`);
}

function buildService(): void {
  log("compiling the service (tsconfig.build.json → bench/.build)…");
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", BUILD_DIR], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 180_000,
  });
  if (result.status !== 0) {
    throw new Error(`build failed (use --no-build to run from src/ through tsx):\n${result.stdout}${result.stderr}`);
  }
}

async function startHello(name: string, file: string): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = startNode({
    name,
    args: [...TSX_IMPORT, path.join(ROOT, "bench/servers", file)],
    env: { PORT: String(port), NODE_ENV: "development" },
    cwd: ROOT,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${url}/`);
  return { child, url };
}

interface Baselines {
  node: Row;
  express: Row;
  /**
   * Measures the Express hello again, right before a route: this machine's CPU per request drifts
   * by up to a third over minutes (shared host), so a route is judged against the hello measured
   * next to it, not one from minutes earlier.
   */
  expressAgain(): Promise<Row>;
  stop(): Promise<void>;
}

async function measureBaselines(ctx: Context): Promise<Baselines> {
  const nodeHello = await startHello("node-hello", "node-hello.ts");
  const expressHello = await startHello("express-hello", "express-hello.ts");
  const node = await measureHttp(ctx, "node:http hello (baseline 1)", nodeHello.child, { baseUrl: nodeHello.url, path: "/" });
  const express = await measureHttp(ctx, "Express 5 hello (baseline 2)", expressHello.child, { baseUrl: expressHello.url, path: "/" });
  await nodeHello.child.stop();
  node.vsNode = 1;
  node.vsExpress = node.m.reqPerSec / express.m.reqPerSec;
  express.vsNode = express.m.reqPerSec / node.m.reqPerSec;
  express.vsExpress = 1;
  return {
    node,
    express,
    expressAgain: () => measureHttp(ctx, "Express 5 hello (paired with the next route)", expressHello.child, { baseUrl: expressHello.url, path: "/" }),
    stop: () => expressHello.child.stop(),
  };
}

/** Warm-up (not recorded), then the measured load, then the target's RSS. */
async function measureHttp(
  ctx: Context,
  label: string,
  target: Child,
  load: Pick<HttpLoad, "baseUrl" | "path" | "headers" | "method" | "body">,
): Promise<Row> {
  const { flags } = ctx;
  if (aborting) throw new Error("aborted");
  await waitUntilIdle(target.pid);
  const common = { ...load, connections: flags.connections, maxRequests: flags.maxRequests };
  if (flags.warmupSec > 0) await runHttpLoad({ ...common, durationSec: flags.warmupSec });
  log(`measuring ${label} (${flags.durationSec} s, ${flags.connections} connections)`);
  const ticks = cpuTicks(target.pid);
  const outside = meterOutsideLoad();
  const m = await runHttpLoad({ ...common, durationSec: flags.durationSec });
  const row: Row = {
    label,
    unit: "req/s",
    m,
    rssMiB: rssMiB(target.pid),
    cpuMsPerReq: cpuPerRequest(target.pid, ticks, m.ok + m.non2xx),
    ...outsideFields(outside()),
  };
  logResult(row);
  return row;
}

/** Server CPU (user + system) per completed request since `before`, in ms. */
function cpuPerRequest(pid: number, before: number | undefined, completed: number): number | undefined {
  const after = cpuTicks(pid);
  if (before === undefined || after === undefined || completed === 0) return undefined;
  return ((after - before) * 10) / completed;
}

function nextCode(ctx: Context, player: string): string {
  return `${player}.${ctx.tag}-${ctx.seq++}`;
}

// ---------------------------------------------------------------------------------------------
// One service run: embedded defaults, or Redis + PostgreSQL.

interface Backends {
  env: Record<string, string>;
  noauthRedisUrl?: string;
  describe: string;
}

async function prepareBackends(ctx: Context, run: RunId, tmp: string): Promise<Backends | string> {
  if (run === "embedded") {
    return { env: { SQLITE_PATH: path.join(tmp, "users.sqlite") }, describe: "SQLite (temp file) + in-memory cache" };
  }
  const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
  const pgUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const noauthRedisUrl = process.env.BENCH_NOAUTH_REDIS_URL ?? withRedisDb(redisUrl, 1);

  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    return `Redis not reachable at ${redisUrl} (${errText(err)})`;
  }
  const prefix = `bench:${ctx.tag}:`;
  cleanups.push(async () => {
    // The service's cache keys live under our own prefix: remove them (bounded scan).
    let cursor = "0";
    let rounds = 0;
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0" && ++rounds < 10_000);
    redis.disconnect();
  });

  const dbName = `mgl_bench_${crypto.randomBytes(6).toString("hex")}`;
  try {
    await asPgAdmin(pgUrl, (c) => c.query(`CREATE DATABASE "${dbName}"`));
  } catch (err) {
    return `PostgreSQL not reachable at ${pgUrl} (${errText(err)})`;
  }
  cleanups.push(() => asPgAdmin(pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)).then(() => undefined));
  const dbUrl = new URL(pgUrl);
  dbUrl.pathname = `/${dbName}`;
  return {
    env: { REDIS_URL: redisUrl, CACHE_KEY_PREFIX: prefix, DATABASE_URL: dbUrl.toString(), SQLITE_PATH: path.join(tmp, "unused.sqlite") },
    noauthRedisUrl,
    describe: `PostgreSQL (${dbName}) + Redis (prefix ${prefix})`,
  };
}

async function serviceRun(ctx: Context, run: RunId): Promise<RunTable> {
  const { flags } = ctx;
  const title = run === "embedded" ? "Service: embedded defaults (SQLite + in-memory cache)" : "Service: Redis + PostgreSQL";
  const table: RunTable = { title, rows: [], notes: [] };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mgl-bench-${run}-`));
  cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));

  const backends = await prepareBackends(ctx, run, tmp);
  if (typeof backends === "string") {
    log(`skipping the ${run} run: ${backends}`);
    table.notes.push(`skipped: ${backends}`);
    process.stdout.write(`\n== ${title} ==\n  skipped: ${backends}\n`);
    return table;
  }
  table.title = `${title} — ${backends.describe}`;

  // Baselines right before this run's scenarios, so a busy neighbour skews both sides alike.
  const baselines = await measureBaselines(ctx);
  table.rows.push(baselines.node, baselines.express);

  // One folder per profiled run: node names the files CPU.<date>.<pid>.<thread>.<seq>.cpuprofile,
  // one per thread (tsx adds a loader thread); the main thread's is the one that matters.
  const profileDir = path.join(RESULTS_DIR, "profiles", `${run}-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  if (flags.profile) fs.mkdirSync(profileDir, { recursive: true });
  const profileArgs = flags.profile ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];

  // The no-auth Colyseus server for the room comparison, on the same kind of presence/driver.
  let noauth: { child: Child; url: string } | undefined;
  if (flags.only.includes("rooms")) {
    const port = await freePort();
    const child = startNode({
      name: "colyseus-noauth",
      args: [...profileArgs, ...TSX_IMPORT, path.join(ROOT, "bench/servers/colyseus-noauth.ts")],
      env: { PORT: String(port), NODE_ENV: "development", ...(backends.noauthRedisUrl ? { REDIS_URL: backends.noauthRedisUrl } : {}) },
      cwd: ROOT,
    });
    noauth = { child, url: `http://127.0.0.1:${port}` };
    // Colyseus answers GET /matchmake/ with 404 once listening (other paths would hang).
    await waitForHttp(child, `${noauth.url}/matchmake/`);
  }

  const { child: service, base } = await startService(ctx, `service (${run})`, { ...backends.env }, tmp, profileArgs);
  log(`${run}: service up (pid ${service.pid}) on ${base}`);

  // Preparation: warm token cache, a user for /users/me, the returning player, the room players.
  const accessToken = await getJson(`${base}/api/minigame/wechat/access_token`);
  if (!accessToken.success) throw new Error(`access_token warm-up failed: ${JSON.stringify(accessToken)}`);
  const me = await login(ctx, base, "benchuser1");
  await login(ctx, base, "returning");
  const roomTokens: string[] = [];
  if (flags.only.includes("rooms")) {
    for (let i = 0; i < flags.roomPlayers; i += 4) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(4, flags.roomPlayers - i) }, (_, k) => login(ctx, base, `roomp${i + k}`)),
      );
      roomTokens.push(...batch);
    }
  }

  const rel = (row: Row): Row => {
    row.vsNode = row.m.reqPerSec / baselines.node.m.reqPerSec;
    row.vsExpress = row.m.reqPerSec / baselines.express.m.reqPerSec;
    return row;
  };
  const withTarget = (row: Row, id: Exclude<keyof typeof TARGETS, "rooms">, paired: Row): Row => {
    const helloCpu = paired.cpuMsPerReq ?? NaN;
    row.target = { ratio: helloCpu / (row.cpuMsPerReq ?? NaN), min: TARGETS[id], against: `Express hello just before: ${fmt(helloCpu, 2)} ms, CPU` };
    row.vsExpress = row.m.reqPerSec / paired.m.reqPerSec;
    return row;
  };

  if (flags.only.includes("access-token")) {
    const paired = await baselines.expressAgain();
    const row = await measureHttp(ctx, "GET /api/minigame/wechat/access_token (cached)", service, {
      baseUrl: base,
      path: "/api/minigame/wechat/access_token",
    });
    table.rows.push(withTarget(rel(row), "access-token", paired));
  }
  if (flags.only.includes("users-me")) {
    const paired = await baselines.expressAgain();
    const row = await measureHttp(ctx, "GET /api/users/me (Bearer)", service, {
      baseUrl: base,
      path: "/api/users/me",
      headers: { authorization: `Bearer ${me}` },
    });
    table.rows.push(withTarget(rel(row), "users-me", paired));
  }
  if (flags.only.includes("returning-login")) {
    const paired = await baselines.expressAgain();
    const row = await measureHttp(ctx, "WeChat login, returning player (fresh code)", service, {
      baseUrl: base,
      path: () => `/api/minigame/wechat/login?jsCode=${nextCode(ctx, "returning")}`,
    });
    row.id = "returning-login";
    table.rows.push(withTarget(rel(row), "returning-login", paired));
  }
  const sqlite = run === "embedded" ? ", SQLITE_SYNCHRONOUS=FULL" : "";
  if (flags.only.includes("new-login")) {
    const paired = await baselines.expressAgain();
    const row = await measureHttp(ctx, `WeChat login, new player${sqlite}`, service, {
      baseUrl: base,
      path: () => `/api/minigame/wechat/login?jsCode=newp${ctx.tag}x${ctx.seq++}`,
    });
    row.id = "new-login";
    table.rows.push(withTarget(rel(row), "new-login", paired));
  }
  if (flags.only.includes("rooms") && noauth) {
    const workers = roomTokens.slice(0, flags.roomConcurrency).map((t) => ({ accessToken: t }));
    const anchor = { accessToken: roomTokens[flags.roomConcurrency] };
    const auth = await measureRooms(ctx, "room join+leave, with auth (service)", service, base, workers, anchor);
    const bare = await measureRooms(ctx, "room join+leave, no auth (bare Colyseus)", noauth.child, noauth.url, workers.map(() => ({})), {});
    auth.target = { ratio: auth.m.reqPerSec / bare.m.reqPerSec, min: TARGETS.rooms, against: "join without auth" };
    table.rows.push(auth, bare);
    for (const row of [auth, bare]) if (row.note) table.notes.push(`${row.label}: first failure: ${row.note}`);
    if (backends.noauthRedisUrl) table.notes.push(`the no-auth server uses Redis presence/driver too (${backends.noauthRedisUrl}), like the service`);
  }
  await service.stop();
  let normalService: Child | undefined;
  if (run === "embedded" && flags.only.includes("new-login-normal") && !aborting) {
    // The same scenario on a second service whose SQLite commits only sync at checkpoints.
    const normal = await startService(ctx, "service (embedded, SQLITE_SYNCHRONOUS=NORMAL)", { ...backends.env, SQLITE_PATH: path.join(tmp, "normal.sqlite"), SQLITE_SYNCHRONOUS: "NORMAL" }, tmp, profileArgs);
    normalService = normal.child;
    await login(ctx, normal.base, "warmup");
    const paired = await baselines.expressAgain();
    const row = await measureHttp(ctx, "WeChat login, new player, SQLITE_SYNCHRONOUS=NORMAL", normal.child, {
      baseUrl: normal.base,
      path: () => `/api/minigame/wechat/login?jsCode=newn${ctx.tag}x${ctx.seq++}`,
    });
    row.id = "new-login-normal";
    table.rows.push(withTarget(rel(row), "new-login", paired));
    await normal.child.stop();
  }
  await baselines.stop();
  if (noauth) await noauth.child.stop();
  if (flags.profile) {
    const profiled: [string, Child | undefined][] = [
      ["the service", service],
      ["the SQLITE_SYNCHRONOUS=NORMAL service", normalService],
      ["the no-auth Colyseus server", noauth?.child],
    ];
    for (const [who, child] of profiled) {
      if (!child) continue;
      const mainThread = fs.readdirSync(profileDir).find((f) => f.includes(`.${child.pid}.0.`) && f.endsWith(".cpuprofile"));
      if (!mainThread) {
        table.notes.push(`no CPU profile of ${who}'s main thread was written in ${profileDir}`);
        continue;
      }
      const file = path.join(profileDir, mainThread);
      const text = formatProfile(summarizeProfile(file, ROOT));
      ctx.profiles.push(`#### CPU profile of ${who}, ${run} run (${path.relative(ROOT, file)})\n\n\`\`\`\n${text}\n\`\`\``);
      process.stdout.write(`\nCPU profile of ${who}, ${run} run:\n${text}\n`);
    }
  }
  process.stdout.write(`\n${textTable(table)}\n`);
  return table;
}

/** Starts the service (compiled, or from src/ through tsx) with the bench's settings plus `env`, and waits until it is ready. */
async function startService(
  ctx: Context,
  name: string,
  env: Record<string, string>,
  cwd: string,
  extraArgs: string[],
): Promise<{ child: Child; base: string; port: number }> {
  const port = Number(env.PORT ?? (await freePort()));
  const entry = ctx.flags.build ? [path.join(BUILD_DIR, "src/server/index.js")] : [...TSX_IMPORT, path.join(ROOT, "src/server/index.ts")];
  const child = startNode({
    name,
    args: [...extraArgs, ...entry],
    env: {
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      ...simulatorPlatformEnv(ctx.simulatorUrl),
      RATE_LIMIT_ENABLED: "false",
      JWT_SECRET: ctx.jwtSecret,
      ...env,
      PORT: String(port),
    },
    // A temp cwd, so a developer's .env in the repo cannot change what is measured.
    cwd,
  });
  const processPort = port + Number(env.NODE_APP_INSTANCE ?? 0);
  const base = `http://127.0.0.1:${processPort}`;
  await waitForHttp(child, `${base}/api/__bench_ready`, 60_000);
  return { child, base, port: processPort };
}

async function measureRooms(
  ctx: Context,
  label: string,
  target: Child,
  baseUrl: string,
  workerOptions: Record<string, unknown>[],
  anchorOptions: Record<string, unknown>,
): Promise<Row> {
  const { flags } = ctx;
  if (aborting) throw new Error("aborted");
  await waitUntilIdle(target.pid);
  let leaveAnchor: () => Promise<void> = async () => undefined;
  if (flags.anchor) {
    try {
      leaveAnchor = await joinAnchor(baseUrl, "lobby", anchorOptions);
    } catch (err) {
      // Reported in the table rather than ending the whole run; the server's last lines say why.
      const state = target.process.exitCode === null && target.process.signalCode === null ? "still running" : `exited (${target.process.exitCode ?? target.process.signalCode})`;
      log(`${label}: the idle client could not join: ${errText(err)}; ${target.name} ${state}; its last lines:\n${target.tail()}`);
      const failed: Measurement = { reqPerSec: 0, p50: NaN, p99: NaN, ok: 0, non2xx: 0, errors: 1, timeouts: 0, durationSec: 0, statusCounts: {} };
      return { label, unit: "joins/s", m: failed, note: `the idle client could not join: ${errText(err)} (${target.name} ${state})` };
    }
  }
  const roomLoad = { baseUrl, roomName: "lobby", workerOptions, maxIterations: 200_000 };
  let m;
  let ticks: number | undefined;
  let cpuMsPerReq: number | undefined;
  let load: OutsideLoad | undefined;
  try {
    if (flags.warmupSec > 0) await runRoomLoad({ ...roomLoad, durationSec: flags.warmupSec });
    log(`measuring ${label} (${flags.durationSec} s, ${workerOptions.length} concurrent loops${flags.anchor ? " + 1 idle client" : ""})`);
    ticks = cpuTicks(target.pid);
    const outside = meterOutsideLoad();
    m = await runRoomLoad({ ...roomLoad, durationSec: flags.durationSec });
    cpuMsPerReq = cpuPerRequest(target.pid, ticks, m.ok);
    load = outside();
  } finally {
    await leaveAnchor();
  }
  const row: Row = { label, unit: "joins/s", m, rssMiB: rssMiB(target.pid), cpuMsPerReq, ...outsideFields(load) };
  if (m.firstError) row.note = m.firstError;
  logResult(row);
  if (m.errors > 0) log(`${label}: ${m.errors} failed iterations, first: ${m.firstError}`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Steps beyond the per-run scenarios: peers, scale, capacity. Each returns its Markdown section.

function section(title: string, intro: string[], body: { markdown: string; text: string }, notes: string[] = []): string {
  process.stdout.write(`\n== ${title} ==\n${body.text}\n${notes.map((n) => `  note: ${n}`).join("\n")}\n`);
  return [`### ${title}`, "", ...intro, ...(intro.length > 0 ? [""] : []), body.markdown, "", ...notes.map((n) => `- ${n}`)].join("\n");
}

function rowCells(r: Row): string[] {
  return [r.label, `${fmt(r.m.reqPerSec)} ${r.unit}`, String(r.m.p50), String(r.m.p99), r.cpuMsPerReq?.toFixed(2) ?? "–", fmt(r.rssMiB), String(r.m.non2xx + r.m.errors)];
}

/** Our logins (this run's embedded service) against the peers' anonymous sign-ins, each in its own process. */
async function peersStep(ctx: Context): Promise<string> {
  const title = "Peers: anonymous sign-in of @colyseus/auth and better-auth against our logins";
  try {
    ensurePeersInstalled(PEERS_DIR, log);
  } catch (err) {
    return section(title, [], { markdown: `skipped: ${errText(err)}`, text: `skipped: ${errText(err)}` });
  }
  const peers = new Map<string, Row>();
  for (const peer of PEERS) {
    if (aborting) break;
    const started = await startPeer(PEERS_DIR, peer);
    cleanups.push(async () => started.cleanup());
    const row = await measureHttp(ctx, peer.label, started.child, { baseUrl: started.url, path: peer.path, method: "POST", body: peer.body, headers: peer.headers });
    peers.set(peer.id, row);
    await started.child.stop();
  }
  const embedded = ctx.tables.find((t) => t.title.startsWith("Service: embedded"));
  const ours = (id: string) => embedded?.rows.find((r) => r.id === id);
  const returning = ours("returning-login");
  const fresh = ours("new-login-normal") ?? ours("new-login");
  const measured = [returning, ours("new-login"), ours("new-login-normal"), ...peers.values()].filter((r): r is Row => r !== undefined);
  const table = simpleTable(["Sign-in", "rate", "p50 ms", "p99 ms", "CPU ms/req", "RSS MiB", "errors"], measured.map(rowCells));

  const colyseus = peers.get("colyseus-auth");
  const better = peers.get("better-auth");
  const compare = (a: Row | undefined, b: Row | undefined, min: number, what: string): string[] => {
    if (!a || !b) return [what, "–", "–", "not measured in this run"];
    const rate = a.m.reqPerSec / b.m.reqPerSec;
    const cpu = (b.cpuMsPerReq ?? NaN) / (a.cpuMsPerReq ?? NaN);
    return [what, `${rate.toFixed(2)}×`, `${cpu.toFixed(2)}×`, targetText({ ratio: rate, min, against: "rate" })];
  };
  const ratios = simpleTable(
    ["Comparison", "rate ratio", "CPU-per-request ratio", "target"],
    [
      compare(returning, colyseus, PEER_TARGETS.returningVsColyseus, "returning-player login ÷ @colyseus/auth"),
      compare(fresh, colyseus, PEER_TARGETS.newVsColyseus, `new-player login (${fresh?.id === "new-login-normal" ? "NORMAL" : "FULL"}) ÷ @colyseus/auth`),
      compare(returning, better, PEER_TARGETS.vsBetterAuth, "returning-player login ÷ better-auth"),
      compare(fresh, better, PEER_TARGETS.vsBetterAuth, "new-player login ÷ better-auth"),
    ],
  );
  return section(
    title,
    [
      "Each peer runs alone in its own process (bench/peers, its own lockfile), loaded like our routes (same connections and duration). Ours come from this run's embedded service table above. Our login does more: a platform round trip to the simulator, two tokens, the cache writes and a user row; the peers sign a token for a user kept in memory (@colyseus/auth) or insert a user and a session into SQLite (better-auth).",
    ],
    { markdown: `${table.markdown}\n\n${ratios.markdown}`, text: `${table.text}\n\n${ratios.text}` },
  );
}

/** Two neighbouring free ports (a process listens on PORT + NODE_APP_INSTANCE). */
async function neighbourPorts(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    const next = await import("node:net").then(
      (net) =>
        new Promise<boolean>((resolve) => {
          const srv = net.createServer();
          srv.once("error", () => resolve(false));
          srv.listen(port + 1, "127.0.0.1", () => srv.close(() => resolve(true)));
        }),
    );
    if (next) return port;
  }
  throw new Error("no two neighbouring free ports");
}

/** CPU per request of 2 processes (both processes' CPU) against 1, over Redis + PostgreSQL. */
async function scaleStep(ctx: Context): Promise<string> {
  const title = "Scale: CPU per request, 2 processes against 1 (Redis + PostgreSQL)";
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-bench-scale-"));
  cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));
  const backends = await prepareBackends(ctx, "redis-pg", tmp);
  if (typeof backends === "string") return section(title, [], { markdown: `skipped: ${backends}`, text: `skipped: ${backends}` });

  const results: Record<"returning" | "me", Row[]> = { returning: [], me: [] };
  const profileDir = path.join(RESULTS_DIR, "profiles", `scale-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  if (ctx.flags.profile) fs.mkdirSync(profileDir, { recursive: true });
  for (const count of [1, 2]) {
    if (aborting) break;
    const port = await neighbourPorts();
    const procs: { child: Child; base: string }[] = [];
    for (let i = 0; i < count; i++) {
      procs.push(
        await startService(
          ctx,
          `service ${i + 1} of ${count}`,
          { ...backends.env, PORT: String(port), INSTANCES: String(count), NODE_APP_INSTANCE: String(i), PUBLIC_ADDRESS: "127.0.0.1:{port}" },
          tmp,
          ctx.flags.profile ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [],
        ),
      );
    }
    const me = await login(ctx, procs[0].base, `scaleme${count}`);
    // Each process has its own returning player, as a player's logins mostly reach one process.
    for (let i = 0; i < count; i++) await login(ctx, procs[i].base, `scaleret${count}p${i}`);
    results.returning.push(
      await measureSpread(ctx, `returning-player login, ${count} process${count > 1 ? "es" : ""}`, procs, (i) => ({
        path: () => `/api/minigame/wechat/login?jsCode=${nextCode(ctx, `scaleret${count}p${i}`)}`,
      })),
    );
    results.me.push(
      await measureSpread(ctx, `GET /api/users/me, ${count} process${count > 1 ? "es" : ""}`, procs, () => ({
        path: "/api/users/me",
        headers: { authorization: `Bearer ${me}` },
      })),
    );
    for (const p of procs) await p.child.stop();
    if (ctx.flags.profile) {
      const file = fs.readdirSync(profileDir).find((f) => f.includes(`.${procs[0].child.pid}.0.`) && f.endsWith(".cpuprofile"));
      if (file) ctx.profiles.push(`#### CPU profile of the first of ${count} processes, scale step\n\n\`\`\`\n${formatProfile(summarizeProfile(path.join(profileDir, file), ROOT))}\n\`\`\``);
    }
  }
  const rows = [...results.returning, ...results.me].map(rowCells);
  const ratio = (pair: Row[], what: string): string[] => {
    const [one, two] = pair;
    if (!one?.cpuMsPerReq || !two?.cpuMsPerReq) return [what, "–", "not measured"];
    const r = two.cpuMsPerReq / one.cpuMsPerReq;
    return [what, `${r.toFixed(2)}×`, targetText({ ratio: r, max: SCALE_MAX_RATIO, against: "(2 processes' CPU/req ÷ 1's)" })];
  };
  const table = simpleTable(["Scenario", "rate", "p50 ms", "p99 ms", "CPU ms/req (all processes)", "RSS MiB (first)", "errors"], rows);
  const ratios = simpleTable(["Route", "CPU/req, 2 ÷ 1", "target"], [ratio(results.returning, "returning-player login"), ratio(results.me, "GET /api/users/me")]);
  return section(
    title,
    [
      "The processes are started as pm2 starts them in fork mode (INSTANCES=2, NODE_APP_INSTANCE=0/1, each on PORT + instance), sharing Redis (presence, driver, cache, locks) and PostgreSQL; the load is split evenly over both ports. This machine has 2 cores shared with the load generator and the simulator, so more processes cannot show more throughput here: scale is shown as CPU per request summed over every service process, which is what a second core would have to carry.",
    ],
    { markdown: `${table.markdown}\n\n${ratios.markdown}`, text: `${table.text}\n\n${ratios.text}` },
  );
}

/** Like measureHttp, with the connections split over several processes and the CPU of all of them counted. */
async function measureSpread(
  ctx: Context,
  label: string,
  procs: { child: Child; base: string }[],
  loadFor: (processIndex: number) => Pick<HttpLoad, "path" | "headers">,
): Promise<Row> {
  const { flags } = ctx;
  for (const p of procs) await waitUntilIdle(p.child.pid);
  const each = Math.max(1, Math.floor(flags.connections / procs.length));
  const run = (durationSec: number) =>
    Promise.all(procs.map((p, i) => runHttpLoad({ ...loadFor(i), baseUrl: p.base, connections: each, durationSec, maxRequests: flags.maxRequests })));
  // Each process warms its JIT on its own share of the load: give them a few seconds.
  await run(Math.max(flags.warmupSec, 3));
  log(`measuring ${label} (${flags.durationSec} s, ${each} connections to each of ${procs.length})`);
  const ticks0 = procs.map((p) => cpuTicks(p.child.pid) ?? 0);
  const outside = meterOutsideLoad();
  const ms = await run(flags.durationSec);
  const ticks = procs.reduce((sum, p, i) => sum + (cpuTicks(p.child.pid) ?? ticks0[i]) - ticks0[i], 0);
  const m: Measurement = {
    reqPerSec: ms.reduce((n, x) => n + x.reqPerSec, 0),
    p50: Math.max(...ms.map((x) => x.p50)),
    p99: Math.max(...ms.map((x) => x.p99)),
    ok: ms.reduce((n, x) => n + x.ok, 0),
    non2xx: ms.reduce((n, x) => n + x.non2xx, 0),
    errors: ms.reduce((n, x) => n + x.errors, 0),
    timeouts: ms.reduce((n, x) => n + x.timeouts, 0),
    durationSec: flags.durationSec,
    statusCounts: Object.assign({}, ...ms.map((x) => x.statusCounts)) as Record<string, number>,
  };
  const completed = m.ok + m.non2xx;
  const row: Row = {
    label,
    unit: "req/s",
    m,
    rssMiB: rssMiB(procs[0].child.pid),
    cpuMsPerReq: completed > 0 ? (ticks * 10) / completed : undefined,
    ...outsideFields(outside()),
  };
  logResult(row);
  return row;
}

/** Idle RSS, then idle authenticated lobby clients ramped in one process until join p99 > 200 ms or 10,000. */
async function capacityStep(ctx: Context): Promise<string> {
  const title = "Capacity: idle authenticated lobby clients in one process (embedded)";
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-bench-capacity-"));
  cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));
  const { child, base } = await startService(
    ctx,
    "service (capacity)",
    // NORMAL: 10,000 new players are only the set-up here, not what is measured.
    { SQLITE_PATH: path.join(tmp, "users.sqlite"), SQLITE_SYNCHRONOUS: "NORMAL", LOBBY_MAX_CLIENTS: String(CAPACITY.roomSize) },
    tmp,
    [],
  );
  await sleep(3000);
  const idleRss = rssMiB(child.pid) ?? NaN;
  log(`capacity: idle RSS after boot ${idleRss.toFixed(0)} MiB; ramping lobby clients…`);
  const steps: CapacityStep[] = await rampIdleClients({
    baseUrl: base,
    service: child,
    tsxImport: TSX_IMPORT,
    workers: CAPACITY.workers,
    stepClients: CAPACITY.step,
    maxClients: ctx.flags.capacityClients,
    joinP99LimitMs: CAPACITY.joinP99Ms,
    joinConcurrency: CAPACITY.joinConcurrency,
    tag: ctx.tag,
    log,
    aborted: () => aborting,
  });
  await child.stop();
  const table = simpleTable(
    ["Connected clients", "joins/s (step)", "join p50 ms", "join p99 ms", "CPU ms per join", "idle CPU (% of a core)", "RSS MiB", "errors"],
    steps.map((s) => [fmt(s.clients), fmt(s.joinsPerSec), s.p50.toFixed(1), s.p99.toFixed(1), s.cpuMsPerClient.toFixed(2), (s.idleCpuShare * 100).toFixed(1), fmt(s.rssMiB), String(s.errors)]),
  );
  const last = steps.at(-1);
  const held = steps.filter((s) => s.p99 <= CAPACITY.joinP99Ms).at(-1)?.clients ?? 0;
  const summary = simpleTable(
    ["Figure", "value", "target"],
    [
      ["RSS idle, after boot", `${idleRss.toFixed(0)} MiB`, targetText({ ratio: idleRss, max: CAPACITY.idleRssMiB, against: "MiB" })],
      ["clients held with join p99 ≤ 200 ms", fmt(held), targetText({ ratio: held, min: CAPACITY.clients, against: "clients" })],
      ["RSS with the most clients", last ? `${fmt(last.rssMiB)} MiB at ${fmt(last.clients)} clients` : "–", last ? targetText({ ratio: last.rssMiB, max: CAPACITY.rssMiB, against: "MiB" }) : "–"],
    ],
  );
  const firstError = steps.find((s) => s.firstError)?.firstError;
  return section(
    title,
    [
      `Distinct players (one per client), ${CAPACITY.step.toLocaleString("en-US")} more per step, spread over ${CAPACITY.workers} generator processes: all of a step's players log in first (8 at a time per generator), then they join (${CAPACITY.joinConcurrency} joins in flight per generator, ${CAPACITY.workers * CAPACITY.joinConcurrency} in all), and stay. Lobbies of ${CAPACITY.roomSize} (LOBBY_MAX_CLIENTS), rate limits off; join latency and CPU per join leave the logins out. After each step the clients sit idle for 4 s: "idle CPU" is what holding them costs.`,
    ],
    { markdown: `${summary.markdown}\n\n${table.markdown}`, text: `${summary.text}\n\n${table.text}` },
    firstError ? [`first failure: ${firstError}`] : [],
  );
}

function outsideFields(load: OutsideLoad | undefined): Pick<Row, "outsideCores" | "databaseCores"> {
  return load ? { outsideCores: load.otherCores, databaseCores: load.databaseCores } : {};
}

function logResult(row: Row): void {
  const r = (n: number) => Math.round(n * 10) / 10;
  const outside =
    row.outsideCores === undefined
      ? ""
      : `; other processes ${row.outsideCores.toFixed(2)} cores, Redis+PostgreSQL servers ${row.databaseCores?.toFixed(2)} cores`;
  log(`  ${Math.round(row.m.reqPerSec)} ${row.unit}, p50 ${r(row.m.p50)} ms, p99 ${r(row.m.p99)} ms, server CPU ${row.cpuMsPerReq?.toFixed(2) ?? "?"} ms/req${outside}`);
}

async function login(ctx: Context, base: string, player: string): Promise<string> {
  const body = await getJson(`${base}/api/minigame/wechat/login?jsCode=${nextCode(ctx, player)}`);
  const data = body.data as { token?: unknown } | undefined;
  if (!body.success || typeof data?.token !== "string") throw new Error(`login of ${player} failed: ${JSON.stringify(body)}`);
  return data.token;
}

async function getJson(url: string): Promise<{ success?: boolean; data?: unknown }> {
  const res = await httpGet(url, 15_000);
  try {
    return JSON.parse(res.body) as { success?: boolean; data?: unknown };
  } catch {
    throw new Error(`${url}: HTTP ${res.status}, not JSON: ${res.body.slice(0, 200)}`);
  }
}

async function asPgAdmin(url: string, fn: (client: PgClient) => Promise<unknown>): Promise<void> {
  const client = new PgClient({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

function withRedisDb(url: string, db: number): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

function errText(err: unknown): string {
  if (err instanceof AggregateError) return err.errors.map(errText).join("; ");
  return err instanceof Error ? err.message || err.name : String(err);
}

// ---------------------------------------------------------------------------------------------

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? "unknown";
}

function writeReport(ctx: Context): void {
  const { flags } = ctx;
  const elapsed = Math.round((Date.now() - ctx.startedAt) / 1000);
  const lines = [
    "# Benchmark results",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version}, ${os.platform()} ${os.release()}`,
    `- CPU: ${cpuModel()} × ${os.cpus().length} (load generator, simulator and service share these cores)`,
    `- Flags: --duration ${flags.durationSec} --warmup ${flags.warmupSec} --connections ${flags.connections} --room-concurrency ${flags.roomConcurrency} --room-players ${flags.roomPlayers}${flags.anchor ? "" : " --no-anchor"} --runs ${flags.runs.join(",")} --only ${flags.only.join(",")}${flags.build ? "" : " --no-build"}${flags.profile ? " --profile" : ""}`,
    `- Service: ${flags.build ? "compiled (tsconfig.build.json) and run with node" : "run from src/ through tsx"}, one process, NODE_ENV=development, LOG_LEVEL=warn, rate limits off, standalone simulator as the platforms`,
    `- Whole run took ${elapsed} s; load average (1, 5, 15 min) at start ${ctx0.loadAtStart.join(" ")}, at end ${loadAverage().join(" ")}`,
    "",
    "Rates are autocannon's mean of per-second samples (join+leave completions per second for rooms); latencies are per request (per join+leave). \"CPU ms/req\" is the server process's CPU time (user + system, from /proc) during the scenario divided by the requests it completed: unlike the rates, it does not depend on how much CPU the load generator takes from the same cores.",
    flags.anchor
      ? "Room loops: each loop owns a distinct player's token; one more idle client stays in the lobby throughout, so it is never disposed and re-created mid-run."
      : "Room loops: each loop owns a distinct player's token; no idle client, so the lobby is disposed and re-created whenever it empties.",
    "The baseline rows are the node:http and Express hello servers measured just before each service run; × node is against that node:http row. Each route with a target is judged against the Express hello measured again right before it (its CPU is named in the target column; × Express is the rate ratio to that same measurement): on this shared machine one process's CPU per request drifts by up to a third over a few minutes, so a baseline from minutes earlier would judge the drift, not the route. Route targets (access token ≥ 0.8, /users/me ≥ 0.6, returning login ≥ 0.4, new-player login ≥ 0.25 × Express hello) are judged on CPU per request (Express hello's CPU ms/req ÷ the route's), which other processes on the machine skew far less than rates. Room join with auth ≥ 0.9 × without is judged on rates (joins/s). The peers' targets are on rates, as in the issue; the scale and capacity targets are in their sections.",
    flags.profile ? "\n**Profiled run: the service ran under --cpu-prof, so its numbers are lower than normal.**" : "",
    "",
    ...ctx.tables.flatMap((t) => [markdownTable(t), ""]),
    ...ctx.sections.flatMap((sec) => [sec, ""]),
    ...(ctx.profiles.length > 0 ? ["## CPU profiles", "", ...ctx.profiles.flatMap((p) => [p, ""])] : []),
  ];
  fs.mkdirSync(path.dirname(flags.out), { recursive: true });
  const tmpFile = `${flags.out}.tmp`;
  fs.writeFileSync(tmpFile, `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`);
  fs.renameSync(tmpFile, flags.out);
  log(`wrote ${path.relative(process.cwd(), flags.out)}`);
}

main()
  .catch((err: unknown) => {
    if (!aborting) process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    if (aborting) return;
    await cleanUp();
    // Handles left by client libraries (colyseus.js sockets, pg, ioredis) must not keep us alive.
    setTimeout(() => process.exit(), 200).unref();
  });

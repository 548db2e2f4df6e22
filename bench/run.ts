/**
 * `npm run bench`: starts the baselines, the platform simulator and the service as child processes
 * on 127.0.0.1, loads them with autocannon (HTTP) and colyseus.js (rooms), prints one table per
 * service run and writes them to bench/results/latest.md. Everything it starts, it stops, also on
 * error and Ctrl-C; every load is bounded in time and count.
 *
 * Run `npm run bench -- --help` for the flags. The scenarios are in bench/scenarios/.
 */
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { log, RESULTS_DIR, ROOT, RUNS, SCENARIOS, STEPS, TSX_IMPORT, type Context, type Flags, type ScenarioId } from "./lib/context";
import { cleanUp, isAborting, onSignal } from "./lib/lifecycle";
import { freePort, killAllNow, meterOutsideLoad, startNode, waitForHttp } from "./lib/procs";
import { loadAverage, writeReport } from "./lib/report";
import { buildService } from "./lib/service";
import { CAPACITY, capacityStep } from "./scenarios/capacity";
import { mongoStoreStep } from "./scenarios/mongo-store";
import { peersStep } from "./scenarios/peers";
import { roomTrafficStep } from "./scenarios/room-traffic";
import { leancloudImportStep } from "./scenarios/leancloud-import";
import { leancloudClassImportStep } from "./scenarios/leancloud-class-import";
import { scaleStep } from "./scenarios/scale";
import { leaderboardsStep } from "./scenarios/leaderboards";
import { savesStep } from "./scenarios/saves";
import { analyticsStep } from "./scenarios/analytics";
import { serviceRun } from "./scenarios/service-run";
import { douyinLiveStep } from "./scenarios/douyin-live";
import { douyinFeedStep } from "./scenarios/douyin-feed";

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
  --import-users <n>      leancloud-import: players in the generated export (default 1000000)
  --class-rows <n>        leancloud-class-import: rows in the generated class export (default 100000)
  --analytics-dau <n>     analytics: players a day in the generated 90 days (default 100000)
  --traffic-steps <list>  room-traffic: these total room counts (e.g. 20,40), each measured whatever its latency
                          or CPU (for profiles and before/after pairs); default the ramp with its stop rules
  --mongo-users <n>       mongo-store: users seeded into each FerretDB handler (default 100000)
  --runs <list>           service runs: embedded,redis-pg,redis-mongo (default all; one is skipped if its
                          services are unreachable; redis-mongo measures the logins only, on FerretDB)
  --only <list>           scenarios: ${SCENARIOS.join(",")} and steps: ${STEPS.join(",")}
                          (default all; the baselines always run, before each service run that has a scenario;
                          peers: @colyseus/auth and better-auth from bench/peers (npm ci there on first use);
                          scale: CPU per request of 2 processes vs 1 over Redis + PostgreSQL;
                          capacity: idle authenticated lobby clients one process holds, and its idle RSS;
                          room-traffic: rooms of 10 players sending 10 messages/s each, grown until p99 > 50 ms
                          or the process saturates, on Redis + PostgreSQL: players per process and per core,
                          then the same room counts on bare Colyseus (the same relay room without auth);
                          mongo-store: the MongoDB store's login and erase at --mongo-users users, on FerretDB's
                          SQLite and PostgreSQL handlers, in process;
                          leancloud-import: npm run import -- leancloud over a generated export, SQLite and PostgreSQL;
                          leancloud-class-import: npm run import -- leancloud-class, 100,000 rows, SQLite and PostgreSQL;
                          leaderboards: top-100, around-me and new bests on 1,000,000 records (PostgreSQL + Redis)
                          and 100,000 (SQLite), 50 concurrent callers in one process);
                          saves: cloud saves' reads and versioned writes on 100,000 players (PostgreSQL, SQLite);
                          douyin-live: 100 Douyin pushes/s for 60 s into two receivers, one killed with kill -9:
                          push answer p99, every gift exactly once (Redis + PostgreSQL);
                          douyin-feed: Douyin's feed direct-play call, signed both ways, 50 connections on 1,000
                          players: answer p99 (target < 100 ms), CPU per answer (Redis + PostgreSQL);
                          analytics: client-event ingestion per core, the rollup of 90 days × --analytics-dau players a day and the
                          console's daily and retention reads over them (PostgreSQL))
  --no-build              run the service from src/ through tsx instead of compiling it first
  --profile               run the service under node --cpu-prof and print its top self-time functions
                          (numbers are then skewed; results go to bench/results/profile.md)
  --hot-front-ab          after each run's routes, measure them again on a second service with HTTP_HOT_FRONT=false
                          (the hot routes through Express instead of the node:http front): an A/B in one run
  --analytics-ab          after each run's routes, measure them again on a second service with ANALYTICS_RECORD=false
                          (no analytics event kept): the cost of recording, side by side in one run
  --node-args-ab=<flags> after each run's routes, measure them again on a second service started with these
                          node flags (e.g. --node-args-ab=--max-semi-space-size=64: a larger young generation)
  --node-ab=<node binary> after each run's routes, measure them again on a second service run by this node
                          (e.g. --node-ab=/usr/bin/node, the machine's Node 20, beside the bench's Node 22;
                          below the floor it starts through bench/servers/service-below-floor.cjs)
  --out <file>            Markdown output (default bench/results/latest.md)

Env: BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_DATABASE_URL
(default postgres://postgres@127.0.0.1:5432/test), BENCH_NOAUTH_REDIS_URL (default: BENCH_REDIS_URL, database 1),
BENCH_MONGODB_URL (default mongodb://127.0.0.1:27017/?directConnection=true: FerretDB from scripts/test-services.sh).`;

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
      "traffic-steps": { type: "string" },
      "mongo-users": { type: "string", default: "100000" },
      "import-users": { type: "string", default: "1000000" },
      "class-rows": { type: "string", default: "100000" },
      "analytics-dau": { type: "string", default: "100000" },
      runs: { type: "string", default: RUNS.join(",") },
      only: { type: "string", default: [...SCENARIOS, ...STEPS].join(",") },
      "no-build": { type: "boolean", default: false },
      "no-anchor": { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      "hot-front-ab": { type: "boolean", default: false },
      "analytics-ab": { type: "boolean", default: false },
      "node-args-ab": { type: "string" },
      "node-ab": { type: "string" },
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
    importUsers: Math.floor(int("import-users", values["import-users"]!, 1, 10_000_000)),
    classRows: Math.floor(int("class-rows", values["class-rows"]!, 5, 10_000_000)),
    analyticsDau: Math.floor(int("analytics-dau", values["analytics-dau"]!, 3, 1_000_000)),
    trafficSteps: values["traffic-steps"]?.split(",").map((v) => Math.floor(int("traffic-steps", v.trim(), 1, 1000))),
    mongoUsers: Math.floor(int("mongo-users", values["mongo-users"]!, 100, 1_000_000)),
    runs: list("runs", values.runs!, RUNS),
    only: list("only", values.only!, [...SCENARIOS, ...STEPS] as ScenarioId[]),
    build: !values["no-build"],
    anchor: !values["no-anchor"],
    profile,
    hotFrontAb: values["hot-front-ab"] ?? false,
    analyticsAb: values["analytics-ab"] ?? false,
    nodeArgsAb: values["node-args-ab"]?.split(/\s+/).filter(Boolean),
    nodeAb: values["node-ab"] ? nodeBinary(values["node-ab"]) : undefined,
    out: path.resolve(values.out ?? path.join(RESULTS_DIR, profile ? "profile.md" : "latest.md")),
  };
  // Each loop owns a player (a new login of a player ends its previous session), plus the anchor's.
  flags.roomPlayers = Math.max(flags.roomPlayers, flags.roomConcurrency + 1);
  return flags;
}

/** `--node-ab`'s binary and the version it reports; refused when it does not run. */
function nodeBinary(file: string): { path: string; version: string } {
  const answer = spawnSync(file, ["-p", "process.versions.node"], { encoding: "utf8", timeout: 10_000 });
  if (answer.status !== 0) throw new Error(`--node-ab: ${file} did not run: ${answer.error?.message ?? answer.stderr}`);
  return { path: file, version: answer.stdout.trim() };
}

async function main(): Promise<void> {
  const flags = parseFlags();
  // Children that run TypeScript through tsx need the project's tsconfig (decorators), whatever their cwd.
  process.env.TSX_TSCONFIG_PATH = path.join(ROOT, "tsconfig.json");
  const loadAtStart = loadAverage();
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
    loadAtStart,
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
    if (isAborting()) break;
    ctx.tables.push(await serviceRun(ctx, run));
  }
  if (flags.only.includes("peers") && !isAborting()) ctx.sections.push(await peersStep(ctx));
  if (flags.only.includes("scale") && !isAborting()) ctx.sections.push(await scaleStep(ctx));
  if (flags.only.includes("capacity") && !isAborting()) ctx.sections.push(await capacityStep(ctx));
  if (flags.only.includes("room-traffic") && !isAborting()) ctx.sections.push(await roomTrafficStep(ctx));
  if (flags.only.includes("mongo-store") && !isAborting()) ctx.sections.push(await mongoStoreStep(ctx));
  if (flags.only.includes("leancloud-import") && !isAborting()) ctx.sections.push(await leancloudImportStep(ctx));
  if (flags.only.includes("leancloud-class-import") && !isAborting()) ctx.sections.push(await leancloudClassImportStep(ctx));
  if (flags.only.includes("leaderboards") && !isAborting()) ctx.sections.push(await leaderboardsStep(ctx));
  if (flags.only.includes("saves") && !isAborting()) ctx.sections.push(await savesStep(ctx));
  if (flags.only.includes("douyin-live") && !isAborting()) ctx.sections.push(await douyinLiveStep(ctx));
  if (flags.only.includes("douyin-feed") && !isAborting()) ctx.sections.push(await douyinFeedStep(ctx));
  if (flags.only.includes("analytics") && !isAborting()) ctx.sections.push(await analyticsStep(ctx));

  await simulator.stop();
  writeReport(ctx);
  const elapsed = Math.round((Date.now() - ctx.startedAt) / 1000);
  log(`done in ${elapsed} s`);
}

main()
  .catch((err: unknown) => {
    if (!isAborting()) process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    if (isAborting()) return;
    await cleanUp();
    // Handles left by client libraries (colyseus.js sockets, pg, ioredis) must not keep us alive.
    setTimeout(() => process.exit(), 200).unref();
  });

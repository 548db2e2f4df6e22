/** The HTTP route scenarios of a service run: access-token, users-me, config, events, returning-login, new-login, new-login-normal. */
import path from "node:path";
import { nextCode, type Context, type RunId, type ScenarioId } from "../lib/context";
import type { HttpLoad } from "../lib/http-load";
import { measureHttp } from "../lib/measure";
import type { Child } from "../lib/procs";
import { fmt, type Row, type RunTable } from "../lib/report";
import { login, startService } from "../lib/service";
import type { Baselines } from "./baselines";

/** × Express hello, judged on CPU per request (see the report's text). */
const ROUTE_TARGETS = { "access-token": 0.85, "users-me": 0.8, "returning-login": 0.55, "new-login": 0.33 } as const;
/** GET /api/config with 50 flags, 5 experiments and 5 events costs at most this many /users/me (issue 52), in CPU per request. */
const CONFIG_MAX_USERS_ME = 1.2;
/** POST /api/events: client events accepted per second per core of the service (issue 53), a batch of EVENTS_PER_REQUEST a request. */
const EVENTS_PER_CORE = 20_000;
const EVENTS_PER_REQUEST = 50;
/** × the bare node:http hello of the same run, on rates (issue 56: where a Go server, Nakama, stood on one machine, and beyond). */
const NODE_TARGETS = { "access-token": 0.22, "users-me": 0.2, "returning-login": 0.1, "new-login": 0.065 } as const;

/** A second service measured right after each route of the first, same route (the A/B of `--hot-front-ab`). */
export interface RouteVariant {
  service: Child;
  base: string;
  userToken: string;
  /** Appended to its rows' labels; its rows carry no scenario id (other sections compare against the main ones). */
  suffix: string;
}

/** The routes measured on the run's service while it is up; `userToken` is a logged-in player's. */
export async function measureRoutes(
  ctx: Context,
  run: RunId,
  table: RunTable,
  service: Child,
  base: string,
  userToken: string,
  baselines: Baselines,
  only: readonly ScenarioId[] = ctx.flags.only,
  variant?: RouteVariant,
): Promise<void> {
  const sqlite = run === "embedded" ? ", SQLITE_SYNCHRONOUS=FULL" : "";
  const routes: [ScenarioId & keyof typeof ROUTE_TARGETS, string, (base: string, token: string) => Pick<HttpLoad, "baseUrl" | "path" | "headers">][] = [
    ["access-token", "GET /api/minigame/wechat/access_token (cached)", (baseUrl) => ({ baseUrl, path: "/api/minigame/wechat/access_token" })],
    ["users-me", "GET /api/users/me (Bearer)", (baseUrl, token) => ({ baseUrl, path: "/api/users/me", headers: { authorization: `Bearer ${token}` } })],
    ["returning-login", "WeChat login, returning player (fresh code)", (baseUrl) => ({ baseUrl, path: () => `/api/minigame/wechat/login?jsCode=${nextCode(ctx, "returning")}` })],
    ["new-login", `WeChat login, new player${sqlite}`, (baseUrl) => ({ baseUrl, path: () => `/api/minigame/wechat/login?jsCode=newp${ctx.tag}x${ctx.seq++}` })],
  ];
  for (const [id, label, load] of routes) {
    if (!only.includes(id)) continue;
    table.rows.push(await measureRoute(ctx, baselines, service, id, id, label, load(base, userToken)));
    if (id === "users-me" && only.includes("config")) table.rows.push(await measureConfig(ctx, baselines, service, base, userToken, table.rows.at(-1)!));
    if (!variant) continue;
    // Right after the same route on the main service, so both see the same state of a shared machine.
    const row = await measureRoute(ctx, baselines, variant.service, id, id, label + variant.suffix, load(variant.base, variant.userToken));
    row.id = undefined;
    table.rows.push(row);
  }
  // Last: its flood of events (most dropped, then the backlog written, PostgreSQL vacuuming after) would weigh on the routes after it.
  if (only.includes("events")) {
    const events = await measureEvents(ctx, service, base, userToken);
    table.rows.push(events);
    table.notes.push(`${events.label}: ${events.note}`);
  }
}

/** GET /api/config right after /users/me on the same service (LIVEOPS_FILE: liveops-definitions.ts), judged against it on CPU. */
async function measureConfig(ctx: Context, baselines: Baselines, service: Child, baseUrl: string, token: string, usersMe: Row): Promise<Row> {
  const row = await measureHttp(ctx, "GET /api/config (Bearer), 50 flags, 5 experiments, 5 events", service, { baseUrl, path: "/api/config", headers: { authorization: `Bearer ${token}` } });
  row.id = "config";
  againstNode(row, baselines);
  const usersMeCpu = usersMe.cpuMsPerReq ?? NaN;
  row.target = { ratio: usersMeCpu / (row.cpuMsPerReq ?? NaN), min: Math.round(1000 / CONFIG_MAX_USERS_ME) / 1000, against: `/users/me just before: ${fmt(usersMeCpu, 2)} ms, CPU (config ≤ ${CONFIG_MAX_USERS_ME} × its cost)` };
  return row;
}

/** POST /api/events with a batch of client events, judged on events accepted per second per core of the service. */
async function measureEvents(ctx: Context, service: Child, baseUrl: string, token: string): Promise<Row> {
  const events = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({ name: "level_done", props: { level: i, stars: 3, mode: "classic" } }));
  const row = await measureHttp(ctx, `POST /api/events (Bearer), ${EVENTS_PER_REQUEST} events a request`, service, {
    baseUrl,
    path: "/api/events",
    method: "POST",
    body: JSON.stringify({ events }),
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  row.id = "events";
  const perCore = (EVENTS_PER_REQUEST * 1000) / (row.cpuMsPerReq ?? NaN);
  row.target = { ratio: perCore, min: EVENTS_PER_CORE, against: "client events accepted per second per core of the service" };
  // Accepted is not stored: the writer keeps what the store can take and drops (counts) the rest.
  // Its backlog is written first (a minute at most), so the counts say what was kept.
  for (let waited = 0; waited < 60_000 && (await metricSum(baseUrl, "analytics_events_backlog")) > 0; waited += 500) await new Promise((resolve) => setTimeout(resolve, 500));
  const written = await metricSum(baseUrl, "analytics_events_written_total");
  const dropped = await metricSum(baseUrl, "analytics_events_dropped_total");
  row.note = `events the process stored / dropped (buffer full) since it started, warm-up and every route's events included: ${fmt(written, 0)} / ${fmt(dropped, 0)}`;
  return row;
}

/** A counter's total over its labels from the service's /metrics (NaN when not exposed). */
async function metricSum(baseUrl: string, name: string): Promise<number> {
  const res = await fetch(`${baseUrl}/metrics`).catch(() => undefined);
  if (!res?.ok) return NaN;
  const lines = (await res.text()).split("\n").filter((line) => line.startsWith(name));
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

/**
 * The new-player login again, on a second service whose SQLite commits only sync at checkpoints;
 * returns that service's process (stopped) for its CPU profile.
 */
export async function measureNewLoginNormal(
  ctx: Context,
  table: RunTable,
  env: Record<string, string>,
  tmp: string,
  nodeArgs: string[],
  baselines: Baselines,
): Promise<Child> {
  const normal = await startService(ctx, "service (embedded, SQLITE_SYNCHRONOUS=NORMAL)", { ...env, SQLITE_PATH: path.join(tmp, "normal.sqlite"), SQLITE_SYNCHRONOUS: "NORMAL" }, tmp, nodeArgs);
  await login(ctx, normal.base, "warmup");
  table.rows.push(
    await measureRoute(ctx, baselines, normal.child, "new-login-normal", "new-login", "WeChat login, new player, SQLITE_SYNCHRONOUS=NORMAL", {
      baseUrl: normal.base,
      path: () => `/api/minigame/wechat/login?jsCode=newn${ctx.tag}x${ctx.seq++}`,
    }),
  );
  await normal.child.stop();
  return normal.child;
}

/** The route's row, judged against the Express hello measured right before it. */
async function measureRoute(
  ctx: Context,
  baselines: Baselines,
  target: Child,
  id: ScenarioId,
  judgedAs: keyof typeof ROUTE_TARGETS,
  label: string,
  load: Pick<HttpLoad, "baseUrl" | "path" | "headers">,
): Promise<Row> {
  const paired = await baselines.expressAgain();
  const row = await measureHttp(ctx, label, target, load);
  const helloCpu = paired.cpuMsPerReq ?? NaN;
  row.id = id;
  row.nodeTarget = { ratio: againstNode(row, baselines), min: NODE_TARGETS[judgedAs], against: "node:http hello, rates" };
  row.vsExpress = row.m.reqPerSec / paired.m.reqPerSec;
  row.target = { ratio: helloCpu / (row.cpuMsPerReq ?? NaN), min: ROUTE_TARGETS[judgedAs], against: `Express hello just before: ${fmt(helloCpu, 2)} ms, CPU` };
  return row;
}

/** Sets the row against the bare node:http hello of the same run, on rates and on CPU per request (the hello's ÷ the row's); answers the rate ratio. */
function againstNode(row: Row, baselines: Baselines): number {
  row.vsNode = row.m.reqPerSec / baselines.node.m.reqPerSec;
  row.vsNodeCpu = (baselines.node.cpuMsPerReq ?? NaN) / (row.cpuMsPerReq ?? NaN);
  return row.vsNode;
}

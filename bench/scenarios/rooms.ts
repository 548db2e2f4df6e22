/** The rooms scenario: join+leave loops on the service (with auth) against a bare Colyseus server (without). */
import path from "node:path";
import { errText, log, ROOT, TSX_IMPORT, type Context } from "../lib/context";
import type { Measurement } from "../lib/http-load";
import { isAborting } from "../lib/lifecycle";
import { cpuPerRequest, logResult, outsideFields } from "../lib/measure";
import { cpuTicks, freePort, meterOutsideLoad, rssMiB, startNode, waitForHttp, waitUntilIdle, type Child, type OutsideLoad } from "../lib/procs";
import type { Row, RunTable } from "../lib/report";
import { joinAnchor, runRoomLoad } from "../lib/room-load";
import { login } from "../lib/service";

/** Joins/s with auth ÷ without. */
const ROOMS_TARGET = 0.9;

/** The no-auth Colyseus server for the comparison, on the same kind of presence/driver as the service. */
export async function startNoauthServer(nodeArgs: string[], redisUrl: string | undefined): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = startNode({
    name: "colyseus-noauth",
    args: [...nodeArgs, ...TSX_IMPORT, path.join(ROOT, "bench/servers/colyseus-noauth.ts")],
    env: { PORT: String(port), NODE_ENV: "development", ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
    cwd: ROOT,
  });
  const url = `http://127.0.0.1:${port}`;
  // Colyseus answers GET /matchmake/ with 404 once listening (other paths would hang).
  await waitForHttp(child, `${url}/matchmake/`);
  return { child, url };
}

/** The players the room loops and the anchor join as, each logged in once, before anything is measured. */
export async function loginRoomPlayers(ctx: Context, base: string): Promise<string[]> {
  const { roomPlayers } = ctx.flags;
  const tokens: string[] = [];
  for (let i = 0; i < roomPlayers; i += 4) {
    const batch = await Promise.all(Array.from({ length: Math.min(4, roomPlayers - i) }, (_, k) => login(ctx, base, `roomp${i + k}`)));
    tokens.push(...batch);
  }
  return tokens;
}

export async function measureRoomJoins(
  ctx: Context,
  table: RunTable,
  service: { child: Child; base: string },
  noauth: { child: Child; url: string },
  roomTokens: string[],
  noauthRedisUrl: string | undefined,
): Promise<void> {
  const { roomConcurrency } = ctx.flags;
  const workers = roomTokens.slice(0, roomConcurrency).map((t) => ({ accessToken: t }));
  const anchor = { accessToken: roomTokens[roomConcurrency] };
  const auth = await measureRooms(ctx, "room join+leave, with auth (service)", service.child, service.base, workers, anchor);
  const bare = await measureRooms(ctx, "room join+leave, no auth (bare Colyseus)", noauth.child, noauth.url, workers.map(() => ({})), {});
  auth.target = { ratio: auth.m.reqPerSec / bare.m.reqPerSec, min: ROOMS_TARGET, against: "join without auth" };
  table.rows.push(auth, bare);
  for (const row of [auth, bare]) if (row.note) table.notes.push(`${row.label}: first failure: ${row.note}`);
  if (noauthRedisUrl) table.notes.push(`the no-auth server uses Redis presence/driver too (${noauthRedisUrl}), like the service`);
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
  if (isAborting()) throw new Error("aborted");
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

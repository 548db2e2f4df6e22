/**
 * The room-traffic step: rooms of 10 authenticated players exchanging chat-sized messages at 10 Hz,
 * grown in one service process (Redis presence and driver, PostgreSQL) until the p99 delivery
 * latency passes 50 ms or the process saturates; players held per process and per core. Then the
 * same room counts on bare Colyseus (the same relay room without auth, the same Redis presence and
 * driver): the latency and CPU the framework itself takes for this traffic.
 */
import path from "node:path";
import { prepareBackends } from "../lib/backends";
import { log, ROOT, TSX_IMPORT, type Context } from "../lib/context";
import { cpuProfiling, mainThreadProfile } from "../lib/cpu-profiles";
import { isAborting, tempDir } from "../lib/lifecycle";
import { sleep } from "../lib/procs";
import { formatProfile, summarizeProfile } from "../lib/profile";
import { rampRoomTraffic, type TrafficOptions, type TrafficStep } from "../lib/room-traffic";
import { fmt, section, simpleTable, skippedSection } from "../lib/report";
import { startService } from "../lib/service";
import { startNoauthServer } from "./rooms";

export const TRAFFIC = {
  roomSize: 10,
  hz: 10,
  /** Characters of text per message: a chat line (the lobby allows 200). */
  textLength: 60,
  p99LimitMs: 50,
  /** Service CPU share of one core at which the process counts as saturated. */
  saturatedShare: 0.95,
  workers: 4,
  /** Total rooms after each step. */
  schedule: [10, 20, 40, 60, 80, 100, 130, 160, 200, 250, 300, 400, 500],
} as const;

export async function roomTrafficStep(ctx: Context): Promise<string> {
  const title = "Rooms under traffic: 10 players per room, 10 messages/s each (Redis + PostgreSQL)";
  const tmp = tempDir("mgl-bench-traffic-");
  const backends = await prepareBackends(ctx, "redis-pg", tmp);
  if (typeof backends === "string") return skippedSection(title, backends);
  const profiling = cpuProfiling(ctx, "room-traffic");
  const wrapper = path.join(ROOT, "bench/servers/room-traffic-service.cjs");
  const { child, base } = await startService(ctx, "service (room traffic)", backends.env, tmp, profiling.nodeArgs, wrapper);
  await sleep(1000);
  log("room traffic: ramping rooms of 10 talking players…");
  const measureSec = Math.min(ctx.flags.durationSec, 10);
  const ramp = {
    tsxImport: TSX_IMPORT,
    workers: TRAFFIC.workers,
    roomSize: TRAFFIC.roomSize,
    hz: TRAFFIC.hz,
    textLength: TRAFFIC.textLength,
    measureSec,
    p99LimitMs: TRAFFIC.p99LimitMs,
    saturatedShare: TRAFFIC.saturatedShare,
    tag: ctx.tag,
    log,
    aborted: isAborting,
  };
  const schedule = ctx.flags.trafficSteps ?? [...TRAFFIC.schedule];
  const { steps, stoppedBecause } = await rampRoomTraffic({ ...ramp, baseUrl: base, authenticated: true, service: child, schedule, enforceLimits: !ctx.flags.trafficSteps });
  await child.stop();
  const bare = steps.length > 0 && !isAborting() ? await rampBareColyseus(ramp, backends.noauthRedisUrl, steps.map((s) => s.rooms)) : [];
  if (ctx.flags.profile) {
    const file = mainThreadProfile(profiling.dir, child.pid);
    if (file) ctx.profiles.push(`#### CPU profile of the service, room-traffic step (the whole ramp)\n\n\`\`\`\n${formatProfile(summarizeProfile(file, ROOT))}\n\`\`\``);
  }

  const within = (s: (typeof steps)[number]) => s.p99 <= TRAFFIC.p99LimitMs && s.serviceCpuShare < TRAFFIC.saturatedShare && s.errors === 0 && s.deliveredShare >= 0.98;
  const held = steps.filter(within).at(-1);
  const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : "–");
  const table = simpleTable(
    ["Rooms", "players", "messages/s in", "deliveries/s", "delivered", "p50 ms", "p99 ms", "max ms", "service CPU (core)", "CPU µs/message", "players per core at this CPU", "generators (cores)", "Redis+PG (cores)", "others (cores)", "RSS MiB", "join p99 ms", "errors"],
    steps.map((s) => [
      fmt(s.rooms),
      fmt(s.players),
      fmt(s.sentPerSec),
      fmt(s.deliveredPerSec),
      `${(s.deliveredShare * 100).toFixed(1)}%`,
      s.p50.toFixed(1),
      s.p99.toFixed(1),
      s.max.toFixed(0),
      pct(s.serviceCpuShare),
      s.cpuUsPerMessage.toFixed(0),
      playersPerCore(s),
      s.generatorCores.toFixed(2),
      s.databaseCores.toFixed(2),
      s.otherCores.toFixed(2),
      fmt(s.rssMiB),
      s.joinP99.toFixed(0),
      String(s.errors),
    ]),
  );
  const perCore = held && held.serviceCpuShare > 0 ? held.players / held.serviceCpuShare : NaN;
  const summary = simpleTable(
    ["Figure", "value"],
    [
      ["players held by one process (p99 ≤ 50 ms, not saturated, no errors)", held ? `${fmt(held.players)} (${fmt(held.rooms)} rooms), p99 ${held.p99.toFixed(1)} ms` : "none"],
      ["service CPU at that step", held ? `${pct(held.serviceCpuShare)} of a core, ${held.cpuUsPerMessage.toFixed(0)} µs per message (relayed to 10)` : "–"],
      ["players per core (held ÷ the cores the process used)", held ? fmt(perCore) : "–"],
      ["the ramp stopped because", stoppedBecause],
      ["players per core at the last step's CPU cost (whatever its latency)", playersPerCore(steps.at(-1))],
      ["bare Colyseus at the held step's rooms", describeBare(held, bare)],
    ],
  );
  const versus = simpleTable(
    ["Rooms", "p99 ms (service / bare)", "CPU µs/message (service / bare)", "players per core (service / bare)", "generators, cores (service / bare)", "errors (bare)"],
    steps.map((s) => {
      const b = bare.find((x) => x.rooms === s.rooms);
      return [fmt(s.rooms), `${s.p99.toFixed(1)} / ${b ? b.p99.toFixed(1) : "–"}`, `${s.cpuUsPerMessage.toFixed(0)} / ${b ? b.cpuUsPerMessage.toFixed(0) : "–"}`, `${playersPerCore(s)} / ${playersPerCore(b)}`, `${s.generatorCores.toFixed(2)} / ${b ? b.generatorCores.toFixed(2) : "–"}`, b ? String(b.errors) : "–"];
    }),
  );
  const firstError = steps.find((s) => s.firstError)?.firstError;
  return section(
    title,
    [
      `A room type a studio would write on AuthenticatedRoom ("traffic", bench/servers/room-traffic-service.cjs: the service as it starts, plus this room): up to ${TRAFFIC.roomSize} players, the lobby's state shape, and a \`say\` message (${TRAFFIC.textLength}-character text and a timestamp) relayed at once to every player of the room with the sender from \`client.auth\` (no moderation or 1-per-second flood rule: game traffic, not typed chat). Each player sends ${TRAFFIC.hz} messages/s on its own phase, so a room carries ${TRAFFIC.roomSize * TRAFFIC.hz} messages in and ${TRAFFIC.roomSize * TRAFFIC.roomSize * TRAFFIC.hz} deliveries out per second. Every player is a distinct logged-in user (join with its token, one seat each); a room's players all live in one of ${TRAFFIC.workers} generator processes (colyseus.js), which times every delivery from send to receipt on one clock.`,
      `One process with REDIS_URL (presence, driver and cache on Redis) and PostgreSQL. Rooms are added in steps (${(ctx.flags.trafficSteps ?? TRAFFIC.schedule).join(", ")}${ctx.flags.trafficSteps ? ", given by --traffic-steps: each measured whatever its latency or CPU" : ""}); after each, a ${measureSec} s window is measured. The ramp stops at the first step whose p99 passes ${TRAFFIC.p99LimitMs} ms, whose service CPU reaches ${TRAFFIC.saturatedShare * 100}% of a core, or that loses messages or players. Players per core divides the players held by the service CPU they took, so it is what a core given to this process alone would carry (the table shows it for every step: on a busy machine the latency limit may stop the ramp long before the CPU does); on this 2-core machine the generators (a column of their own) compete with the service, and their own receive work is inside the latency.`,
      `Then bare Colyseus (bench/servers/colyseus-noauth.ts: the same relay room and state without auth, the sender its session id, the same Redis presence and driver) at each room count the service was measured at, whatever its latency: the second table puts the two side by side.`,
    ],
    { markdown: `${summary.markdown}\n\n${table.markdown}\n\n${versus.markdown}`, text: `${summary.text}\n\n${table.text}\n\n${versus.text}` },
    firstError ? [`first failure: ${firstError}`] : [],
  );
}

/** The same ramp on bare Colyseus at the given room counts, each measured whatever its latency. */
async function rampBareColyseus(ramp: Omit<TrafficOptions, "baseUrl" | "authenticated" | "service" | "schedule" | "enforceLimits">, redisUrl: string | undefined, schedule: number[]): Promise<TrafficStep[]> {
  const noauth = await startNoauthServer([], redisUrl);
  try {
    log("room traffic: the same rooms on bare Colyseus…");
    return (await rampRoomTraffic({ ...ramp, baseUrl: noauth.url, authenticated: false, service: noauth.child, schedule, enforceLimits: false })).steps;
  } finally {
    await noauth.child.stop();
  }
}

function describeBare(held: TrafficStep | undefined, bare: TrafficStep[]): string {
  const b = held && bare.find((x) => x.rooms === held.rooms);
  if (!held || !b) return "–";
  return `p99 ${b.p99.toFixed(1)} ms (service ${held.p99.toFixed(1)}), ${b.cpuUsPerMessage.toFixed(0)} µs per message, ${playersPerCore(b)} players per core`;
}

/** Players a step held ÷ the cores its server used, formatted; "–" without a step or CPU. */
function playersPerCore(step: TrafficStep | undefined): string {
  return step && step.serviceCpuShare > 0 ? fmt(step.players / step.serviceCpuShare) : "–";
}

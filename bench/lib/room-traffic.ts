/**
 * Rooms under traffic: rooms of 10 authenticated players, each player sending a chat-sized message
 * at 10 Hz that the room relays to all 10, grown step by step in one service process until the p99
 * delivery latency passes the limit or the process saturates. The players are spread over several
 * generator processes (room-traffic-worker.ts), each owning whole rooms so one clock times a
 * delivery from send to receipt. After each step's rooms are open and talking, one window is
 * measured: every delivery's latency, the service's CPU and RSS, the generators' CPU.
 */
import path from "node:path";
import { cpuTicks, meterOutsideLoad, rssMiB, sleep, startNode, type Child } from "./procs";

export interface TrafficOptions {
  baseUrl: string;
  /** False for a server without auth: the players join without logging in. */
  authenticated: boolean;
  service: Child;
  tsxImport: string[];
  workers: number;
  /** Total rooms after each step, ascending; the ramp stops early at the limits. */
  schedule: number[];
  roomSize: number;
  hz: number;
  textLength: number;
  measureSec: number;
  p99LimitMs: number;
  /** Service CPU (share of one core) at or above which the process counts as saturated. */
  saturatedShare: number;
  /** False: every step of the schedule is measured whatever its latency or CPU (errors still stop). */
  enforceLimits: boolean;
  tag: string;
  log: (msg: string) => void;
  aborted: () => boolean;
}

export interface TrafficStep {
  rooms: number;
  players: number;
  /** Messages the players sent per second (each is relayed to the room's 10 players). */
  sentPerSec: number;
  deliveredPerSec: number;
  /** Deliveries ÷ (sent × room size) over the window. */
  deliveredShare: number;
  p50: number;
  p99: number;
  max: number;
  /** Service CPU during the window, as a share of one core. */
  serviceCpuShare: number;
  /** Service CPU per message sent (which the room relays to 10), µs. */
  cpuUsPerMessage: number;
  /** All generator processes' CPU, in cores. */
  generatorCores: number;
  /** Redis and PostgreSQL servers' CPU, in cores. */
  databaseCores: number;
  otherCores: number;
  rssMiB: number;
  joinP99: number;
  errors: number;
  firstError?: string;
}

interface MeasureAnswer {
  histogram: number[];
  bucketMs: number;
  received: number;
  sent: number;
  seconds: number;
  cpuShare: number;
  errors: number;
  disconnected: number;
  firstError?: string;
}

export async function rampRoomTraffic(opts: TrafficOptions): Promise<{ steps: TrafficStep[]; stoppedBecause: string }> {
  const workers = Array.from({ length: opts.workers }, (_, i) =>
    startNode({ name: `traffic-worker-${i}`, args: [...opts.tsxImport, path.join(__dirname, "room-traffic-worker.ts")], env: {}, ipc: true }),
  );
  const steps: TrafficStep[] = [];
  let rooms = 0;
  let stoppedBecause = `reached ${opts.schedule.at(-1)} rooms, the end of the schedule`;
  let seq = 0;
  try {
    for (const target of opts.schedule) {
      if (opts.aborted()) {
        stoppedBecause = "aborted";
        break;
      }
      const adding = target - rooms;
      if (adding <= 0) continue;
      // Whole rooms per generator, round-robin.
      const perWorker = workers.map((_, i) => Math.floor(adding / workers.length) + (i < adding % workers.length ? 1 : 0));
      const logins = await Promise.all(
        workers.map((w, i) => {
          const players = Array.from({ length: perWorker[i] * opts.roomSize }, () => `traffic${seq++}.${opts.tag}`);
          return ask<{ errors: number; firstError?: string }>(w, { cmd: "login", baseUrl: opts.authenticated ? opts.baseUrl : undefined, players, concurrency: 8 });
        }),
      );
      const opened = await Promise.all(
        workers.map((w) => ask<{ errors: number; firstError?: string; joinLatencies: number[] }>(w, { cmd: "open", baseUrl: opts.baseUrl, roomSize: opts.roomSize, hz: opts.hz, textLength: opts.textLength, concurrency: 2 })),
      );
      rooms = target;
      await sleep(1500); // every new player past its random phase, and the joins' own work done
      const ticks0 = cpuTicks(opts.service.pid) ?? 0;
      const outside = meterOutsideLoad();
      const t0 = Date.now();
      const answers = await Promise.all(workers.map((w) => ask<MeasureAnswer>(w, { cmd: "measure", seconds: opts.measureSec })));
      const seconds = (Date.now() - t0) / 1000;
      const serviceCpuShare = ((cpuTicks(opts.service.pid) ?? ticks0) - ticks0) / 100 / seconds;
      const load = outside();
      const histogram = new Array<number>(answers[0].histogram.length).fill(0);
      for (const a of answers) a.histogram.forEach((n, i) => (histogram[i] += n));
      const received = answers.reduce((n, a) => n + a.received, 0);
      const sent = answers.reduce((n, a) => n + a.sent, 0);
      const joinLatencies = opened.flatMap((o) => o.joinLatencies).sort((a, b) => a - b);
      const errors = [...logins, ...opened, ...answers].reduce((n, a) => n + a.errors, 0) + answers.reduce((n, a) => n + a.disconnected, 0);
      const step: TrafficStep = {
        rooms,
        players: rooms * opts.roomSize,
        sentPerSec: sent / seconds,
        deliveredPerSec: received / seconds,
        deliveredShare: sent > 0 ? received / (sent * opts.roomSize) : 0,
        p50: quantile(histogram, answers[0].bucketMs, 0.5),
        p99: quantile(histogram, answers[0].bucketMs, 0.99),
        max: quantile(histogram, answers[0].bucketMs, 1),
        serviceCpuShare,
        cpuUsPerMessage: sent > 0 ? (serviceCpuShare * seconds * 1e6) / sent : NaN,
        generatorCores: answers.reduce((n, a) => n + a.cpuShare, 0),
        databaseCores: load?.databaseCores ?? NaN,
        otherCores: load?.otherCores ?? NaN,
        rssMiB: rssMiB(opts.service.pid) ?? NaN,
        joinP99: joinLatencies.length > 0 ? joinLatencies[Math.min(joinLatencies.length - 1, Math.ceil(0.99 * joinLatencies.length) - 1)] : NaN,
        errors,
        firstError: [...logins, ...opened, ...answers].find((a) => a.firstError)?.firstError,
      };
      steps.push(step);
      opts.log(
        `  ${step.rooms} rooms (${step.players} players): p50 ${step.p50.toFixed(1)} ms, p99 ${step.p99.toFixed(1)} ms, ${Math.round(step.deliveredPerSec)} deliveries/s (${(step.deliveredShare * 100).toFixed(1)}%), service CPU ${(serviceCpuShare * 100).toFixed(0)}% of a core (${step.cpuUsPerMessage.toFixed(0)} µs/message), generators ${step.generatorCores.toFixed(2)} cores, ${errors} errors`,
      );
      if (opts.enforceLimits && step.p99 > opts.p99LimitMs) {
        stoppedBecause = `p99 ${step.p99.toFixed(1)} ms > ${opts.p99LimitMs} ms at ${rooms} rooms`;
        break;
      }
      if (opts.enforceLimits && serviceCpuShare >= opts.saturatedShare) {
        stoppedBecause = `the service saturated (${(serviceCpuShare * 100).toFixed(0)}% of a core) at ${rooms} rooms`;
        break;
      }
      if (errors > 0 || step.deliveredShare < 0.98) {
        stoppedBecause = `${errors} errors, ${(step.deliveredShare * 100).toFixed(1)}% delivered at ${rooms} rooms`;
        break;
      }
    }
  } finally {
    await Promise.all(workers.map((w) => ask(w, { cmd: "stop" }, 15_000).catch(() => undefined)));
    await Promise.all(workers.map((w) => w.stop()));
  }
  return { steps, stoppedBecause };
}

/** The latency at quantile q (0..1) of a histogram with `bucketMs` buckets (upper edge of the bucket). */
function quantile(histogram: number[], bucketMs: number, q: number): number {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return NaN;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= rank) return (i + 1) * bucketMs;
  }
  return histogram.length * bucketMs;
}

function ask<T>(worker: Child, message: unknown, timeoutMs = 300_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${worker.name} did not answer within ${timeoutMs} ms`)), timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      reject(new Error(`${worker.name} exited:\n${worker.tail()}`));
    };
    worker.process.once("exit", onExit);
    worker.process.once("message", (answer: T) => {
      clearTimeout(timer);
      worker.process.off("exit", onExit);
      resolve(answer);
    });
    worker.process.send(message as object);
  });
}

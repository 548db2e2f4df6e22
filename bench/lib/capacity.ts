/**
 * How many connected, authenticated, idle lobby clients one service process holds: distinct
 * players are logged in and joined in steps, spread over several generator processes
 * (capacity-worker.ts), until a step's join p99 passes the limit or the client cap is reached.
 * After each step: the service's RSS, the CPU the step cost per login+join, and the CPU the idle
 * clients cost while nothing happens.
 */
import path from "node:path";
import { cpuTicks, rssMiB, sleep, startNode, type Child } from "./procs";

export interface CapacityOptions {
  baseUrl: string;
  service: Child;
  /** Node args that load tsx, so the workers run from TypeScript. */
  tsxImport: string[];
  workers: number;
  stepClients: number;
  maxClients: number;
  joinP99LimitMs: number;
  /** Joins in flight per generator. */
  joinConcurrency: number;
  /** Makes each player's login code unique to this run. */
  tag: string;
  log: (msg: string) => void;
  aborted: () => boolean;
}

export interface CapacityStep {
  clients: number;
  joinsPerSec: number;
  p50: number;
  p99: number;
  /** Service CPU per join during the step (logins excluded), ms. */
  cpuMsPerClient: number;
  /** Service CPU while all clients sit idle, as a share of one core. */
  idleCpuShare: number;
  rssMiB: number;
  errors: number;
  firstError?: string;
}

interface LoginAnswer {
  loggedIn: number;
  errors: number;
  firstError?: string;
}

interface WorkerAnswer {
  latencies: number[];
  errors: number;
  firstError?: string;
  joinSeconds: number;
  connected: number;
}

export async function rampIdleClients(opts: CapacityOptions): Promise<CapacityStep[]> {
  const workers = Array.from({ length: opts.workers }, (_, i) =>
    startNode({ name: `capacity-worker-${i}`, args: [...opts.tsxImport, path.join(__dirname, "capacity-worker.ts")], env: {}, ipc: true }),
  );
  const steps: CapacityStep[] = [];
  let total = 0;
  try {
    while (total < opts.maxClients && !opts.aborted()) {
      const count = Math.min(opts.stepClients, opts.maxClients - total);
      const perWorker = Math.ceil(count / workers.length);
      // Every generator logs its players in first; only then do the joins start, timed on their own.
      const logins = await Promise.all(
        workers.map((w, i) => {
          const from = total + i * perWorker;
          const n = Math.max(0, Math.min(perWorker, total + count - from));
          const players = Array.from({ length: n }, (_, k) => `cap${from + k}.${opts.tag}`);
          return ask<LoginAnswer>(w, { cmd: "login", baseUrl: opts.baseUrl, players, concurrency: 8 });
        }),
      );
      const ticks0 = cpuTicks(opts.service.pid) ?? 0;
      const answers = await Promise.all(workers.map((w) => ask<WorkerAnswer>(w, { cmd: "join", baseUrl: opts.baseUrl, concurrency: opts.joinConcurrency })));
      const ticks1 = cpuTicks(opts.service.pid) ?? ticks0;
      for (const l of logins) if (l.errors > 0) answers.push({ latencies: [], errors: l.errors, firstError: l.firstError, joinSeconds: 0, connected: 0 });
      const latencies = answers.flatMap((a) => a.latencies).sort((a, b) => a - b);
      const errors = answers.reduce((n, a) => n + a.errors, 0);
      total = answers.slice(0, workers.length).reduce((n, a) => n + a.connected, 0);
      // Idle: nobody joins or leaves; what remains is the rooms' own ticks and the sockets' pings.
      await sleep(1000);
      const idle0 = cpuTicks(opts.service.pid) ?? 0;
      const idleStart = Date.now();
      await sleep(3000);
      const idleShare = ((cpuTicks(opts.service.pid) ?? idle0) - idle0) / 100 / ((Date.now() - idleStart) / 1000);
      const step: CapacityStep = {
        clients: total,
        joinsPerSec: latencies.length / Math.max(...answers.map((a) => a.joinSeconds), 0.001),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpuMsPerClient: latencies.length > 0 ? ((ticks1 - ticks0) * 10) / latencies.length : NaN,
        idleCpuShare: idleShare,
        rssMiB: rssMiB(opts.service.pid) ?? NaN,
        errors,
        firstError: answers.find((a) => a.firstError)?.firstError,
      };
      steps.push(step);
      opts.log(
        `  ${total} clients: join p50 ${step.p50.toFixed(1)} ms, p99 ${step.p99.toFixed(1)} ms, RSS ${step.rssMiB.toFixed(0)} MiB, idle CPU ${(idleShare * 100).toFixed(1)}% of a core, ${errors} errors`,
      );
      if (step.p99 > opts.joinP99LimitMs || errors > count / 10 || latencies.length === 0) break;
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
  return steps;
}

function ask<T>(worker: Child, message: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error(`${worker.name} exited:\n${worker.tail()}`));
    worker.process.once("exit", onExit);
    worker.process.once("message", (answer: T) => {
      worker.process.off("exit", onExit);
      resolve(answer);
    });
    worker.process.send(message as object);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

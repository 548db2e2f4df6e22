/**
 * Child processes of the benchmark: started on 127.0.0.1 ports, waited for, measured (RSS, CPU)
 * and always stopped, by pid, whatever way the run ends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Last lines of stdout/stderr, for error reports. */
  tail(): string;
  /** Resolves once the process has exited (code or signal). */
  exited: Promise<void>;
  stop(): Promise<void>;
}

const children = new Set<Child>();

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Opens an IPC channel (child.process.send / "message"). */
  ipc?: boolean;
  /** Another node binary than the bench's own (a Node version A/B). */
  node?: string;
}

/** Starts `node <args>` directly (no npm/tsx wrapper), so the pid is the server's own. */
export function startNode(opts: StartOptions): Child {
  const proc = spawn(opts.node ?? process.execPath, opts.args, {
    cwd: opts.cwd,
    env: { ...baseEnv(), ...opts.env },
    stdio: opts.ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  if (proc.pid === undefined) throw new Error(`${opts.name}: could not spawn`);
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) lines.push(line);
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  let exitedFlag = false;
  const exited = new Promise<void>((resolve) => {
    proc.once("exit", () => {
      exitedFlag = true;
      resolve();
    });
  });
  const child: Child = {
    name: opts.name,
    pid: proc.pid,
    process: proc,
    tail: () => lines.join("\n"),
    exited,
    stop: async () => {
      if (!exitedFlag) {
        proc.kill("SIGTERM");
        const killTimer = setTimeout(() => {
          if (!exitedFlag) proc.kill("SIGKILL");
        }, 8000);
        await exited;
        clearTimeout(killTimer);
      }
      children.delete(child);
    },
  };
  children.add(child);
  return child;
}

/** The parent's environment minus anything that would change how the children behave. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k === "NODE_OPTIONS" || k.startsWith("npm_")) continue;
    env[k] = v;
  }
  return env;
}

/** Stops every child still running, in parallel (each by its own pid). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => c.stop().catch(() => undefined)));
}

/** Synchronous last resort (process "exit" handler): SIGKILL whatever is left. */
export function killAllNow(): void {
  for (const c of children) {
    try {
      c.process.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** One GET; resolves with the status, or rejects on a connection error or after timeoutMs. */
export function httpGet(url: string, timeoutMs = 2000, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${url}`)));
    req.on("error", reject);
  });
}

/** Polls `url` until it answers anything over HTTP; fails early if the child exits. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void child.exited.then(() => (died = true));
  for (;;) {
    if (died) throw new Error(`${child.name} exited before answering:\n${child.tail()}`);
    try {
      await httpGet(url, 1000);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.tail()}`);
      await sleep(100);
    }
  }
}

/** Resident set size of a process in MiB, from /proc/<pid>/status (VmRSS); undefined when unreadable. */
export function rssMiB(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ticks (user + system, 1/100 s) a process has used, from /proc/<pid>/stat. */
export function cpuTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  } catch {
    return undefined;
  }
}

/** Busy CPU ticks of the whole machine (all cores; idle and iowait excluded), from /proc/stat. */
function machineBusyTicks(): number | undefined {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return user + nice + system + irq + softirq + (steal ?? 0);
  } catch {
    return undefined;
  }
}

/** CPU ticks used so far by this process and every child it still runs. */
function ownTicks(): number {
  const usage = process.cpuUsage();
  let ticks = (usage.user + usage.system) / 10_000;
  for (const c of children) ticks += cpuTicks(c.pid) ?? 0;
  return ticks;
}

/** Process names of the shared database servers the Redis + PostgreSQL run talks to. */
const DATABASE_SERVERS = new Set(["redis-server", "postgres"]);

/** CPU ticks used so far by the local Redis and PostgreSQL server processes (all of them). */
function databaseServerTicks(): number {
  let ticks = 0;
  let entries: string[] = [];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (DATABASE_SERVERS.has(fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim())) ticks += cpuTicks(Number(entry)) ?? 0;
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
}

export interface OutsideLoad {
  /** Average cores taken by processes that are neither ours nor the database servers. */
  otherCores: number;
  /** Average cores taken by the Redis and PostgreSQL servers (serving us, or anyone else). */
  databaseCores: number;
}

/**
 * Starts measuring how much CPU processes that are not ours use (other people's tests, builds…),
 * apart from the database servers. The returned function gives the averages since the start.
 */
export function meterOutsideLoad(): () => OutsideLoad | undefined {
  const busy0 = machineBusyTicks();
  const own0 = ownTicks();
  const db0 = databaseServerTicks();
  const t0 = Date.now();
  return () => {
    const busy1 = machineBusyTicks();
    if (busy0 === undefined || busy1 === undefined) return undefined;
    const seconds = (Date.now() - t0) / 1000;
    if (seconds <= 0) return undefined;
    const db = Math.max(0, databaseServerTicks() - db0);
    const other = busy1 - busy0 - (ownTicks() - own0) - db;
    return { otherCores: Math.max(0, other / 100 / seconds), databaseCores: db / 100 / seconds };
  };
}

/**
 * Waits until the process is nearly idle (under `maxShare` of one core over 250 ms windows), so work
 * left over from one scenario (queued scrypt hashes, GC) does not leak into the next. Bounded.
 */
export async function waitUntilIdle(pid: number, maxWaitMs = 10_000, maxShare = 0.1): Promise<void> {
  const ticksPerSec = 100; // USER_HZ on Linux
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline) {
    const a = cpuTicks(pid);
    const t0 = Date.now();
    await sleep(250);
    const b = cpuTicks(pid);
    if (a === undefined || b === undefined) return;
    const share = (b - a) / ticksPerSec / ((Date.now() - t0) / 1000);
    if (share <= maxShare) return;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A real three-master Redis Cluster of Debian's redis-server, on free local ports, made for the run
 * by whichever suite asks first (`redis-cli --cluster create`) and stopped when the run ends, even
 * after a failure. Loopback only; nothing kept on disk past the run.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app-harness";
import { declareBackend } from "./backend-report";

const START_BUDGET_MS = 20_000;

function missingTools(): string | undefined {
  for (const tool of ["redis-server", "redis-cli"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed (Debian: redis-server, redis-tools)`;
  }
  return undefined;
}

/** Why the cluster suites skip, or undefined when they run. */
export const redisClusterSkipReason = missingTools();
declareBackend({ name: "Redis Cluster", titles: /Redis Cluster/, skipReason: redisClusterSkipReason });

export interface RedisClusterNodes {
  /** `redis://127.0.0.1:<port>` of each master: the REDIS_CLUSTER_NODES value. */
  urls: string[];
  ports: number[];
}

let started: Promise<RedisClusterNodes> | undefined;
const children: ChildProcess[] = [];
let dir: string | undefined;

/** The run's cluster, started on first use. */
export function redisCluster(): Promise<RedisClusterNodes> {
  started ??= startCluster().catch(async (err: unknown) => {
    await stopCluster();
    throw err;
  });
  return started;
}

async function startCluster(): Promise<RedisClusterNodes> {
  if (redisClusterSkipReason) throw new Error(redisClusterSkipReason);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-redis-cluster-"));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freePort());
  await createCluster(ports, dir, children, () => []);
  return { urls: ports.map((p) => `redis://127.0.0.1:${p}`), ports };
}

/** Starts three masters on `ports` and joins them; `extraArgs` adds per-node redis-server arguments. */
async function createCluster(ports: number[], workDir: string, into: ChildProcess[], extraArgs: (port: number) => string[]): Promise<void> {
  const deadline = Date.now() + START_BUDGET_MS;
  for (const port of ports) {
    // Each node's cluster bus listens on port + 10000, which must be free as well: a rare clash fails the start.
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no", "--dir", workDir, "--logfile", "", ...extraArgs(port)],
      { stdio: "ignore" },
    );
    into.push(child);
  }
  for (const port of ports) await until(() => cli(port, "ping") === "PONG", deadline, `node ${port} answers`);
  // Not spawnSync: redis-cli checks the nodes at the addresses they announce, which may be proxies
  // served by this very event loop.
  const create = await run("redis-cli", ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "0", "--cluster-yes"], Math.max(1000, deadline - Date.now()));
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.output}`);
  for (const port of ports) await until(() => /cluster_state:ok/.test(cli(port, "cluster", "info")), deadline, `node ${port} reports cluster_state:ok`);
}

/** A cluster of its own whose nodes are reached only through `proxies` (a fault test's, by node). */
export interface ProxiedRedisCluster {
  /** REDIS_CLUSTER_NODES: the proxies' addresses, which the nodes also announce to clients. */
  urls: string[];
  stop(): Promise<void>;
}

/**
 * Three masters that announce `proxyPortFor(nodePort)` to clients, so every client connection, the
 * discovered ones included, passes through a proxy the test can cut or silence; the cluster bus
 * between the nodes stays direct. Stopped by `stop()` (and at the end of the run).
 */
export async function startProxiedRedisCluster(proxyPortFor: (nodePort: number) => Promise<number>): Promise<ProxiedRedisCluster> {
  if (redisClusterSkipReason) throw new Error(redisClusterSkipReason);
  const own: ChildProcess[] = [];
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-redis-cluster-proxied-"));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freePort());
  const proxied = new Map<number, number>();
  for (const port of ports) proxied.set(port, await proxyPortFor(port));
  const stop = async () => {
    await Promise.all(own.splice(0).map(killAndWait));
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    await createCluster(ports, workDir, own, (port) => ["--cluster-announce-ip", "127.0.0.1", "--cluster-announce-port", String(proxied.get(port)), "--cluster-announce-bus-port", String(port + 10000)]);
  } catch (err) {
    await stop();
    throw err;
  }
  process.once("exit", () => own.forEach((c) => c.kill("SIGKILL")));
  return { urls: ports.map((p) => `redis://127.0.0.1:${proxied.get(p)}`), stop };
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (status) => resolve({ status, output }));
  });
}

function killAndWait(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

function cli(port: number, ...args: string[]): string {
  return spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 2000 }).stdout?.trim() ?? "";
}

async function until(check: () => boolean, deadline: number, what: string): Promise<void> {
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: gave up waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopCluster(): Promise<void> {
  await Promise.all(children.splice(0).map(killAndWait));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  started = undefined;
}

// A root hook: the cluster lives for the whole run and goes with it, whatever happened.
after(stopCluster);
process.once("exit", () => children.forEach((c) => c.kill("SIGKILL")));

/**
 * The hosts of the multi-host test, made by the test itself and removed after it, even on failure:
 * a bridge in the root namespace (10.88.N.1) and one network namespace per server host (10.88.N.1x),
 * each behind its own veth, so a host can be cut off and brought back by taking its bridge port
 * down and up. In the root namespace, on the bridge address: a Redis of the test's own, a relay to
 * the shared PostgreSQL (which listens on loopback only; the test uses a database of its own), the
 * platform simulator, and nginx as the front door. Traffic goes only to these addresses and loopback.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");
const STEP_TIMEOUT_MS = 5000;

/** Why the multi-host test cannot run here, or undefined. */
export function multihostSkipReason(databaseUrl: string | undefined): string | undefined {
  if (process.platform !== "linux") return "needs Linux network namespaces";
  if (process.getuid?.() !== 0) return "needs root to create network namespaces (CI runs as root)";
  for (const [tool, pkg] of [["ip", "iproute2"], ["nginx", "nginx-light or nginx"], ["redis-server", "redis-server"]]) {
    if (spawnSync("sh", ["-c", `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0) return `${tool} is not installed (Debian: ${pkg})`;
  }
  if (!databaseUrl) return "TEST_DATABASE_URL is not set (the hosts share a PostgreSQL store)";
  return undefined;
}

/** Runs a command to completion, bounded; throws with its output when it fails. */
export function sh(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: STEP_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.error?.message ?? ""}${result.stderr}${result.stdout}`);
  return result.stdout;
}

export interface Host {
  name: string;
  namespace: string;
  address: string;
  /** The bridge port of the host's veth: down cuts the host off, up brings it back. */
  port: string;
}

/** A child process with its output kept, stoppable by its own pid. */
export class Child {
  output = "";
  readonly exited: Promise<void>;
  constructor(readonly label: string, readonly process: ChildProcess) {
    process.stdout?.on("data", (c) => (this.output += c));
    process.stderr?.on("data", (c) => (this.output += c));
    this.exited = new Promise((resolve) => process.once("exit", () => resolve()));
  }
  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.running) this.process.kill(signal);
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
  tail(lines = 30): string {
    return this.output.split("\n").slice(-lines).join("\n");
  }
}

export class Topology {
  readonly id = crypto.randomBytes(2).toString("hex");
  readonly subnet = pickSubnet();
  readonly bridgeAddress = `${this.subnet}.1`;
  readonly bridge = `mhbr${this.id}`;
  readonly hosts: Host[];
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-multihost-"));
  readonly children: Child[] = [];
  private relay?: net.Server;
  private frontDoorAddress = this.bridgeAddress;
  private readonly sockets = new Set<net.Socket>();

  constructor(names: string[]) {
    this.hosts = names.map((name, i) => ({ name, namespace: `mgl-mh-${this.id}-${name}`, address: `${this.subnet}.${11 + i}`, port: `mh${this.id}${name}r` }));
    // Whatever happens to the test run, its processes, namespaces and links do not outlive it.
    process.once("exit", () => {
      for (const c of this.children) if (c.running) c.process.kill(c.label === "nginx" ? "SIGTERM" : "SIGKILL");
      this.removeNetwork();
    });
  }

  /** The bridge, and each host's namespace wired to it. */
  createNetwork(): void {
    sh("ip", ["link", "add", this.bridge, "type", "bridge"]);
    sh("ip", ["addr", "add", `${this.bridgeAddress}/24`, "dev", this.bridge]);
    sh("ip", ["link", "set", this.bridge, "up"]);
    for (const h of this.hosts) {
      const inside = `mh${this.id}${h.name}n`;
      sh("ip", ["netns", "add", h.namespace]);
      sh("ip", ["link", "add", h.port, "type", "veth", "peer", "name", inside]);
      sh("ip", ["link", "set", inside, "netns", h.namespace]);
      sh("ip", ["link", "set", h.port, "master", this.bridge, "up"]);
      sh("ip", ["-n", h.namespace, "link", "set", "lo", "up"]);
      sh("ip", ["-n", h.namespace, "addr", "add", `${h.address}/24`, "dev", inside]);
      sh("ip", ["-n", h.namespace, "link", "set", inside, "up"]);
    }
  }

  cut(host: Host): void {
    sh("ip", ["link", "set", host.port, "down"]);
  }

  restore(host: Host): void {
    sh("ip", ["link", "set", host.port, "up"]);
  }

  /** Starts a long-running command in the root namespace (ns undefined) or a host's namespace. */
  start(label: string, command: string, args: string[], env: Record<string, string>, host?: Host): Child {
    const [file, argv] = host ? ["ip", ["netns", "exec", host.namespace, command, ...args]] : [command, args];
    const child = new Child(label, spawn(file, argv, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env }, stdio: ["ignore", "pipe", "pipe"] }));
    this.children.push(child);
    return child;
  }

  /** A Redis of the test's own on the bridge address (and loopback, for the test's own reads). */
  async startRedis(): Promise<number> {
    const port = await freePortOn("127.0.0.1");
    const redis = this.start("redis", "redis-server", ["--port", String(port), "--bind", this.bridgeAddress, "127.0.0.1", "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", this.dir], {});
    await waitFor(() => spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).stdout?.trim() === "PONG", 5000, () => `redis did not start:\n${redis.tail()}`);
    return port;
  }

  /** Forwards the bridge address's port to the shared PostgreSQL, which listens on loopback only. */
  async startDatabaseRelay(target: { host: string; port: number }): Promise<number> {
    this.relay = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => this.relay!.once("error", reject).listen(0, this.bridgeAddress, () => resolve()));
    return (this.relay.address() as net.AddressInfo).port;
  }

  /**
   * The front door's address: the bridge address on port 80, as a studio's would be (443 with TLS),
   * or on a free port if something listens on every address's port 80 (a Debian nginx service).
   */
  async frontDoor(): Promise<string> {
    const port80Free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer().once("error", () => resolve(false));
      probe.listen(80, this.bridgeAddress, () => probe.close(() => resolve(true)));
    });
    this.frontDoorAddress = port80Free ? this.bridgeAddress : `${this.bridgeAddress}:${await freePortOn(this.bridgeAddress)}`;
    return this.frontDoorAddress;
  }

  /** nginx from test/multihost/nginx.conf, listening on the front door's address. */
  async startNginx(): Promise<string> {
    const conf = fs
      .readFileSync(path.join(__dirname, "nginx.conf"), "utf8")
      .replaceAll("{{DIR}}", this.dir)
      .replaceAll("{{LISTEN}}", this.frontDoorAddress.includes(":") ? this.frontDoorAddress : `${this.frontDoorAddress}:80`)
      .replaceAll("{{HOST_A}}", this.hosts[0].address)
      .replaceAll("{{HOST_B}}", this.hosts[1].address);
    const file = path.join(this.dir, "nginx.conf");
    fs.writeFileSync(file, conf);
    fs.chmodSync(this.dir, 0o755); // workers run as an unprivileged user
    const nginx = this.start("nginx", fs.existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx", ["-p", this.dir, "-c", file, "-e", path.join(this.dir, "error.log"), "-g", "daemon off;"], {});
    const url = `http://${this.frontDoorAddress}`;
    await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => undefined)) !== undefined, 5000, () => `nginx did not start:\n${nginx.tail()}`);
    return url;
  }

  nginxErrors(): string {
    const file = path.join(this.dir, "error.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").slice(-30).join("\n") : "(none)";
  }

  async stop(): Promise<void> {
    // nginx's master takes its workers with it on SIGTERM; killed outright it would leave them behind.
    await Promise.all(this.children.map((c) => c.kill(c.label === "nginx" ? "SIGTERM" : "SIGKILL")));
    await Promise.all(this.children.map((c) => c.kill("SIGKILL")));
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.relay ? this.relay.close(() => resolve()) : resolve()));
    this.removeNetwork();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Idempotent and synchronous, so it also runs from the exit handler. */
  removeNetwork(): void {
    for (const h of this.hosts) {
      spawnSync("ip", ["netns", "pids", h.namespace], { encoding: "utf8" }).stdout?.split("\n").filter(Boolean).forEach((pid) => {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      });
      spawnSync("ip", ["link", "del", h.port], { timeout: STEP_TIMEOUT_MS });
      spawnSync("ip", ["netns", "del", h.namespace], { timeout: STEP_TIMEOUT_MS });
    }
    spawnSync("ip", ["link", "del", this.bridge], { timeout: STEP_TIMEOUT_MS });
  }
}

/** A 10.88.N.0/24 no interface of this machine uses yet. */
function pickSubnet(): string {
  const used = spawnSync("ip", ["-4", "-o", "addr"], { encoding: "utf8" }).stdout ?? "";
  for (let attempt = 0; attempt < 50; attempt++) {
    const subnet = `10.88.${16 + crypto.randomInt(224)}`;
    if (!used.includes(` ${subnet}.`)) return subnet;
  }
  throw new Error("no free 10.88.N.0/24 subnet");
}

export async function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, why: () => string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(why());
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

/**
 * Two production processes under pm2, sharing PostgreSQL and a Redis this test owns (so it can
 * stop and restart it), against a standalone simulator. Runs when TEST_DATABASE_URL is set.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client, type Room } from "colyseus.js";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { freePort, simulatorPlatformEnv } from "../support/app-harness";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl } from "../support/services";

const ROOT = path.resolve(__dirname, "../..");
const PM2 = path.join(ROOT, "node_modules/.bin/pm2");
const INTERNAL_KEY = "cluster-internal-key-0123456789";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** pm2 gives instance n the port PORT + n, so two neighbouring ports must be free. */
async function twoFreePorts(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const base = 30000 + Math.floor(Math.random() * 20000);
    if ((await portIsFree(base)) && (await portIsFree(base + 1))) return base;
  }
  throw new Error("no two neighbouring free ports");
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function getJson(url: string, headers: Record<string, string> = {}, method = "GET", body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function startRedis(port: number): ChildProcess {
  return spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
}

(testDatabaseUrl ? describe : describe.skip)("two processes under pm2 (PostgreSQL + Redis)", function () {
  this.timeout(120_000);
  let pm2Home: string;
  let simulator: RunningSimulator;
  let redis: ChildProcess;
  let redisPort: number;
  let dropDatabase: () => Promise<void>;
  let ports: [number, number];
  let env: NodeJS.ProcessEnv;
  const urls = () => ports.map((p) => `http://127.0.0.1:${p}`);
  const pm2 = (...args: string[]) => execFileSync(PM2, args, { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  before(async () => {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT });
    pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), "pm2-"));
    simulator = await startSimulator({ port: 0 });
    redisPort = await freePort();
    redis = startRedis(redisPort);
    const db = await createTestDatabase(testDatabaseUrl!);
    dropDatabase = db.drop;
    const base = await twoFreePorts();
    ports = [base, base + 1];
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PM2_HOME: pm2Home,
      NODE_ENV: "production",
      PORT: String(base),
      INSTANCES: "2",
      PUBLIC_ADDRESS: "127.0.0.1:{port}",
      LOG_LEVEL: "warn",
      JWT_SECRET: "cluster-test-jwt-secret-which-is-long-enough",
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ...simulatorPlatformEnv(simulator.url),
      ACCESS_TOKEN_ROUTE_KEY: INTERNAL_KEY,
      RATE_LIMIT_IP_MAX: "100000",
      SHUTDOWN_TIMEOUT_MS: "8000",
      METRICS_TOKEN: "cluster-metrics-token-0123456789",
    };
    await waitFor(() => canConnect(redisPort), 5000, "redis-server");
    pm2("start", "ecosystem.config.js", "--env", "production");
    for (const url of urls()) await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, `${url}/readyz`);
  });

  after(async () => {
    try {
      if (pm2Home) pm2("kill");
    } catch {
      // the daemon may already be gone
    }
    redis?.kill("SIGKILL");
    await simulator?.close();
    await dropDatabase?.();
    if (pm2Home) fs.rmSync(pm2Home, { recursive: true, force: true });
  });

  it("creates exactly one user for 200 concurrent first logins of one player over both processes", async () => {
    const player = `crowd${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => getJson(`${urls()[i % 2]}/api/minigame/wechat/login?jsCode=${player}.${i}`)),
    );
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    assert.equal(new Set(results.map((r) => r.body.data.user.id)).size, 1);
  });

  it("fetches the platform access token once for 500 concurrent requests over both processes", async () => {
    simulator.resetStats();
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) => getJson(`${urls()[i % 2]}/api/minigame/wechat/access_token`, { "x-internal-key": INTERNAL_KEY })),
    );
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    assert.equal(new Set(results.map((r) => r.body.data.access_token)).size, 1);
    assert.equal(simulator.stats().accessToken.wechat, 1);
  });

  it("accepts a token from one process on the other, over HTTP and in the lobby, and a logout on one kicks the client on the other", async () => {
    const [a, b] = urls();
    const login = await getJson(`${a}/api/minigame/wechat/login?jsCode=cross${Date.now()}`);
    const bearer = { authorization: `Bearer ${login.body.data.token}` };
    assert.equal((await getJson(`${b}/api/users/me`, bearer)).status, 200);

    const room: Room = await new Client(b).joinOrCreate("lobby", { accessToken: login.body.data.token });
    const wsUrl: string = (room.connection as any).transport.ws.url;
    const hostPort = Number(new URL(wsUrl).port);
    // Log out through the process that does NOT hold the room's socket.
    const other = urls()[hostPort === ports[0] ? 1 : 0];
    const left = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("not kicked within a second")), 1000);
      room.onLeave((code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    assert.equal((await getJson(`${other}/api/auth/logout`, bearer, "POST")).status, 200);
    assert.equal(await left, 4401);
  });

  it("loses no request when SIGTERM arrives during a burst", async () => {
    const [a] = urls();
    const list = JSON.parse(pm2("jlist")) as Array<{ pid: number; pm2_env: { NODE_APP_INSTANCE: number } }>;
    const pid = list.find((p) => Number(p.pm2_env.NODE_APP_INSTANCE) === 0)!.pid;
    let signalledAt = Infinity;
    const completedAt: number[] = [];
    const burst = Array.from({ length: 300 }, (_, i) =>
      getJson(`${a}/api/minigame/wechat/login?jsCode=term${Date.now()}x${i}`).then(
        (r) => {
          completedAt.push(Date.now());
          return r;
        },
        (err) => ({ status: 0, body: String(err?.cause?.code ?? err?.cause?.message ?? err) }),
      ),
    );
    await sleep(30);
    signalledAt = Date.now();
    process.kill(pid, "SIGTERM");
    const results = await Promise.all(burst);
    assert.deepEqual(results.map((r) => r.status), results.map(() => 200));
    assert.ok(completedAt.some((t) => t > signalledAt), "some requests were still in flight when the signal arrived");
    // pm2 brings the process back: a new pid, ready (the old one answers 503 while it drains).
    await waitFor(
      async () => {
        const now = JSON.parse(pm2("jlist")) as Array<{ pid: number; pm2_env: { NODE_APP_INSTANCE: number; status: string } }>;
        const instance = now.find((p) => Number(p.pm2_env.NODE_APP_INSTANCE) === 0);
        return !!instance && instance.pid !== pid && instance.pm2_env.status === "online" && (await fetch(`${a}/readyz`)).status === 200;
      },
      30_000,
      "restart after SIGTERM",
    );
  });

  it("answers 503 within a second while Redis is down and recovers without a restart", async () => {
    const [a, b] = urls();
    const login = await getJson(`${a}/api/minigame/wechat/login?jsCode=outage${Date.now()}`);
    assert.equal(login.status, 200);
    redis.kill("SIGKILL");
    await sleep(200);
    for (const url of [a, b]) {
      const started = Date.now();
      const res = await getJson(`${url}/api/users/me`, { authorization: `Bearer ${login.body.data.token}` });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.data.code, "service_unavailable");
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.equal((await fetch(`${url}/readyz`)).status, 503);
    }
    redis = startRedis(redisPort);
    for (const url of [a, b]) await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 15_000, `${url} recovery`);
    const again = await getJson(`${b}/api/minigame/wechat/login?jsCode=recovered${Date.now()}`);
    assert.equal(again.status, 200);
    assert.equal((await getJson(`${a}/api/users/me`, { authorization: `Bearer ${again.body.data.token}` })).status, 200);
  });
});

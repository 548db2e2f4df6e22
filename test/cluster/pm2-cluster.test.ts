/**
 * Two production processes under pm2, sharing a database and a Redis this test owns (so it can
 * stop and restart it), against a standalone simulator. Runs on PostgreSQL when TEST_DATABASE_URL
 * is set, and again on MongoDB when TEST_MONGODB_URL is.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { freePort, simulatorPlatformEnv } from "../support/app-harness";
import { buildOnce, ROOT } from "../support/build";
import { compiledEntry } from "../support/compiled-source";
import { declareBackend } from "../support/backend-report";
import { sharedDatabases, type StoredUsers } from "../support/stored-users";

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
  const send = () =>
    fetch(url, {
      method,
      headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    // A pooled connection the server closed as idle (its 5 s keep-alive) while this process was
    // blocked (a synchronous pm2 command; slow on a loaded machine) is found closed only when
    // reused: the server never read that request. Sent once more, on a new connection.
    if ((err as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw err;
    res = await send();
  }
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

/** A GET on a connection of its own: when that connection is open, and the answer (status 0 and the error's code when none came). */
function requestOverOwnConnection(url: string): { connected: Promise<void>; answer: Promise<{ status: number; body: any }> } {
  let connected!: () => void;
  const open = new Promise<void>((resolve) => (connected = resolve));
  const answer = new Promise<{ status: number; body: any }>((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => {
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text for the failure's message
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on("error", (err: NodeJS.ErrnoException) => resolve({ status: 0, body: err.code ?? String(err) }));
    });
    req.on("socket", (socket) => socket.once("connect", connected));
    req.on("error", (err: NodeJS.ErrnoException) => {
      connected();
      resolve({ status: 0, body: err.code ?? String(err) });
    });
  });
  return { connected: open, answer };
}

/** Status and error code of an answer. */
const pick = (res: { status: number; body: any }) => [res.status, res.body?.data?.code];

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

for (const database of sharedDatabases) {
  declareBackend({ name: `pm2 cluster (two processes, ${database.name})`, titles: new RegExp(`two processes under pm2 \\(${database.name}`), skipReason: database.skipReason });
}

for (const database of sharedDatabases) (database.skipReason ? describe.skip : describe)(`two processes under pm2 (${database.name} + Redis)`, function () {
  this.timeout(120_000);
  let pm2Home: string;
  let simulator: RunningSimulator;
  /** The simulator's clock, so forced refreshes can be 30 s apart without waiting. */
  let simClock = Date.now();
  let redis: ChildProcess;
  let redisPort: number;
  let dropDatabase: () => Promise<void>;
  let stored: StoredUsers;
  let ports: [number, number];
  let env: NodeJS.ProcessEnv;
  const urls = () => ports.map((p) => `http://127.0.0.1:${p}`);
  const pm2 = (...args: string[]) => execFileSync(PM2, args, { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  before(async () => {
    await buildOnce();
    pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), "pm2-"));
    simulator = await startSimulator({ port: 0, now: () => simClock });
    redisPort = await freePort();
    redis = startRedis(redisPort);
    const db = await database.create();
    dropDatabase = db.drop;
    stored = db.stored;
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
      // FerretDB (SQLite underneath) creates a few dozen players a second here: the 300-login burst
      // queues statements past the 800 ms default and answers 503 (on a loaded CI machine past 5 s
      // too: 20 of 300 waited longer for a pooled connection). Its speed, not what this suite tests;
      // a real MongoDB keeps the default.
      ...(db.url.startsWith("mongodb") ? { DATABASE_QUERY_TIMEOUT_MS: "20000" } : {}),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ...simulatorPlatformEnv(simulator.url),
      ACCESS_TOKEN_ROUTE_KEY: INTERNAL_KEY,
      RATE_LIMIT_IP_MAX: "100000",
      RATE_LIMIT_USER_MAX: "100000",
      // The SIGTERM burst's 300 first logins take 2.6–8.6 s on FerretDB here (quiet to loaded): an
      // 8 s budget would cut the slowest runs' last answers (503 once the stores close). The drain
      // ends as soon as nothing is in flight, so a long budget costs nothing when things are fast.
      SHUTDOWN_TIMEOUT_MS: "30000",
      PLATFORM_TIMEOUT_MS: "15000",
      METRICS_TOKEN: "cluster-metrics-token-0123456789",
    };
    await waitFor(() => canConnect(redisPort), 5000, "redis-server");
    // npm run start:prod after its build step: check, start, wait until every process is ready.
    const started = execFileSync(process.execPath, ["build/src/ops/start-production.js"], { cwd: ROOT, env, encoding: "utf8" });
    assert.match(started, /minigame-server is ready: 2 processes on port/);
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

  /** Cancels the app's WeChat stable token at the platform, as another holder of the credentials can. */
  async function forceRefreshAtPlatform(): Promise<void> {
    simClock += 31_000;
    const wx = simulatorPlatformEnv(simulator.url);
    const res = await fetch(`${wx.WECHAT_API_BASE_URL}/cgi-bin/stable_token`, {
      method: "POST",
      body: JSON.stringify({ grant_type: "client_credential", appid: wx.WECHAT_APP_ID, secret: wx.WECHAT_APP_SECRET, force_refresh: true }),
    });
    assert.ok(((await res.json()) as any).access_token);
  }

  it("replaces a token cancelled at the platform with exactly one upstream fetch across both processes, on business calls", async () => {
    const [a] = urls();
    const login = await getJson(`${a}/api/minigame/wechat/login?jsCode=heal${Date.now()}`);
    const bearer = { authorization: `Bearer ${login.body.data.token}` };
    const dead = (await getJson(`${a}/api/minigame/wechat/access_token`, { "x-internal-key": INTERNAL_KEY })).body.data.access_token;
    await forceRefreshAtPlatform();
    simulator.resetStats();
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => getJson(`${urls()[i % 2]}/api/minigame/wechat/session_key/check`, bearer)),
    );
    assert.deepEqual(new Set(results.map((r) => `${r.status} ${JSON.stringify(r.body.data)}`)), new Set(['200 {"valid":true}']));
    assert.equal(simulator.stats().accessToken.wechat, 1);
    for (const url of urls()) {
      const served = (await getJson(`${url}/api/minigame/wechat/access_token`, { "x-internal-key": INTERNAL_KEY })).body.data.access_token;
      assert.notEqual(served, dead);
    }
    assert.equal(simulator.stats().accessToken.wechat, 1);
  });

  it("replaces a reported token with exactly one upstream fetch across both processes", async () => {
    const key = { "x-internal-key": INTERNAL_KEY };
    const dead = (await getJson(`${urls()[0]}/api/minigame/wechat/access_token`, key)).body.data.access_token;
    await forceRefreshAtPlatform();
    simulator.resetStats();
    const reports = await Promise.all(
      Array.from({ length: 40 }, (_, i) => getJson(`${urls()[i % 2]}/api/minigame/wechat/access_token/invalidate`, key, "POST", { access_token: dead })),
    );
    assert.deepEqual(new Set(reports.map((r) => r.status)), new Set([200]));
    const fresh = new Set(reports.map((r) => r.body.data.access_token));
    assert.equal(fresh.size, 1);
    assert.ok(!fresh.has(dead));
    const next = await Promise.all(urls().map((url) => getJson(`${url}/api/minigame/wechat/access_token`, key)));
    assert.deepEqual(new Set(next.map((r) => r.body.data.access_token)), fresh);
    assert.equal(simulator.stats().accessToken.wechat, 1);
  });

  it("a token reported on one process is what the other serves next, though the other kept a copy of the old one", async () => {
    const key = { "x-internal-key": INTERNAL_KEY };
    const [a, b] = urls();
    const dead = (await getJson(`${a}/api/minigame/wechat/access_token`, key)).body.data.access_token;
    assert.equal((await getJson(`${b}/api/minigame/wechat/access_token`, key)).body.data.access_token, dead);
    await forceRefreshAtPlatform();
    const reported = await getJson(`${a}/api/minigame/wechat/access_token/invalidate`, key, "POST", { access_token: dead });
    const fresh = reported.body.data.access_token;
    assert.notEqual(fresh, dead);
    assert.equal((await getJson(`${b}/api/minigame/wechat/access_token`, key)).body.data.access_token, fresh);
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

  /**
   * `npm run admin -- <args>`: its exit code, JSON result and audit lines. Run without blocking this
   * process: its room clients must keep answering the server's pings while the command runs (seconds
   * on a loaded machine), or the server drops them as unresponsive and no kick can reach them.
   */
  const admin = async (...args: string[]) => {
    const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ["--enable-source-maps", compiledEntry("src/admin/main.ts"), ...args], { cwd: ROOT, env, encoding: "utf8", maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      ),
    );
    const audit = run.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.event === "admin_action");
    return { status: run.status, result: run.status === 0 ? JSON.parse(run.stdout) : undefined, audit, stderr: run.stderr };
  };
  const login = async (code: string, url = urls()[0]) => getJson(`${url}/api/minigame/wechat/login?jsCode=${code}`);
  /** A lobby client connected to one process, and the URL of the other process. */
  async function seated(token: string) {
    const room: Room = await new Client(urls()[1]).joinOrCreate("lobby", { accessToken: token });
    const port = Number(new URL((room.connection as any).transport.ws.url).port);
    const left = new Promise<number>((resolve, reject) => {
      // Generous: the machine running the tests may be loaded; a kick normally takes milliseconds.
      const timer = setTimeout(() => reject(new Error("not kicked within 10 s")), 10_000);
      room.onLeave((code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    return { room, left, other: urls()[port === ports[0] ? 1 : 0] };
  }

  // Operators: npm run admin and account deletion against the running cluster (before the
  // SIGTERM and Redis outage tests, which restart a process and the Redis server).
  it("admin disable kicks the user's room client on another process, refuses login with user_disabled, and enable lets it back", async () => {
    const player = `ban${Date.now()}`;
    const first = await login(`${player}.1`);
    const { left } = await seated(first.body.data.token);
    const disabled = await admin("disable", first.body.data.user.id, "--reason", "cheating in ranked", "--by", "ops-alice");
    assert.equal(disabled.status, 0, disabled.stderr);
    assert.equal(disabled.result.user.status, 2);
    assert.deepEqual(disabled.result.restriction, { reason: "cheating in ranked", until: null });
    assert.equal(await left, 4401);
    assert.deepEqual(
      disabled.audit.map((a) => [a.by, a.action, a.userId, a.reason]),
      [["ops-alice", "disable", first.body.data.user.id, "cheating in ranked"]],
    );

    for (const url of urls()) {
      const refused = await login(`${player}.2${url.slice(-1)}`, url);
      assert.deepEqual([refused.status, refused.body.data.code, refused.body.data.token], [403, "user_disabled", ""]);
      assert.equal((await getJson(`${url}/api/users/me`, { authorization: `Bearer ${first.body.data.token}` })).status, 403);
    }
    assert.equal((await admin("enable", `wechat:${first.body.data.user.openid}`, "--by", "ops-alice")).status, 0);
    assert.equal((await login(`${player}.3`, urls()[1])).status, 200);
  });

  it("admin disable --until says when it ends, and one whose time has passed no longer blocks", async () => {
    const player = `until${Date.now()}`;
    const first = await login(`${player}.1`);
    const until = new Date(Date.now() + 3600_000).toISOString();
    assert.equal((await admin("disable", first.body.data.user.username, "--reason", "spam", "--until", until)).status, 0);
    const refused = await login(`${player}.2`);
    assert.deepEqual([refused.status, refused.body.data.disabledUntil], [403, until]);

    const past = new Date(Date.now() - 60_000).toISOString();
    const lapsed = await admin("disable", first.body.data.user.id, "--reason", "spam", "--until", past);
    assert.equal(lapsed.status, 0, lapsed.stderr);
    assert.equal(lapsed.result.restriction, null);
    assert.equal((await login(`${player}.3`, urls()[1])).status, 200);
  });

  it("admin end-sessions logs the user out everywhere and kicks the room client", async () => {
    const first = await login(`out${Date.now()}.1`);
    const { left } = await seated(first.body.data.token);
    const ended = await admin("end-sessions", first.body.data.user.email);
    assert.equal(ended.status, 0, ended.stderr);
    assert.equal(ended.result.sessionLive, false);
    assert.equal(await left, 4401);
    assert.equal(ended.audit[0].by, os.userInfo().username, "--by defaults to the OS user");
    for (const url of urls()) {
      const me = await getJson(`${url}/api/users/me`, { authorization: `Bearer ${first.body.data.token}` });
      assert.deepEqual([me.status, me.body.data.code], [401, "session_revoked"]);
    }
  });

  it("admin find and export show what the store holds, never the password hash", async () => {
    const first = await login(`exp${Date.now()}.1`);
    const token = first.body.data.token;
    const { user } = first.body.data;
    assert.equal((await getJson(`${urls()[1]}/api/users/me/password`, { authorization: `Bearer ${token}` }, "PUT", { newPassword: "correct horse" })).status, 200);
    const row = (await stored.user(user.id))!;
    assert.ok(row.passwordHash, "the store holds a hash");

    for (const ref of [user.id, user.username, user.email, `wechat:${user.openid}`]) {
      const found = await admin("find", ref);
      assert.equal(found.status, 0, found.stderr);
      assert.equal(found.result.user.id, user.id);
    }
    const exported = await admin("export", user.id, "--by", "dpo");
    assert.equal(exported.status, 0, exported.stderr);
    const text = JSON.stringify(exported.result);
    assert.equal(text.includes(String(row.passwordHash)), false, "no password hash");
    assert.equal(/password_?hash/i.test(text), false);
    for (const [key, value] of Object.entries(row)) {
      if (key === "passwordHash") continue;
      assert.deepEqual(exported.result.user[key], value, `export holds ${key}`);
    }
    assert.deepEqual(
      exported.result.identities.map((i: any) => [i.platform, i.platformId]),
      await stored.identities(user.id),
    );
    assert.deepEqual(exported.audit.map((a) => [a.by, a.action, a.userId]), [["dpo", "export", user.id]]);
    assert.equal((await admin("find", "nobody-by-this-name")).status, 1);
  });

  it("admin erase removes the user and kicks its client; a new login with the same identity creates a fresh user", async () => {
    const player = `erase${Date.now()}`;
    const first = await login(`${player}.1`);
    const { user } = first.body.data;
    const { left } = await seated(first.body.data.token);
    const erased = await admin("erase", user.id, "--by", "ops-bob");
    assert.equal(erased.status, 0, erased.stderr);
    assert.equal(await left, 4401);
    assert.equal(await stored.user(user.id), undefined);
    assert.deepEqual(await stored.identities(user.id), []);
    const again = await login(`${player}.2`, urls()[1]);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.user.openid, user.openid);
    assert.notEqual(again.body.data.user.id, user.id);
  });

  it("DELETE /api/users/me through one process kicks the room client on the other and erases the user", async () => {
    const player = `self${Date.now()}`;
    const first = await login(`${player}.1`);
    const { left, other } = await seated(first.body.data.token);
    const deleted = await getJson(`${other}/api/users/me`, { authorization: `Bearer ${first.body.data.token}` }, "DELETE");
    assert.deepEqual([deleted.status, deleted.body], [200, { success: true, message: "Account deleted", data: null }]);
    assert.equal(await left, 4401);
    assert.equal(await stored.user(first.body.data.user.id), undefined);
    const again = await login(`${player}.2`, other);
    assert.notEqual(again.body.data.user.id, first.body.data.user.id);
  });

  it("a change to a user on one process (profile, disable, ban with until, erase) is seen at once by the other, which keeps user records", async () => {
    const [a, b] = urls();
    const me = (token: string) => getJson(`${b}/api/users/me`, { authorization: `Bearer ${token}` });
    // Process B reads the user once, so its per-process record is warm before each change.
    const renamed = await login(`keep${Date.now()}.1`, a);
    const token = renamed.body.data.token;
    const before = await me(token);
    assert.equal(before.status, 200);
    const patched = await getJson(`${a}/api/users/me`, { authorization: `Bearer ${token}` }, "PATCH", { nickname: "Renamed", version: before.body.data.version });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await me(token)).body.data.nickname, "Renamed");

    const banned = await login(`keep${Date.now()}.2`, a);
    assert.equal((await me(banned.body.data.token)).status, 200);
    assert.equal((await admin("disable", banned.body.data.user.id, "--reason", "spam")).status, 0);
    assert.deepEqual(pick(await me(banned.body.data.token)), [403, "user_disabled"]);

    const until = new Date(Date.now() + 3600_000).toISOString();
    const timed = await login(`keep${Date.now()}.3`, a);
    assert.equal((await me(timed.body.data.token)).status, 200);
    assert.equal((await admin("disable", timed.body.data.user.id, "--reason", "spam", "--until", until)).status, 0);
    const refused = await me(timed.body.data.token);
    assert.deepEqual([...pick(refused), refused.body.data.disabledUntil], [403, "user_disabled", until]);

    const erased = await login(`keep${Date.now()}.4`, a);
    assert.equal((await me(erased.body.data.token)).status, 200);
    assert.equal((await admin("erase", erased.body.data.user.id)).status, 0);
    assert.deepEqual(pick(await me(erased.body.data.token)), [403, "user_disabled"]);
  });

  it("loses no request when SIGTERM arrives during a burst", async () => {
    const [a] = urls();
    const list = JSON.parse(pm2("jlist")) as Array<{ pid: number; pm2_env: { NODE_APP_INSTANCE: number; pm_out_log_path: string; pm_err_log_path: string } }>;
    const instance = list.find((p) => Number(p.pm2_env.NODE_APP_INSTANCE) === 0)!;
    const pid = instance.pid;
    /** The signalled process's last log lines, for a failure's message: what it did while draining. */
    const tail = () =>
      [instance.pm2_env.pm_out_log_path, instance.pm2_env.pm_err_log_path]
        .map((file) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").slice(-25).join("\n") : ""))
        .join("\n");
    let signalledAt = Infinity;
    const completedAt: number[] = [];
    const burst = Array.from({ length: 300 }, (_, i) => {
      const sent = requestOverOwnConnection(`${a}/api/minigame/wechat/login?jsCode=term${Date.now()}x${i}`);
      void sent.answer.then(() => completedAt.push(Date.now()));
      return sent;
    });
    // Signalled once every connection is made: a connection still being opened when the process has
    // stopped listening is refused, and the accept window (1 s, up to 2) is for clients already
    // connecting, not for a client as loaded as this one (CI: the last 87 of 300 opened past it).
    await Promise.all(burst.map((b) => b.connected));
    signalledAt = Date.now();
    process.kill(pid, "SIGTERM");
    try {
      const results = await Promise.all(burst.map((b) => b.answer));
      // A lost request shows how it was lost (the socket error's code) beside its place in the burst.
      const lost = results.flatMap((r, i) => (r.status === 200 ? [] : [`#${i}: ${r.status} ${typeof r.body === "string" ? r.body : JSON.stringify(r.body?.data)}`]));
      assert.deepEqual(lost.slice(0, 20), [], `${lost.length} of ${results.length} requests not answered 200; the process's log:\n${lost.length > 0 ? tail() : ""}`);
      assert.ok(completedAt.some((t) => t > signalledAt), "some requests were still in flight when the signal arrived");
    } finally {
      // pm2 brings the process back: a new pid, ready (the old one answers 503 while it drains).
      // Waited for even when the burst failed, so the next test does not meet a port being restarted.
      await waitFor(
        async () => {
          const now = JSON.parse(pm2("jlist")) as Array<{ pid: number; pm2_env: { NODE_APP_INSTANCE: number; status: string } }>;
          const instance = now.find((p) => Number(p.pm2_env.NODE_APP_INSTANCE) === 0);
          return !!instance && instance.pid !== pid && instance.pm2_env.status === "online" && (await fetch(`${a}/readyz`)).status === 200;
        },
        40_000,
        "restart after SIGTERM",
      );
    }
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

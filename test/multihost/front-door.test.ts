/**
 * Two server hosts behind one front door, as a studio deploys them (docs/deploy.md): each host a
 * network namespace of this test running the production server, shared Redis and PostgreSQL in the
 * root namespace, the platform simulator standalone, nginx (test/multihost/nginx.conf) balancing the
 * API and matchmaking and giving each host a path for its room sockets. It proves, printing figures:
 * logins on both hosts with tokens valid on both; seats on both hosts through their paths and chat
 * between hosts; a logout on one host closing the socket held by the other with 4401 within 1 s; a
 * host cut off unlisted within 5 s with no player tripping on it while the other keeps serving; the
 * host back on the network taking seats within 5 s; a SIGKILLed host leaving no listing that seats
 * players into nowhere, before and after its restart. Skips, saying why, without root, ip, nginx,
 * redis-server or TEST_DATABASE_URL.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import Redis from "ioredis";
import pg from "pg";
import { simulatorPlatformEnv } from "../../src/simulator/simulator-server";
import { leaveRooms } from "../support/rooms";
import { declareBackend } from "../support/backend-report";
import { testDatabaseUrl } from "../support/services";
import { multihostSkipReason, Topology, waitFor, type Child, type Host } from "./topology";
import { compiledEntry } from "../support/compiled-source";

const skipReason = multihostSkipReason(testDatabaseUrl);
declareBackend({ name: "two hosts in network namespaces behind nginx", titles: /several hosts behind nginx/, skipReason });
const figures: string[] = [];
const figure = (line: string) => {
  figures.push(line);
  console.log(`      · ${line}`);
};

interface Session {
  token: string;
  user: { id: string };
}
/** Colyseus 0.18's seat reservation: flat (0.16 nested the room's fields under `room`). */
interface Reservation {
  roomId: string;
  processId: string;
  publicAddress?: string;
  sessionId: string;
}

(skipReason ? describe.skip : describe)(`several hosts behind nginx (network namespaces)${skipReason ? ` — skipped: ${skipReason}` : ""}`, function () {
  this.timeout(60_000);
  const net = new Topology(["a", "b"]);
  const [hostA, hostB] = net.hosts;
  const servers = new Map<Host, Child>();
  const rooms: Room[] = [];
  const database = `mgl_multihost_${net.id}`;
  const run = net.id;
  let admin: pg.Client;
  let redis: Redis;
  let front: string;
  /** host[:port] of nginx: each host's PUBLIC_ADDRESS is it plus the host's path. */
  let frontDoor: string;
  let hostEnv: Record<string, string>;
  let players = 0;

  before(async function () {
    this.timeout(120_000);
    admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    net.createNetwork();
    const redisPort = await net.startRedis();
    redis = new Redis({ port: redisPort, host: "127.0.0.1" });
    const pgUrl = new URL(testDatabaseUrl!);
    const relayPort = await net.startDatabaseRelay({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    const simulator = net.start("simulator", process.execPath, ["--enable-source-maps", compiledEntry("src/simulator/main.ts")], { SIMULATOR_HOST: net.bridgeAddress, SIMULATOR_PORT: "0" });
    await waitFor(() => /listening at (http:\/\/\S+?) /.test(simulator.output), 20_000, () => `simulator did not start:\n${simulator.tail()}`);
    const simulatorUrl = /listening at (http:\/\/\S+?) /.exec(simulator.output)![1];
    const storeUrl = new URL(testDatabaseUrl!);
    storeUrl.hostname = net.bridgeAddress;
    storeUrl.port = String(relayPort);
    storeUrl.pathname = `/${database}`;
    hostEnv = {
      NODE_ENV: "production",
      PORT: "2567",
      JWT_SECRET: `multihost-${run}-jwt-secret-long-enough-for-production`,
      DATABASE_URL: storeUrl.toString(),
      REDIS_URL: `redis://${net.bridgeAddress}:${redisPort}`,
      ACCESS_TOKEN_ROUTE_KEY: `multihost-${run}-route-key-0123456789`,
      METRICS_TOKEN: `multihost-${run}-metrics-token-0123`,
      TRUST_PROXY: "1",
      LOG_LEVEL: "info",
      ...simulatorPlatformEnv(simulatorUrl),
    };
    frontDoor = await net.frontDoor();
    await Promise.all([startHost(hostA), startHost(hostB)]);
    front = await net.startNginx();
  });

  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === "failed") failed = true;
  });

  after(async function () {
    this.timeout(30_000);
    if (failed) {
      for (const [host, server] of servers) console.log(`--- host ${host.name} (last lines)\n${server.tail(40)}`);
      console.log(`--- nginx error log\n${net.nginxErrors()}`);
    }
    await leaveRooms(rooms);
    redis?.disconnect();
    await net.stop();
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`).catch(() => undefined);
      await admin.end();
    }
    if (figures.length > 0) console.log(`\n  multi-host figures:\n${figures.map((f) => `    ${f}`).join("\n")}\n`);
  });

  async function startHost(host: Host): Promise<void> {
    const server = net.start(`host ${host.name}`, process.execPath, ["--enable-source-maps", compiledEntry("src/server/index.ts")], { ...hostEnv, PUBLIC_ADDRESS: `${frontDoor}/${host.name}` }, host);
    servers.set(host, server);
    const ready = async () => (await fetch(`http://${host.address}:2567/readyz`).catch(() => undefined))?.status === 200;
    await waitFor(async () => !server.running || (await ready()), 40_000, () => `host ${host.name} was not ready:\n${server.tail()}`);
    assert.ok(server.running, `host ${host.name} exited:\n${server.tail()}`);
  }

  const direct = (host: Host) => `http://${host.address}:2567`;
  const hostOf = (r: Reservation) => net.hosts.find((h) => r.publicAddress === `${frontDoor}/${h.name}`)!;

  async function login(base: string): Promise<Session & { servedBy: string }> {
    const res = await fetch(`${base}/api/minigame/wechat/login?jsCode=mh${run}p${players++}.1`);
    assert.equal(res.status, 200, await res.clone().text());
    return { ...((await res.json()) as { data: Session }).data, servedBy: res.headers.get("x-served-by") ?? "" };
  }

  async function reserve(base: string, method: string, target: string, session: Session): Promise<Reservation> {
    const res = await fetch(`${base}/matchmake/${method}/${target}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ accessToken: session.token }) });
    const body = (await res.json()) as Reservation & { error?: string };
    assert.equal(res.status, 200, `${method} ${target}: ${JSON.stringify(body)}`);
    return body;
  }

  async function seat(reservation: Reservation): Promise<Room> {
    const room = await new Client(front).consumeSeatReservation(reservation as never);
    room.onMessage("*", () => undefined); // chat reaches every seat; only some tests listen
    rooms.push(room);
    return room;
  }

  /** Process ids in Colyseus's shared records: the room count, and the room listings. */
  async function records(): Promise<{ processes: string[]; listed: string[] }> {
    const listings = Object.values(await redis.hgetall("roomcaches")).map((v) => (JSON.parse(v) as { processId: string }).processId);
    return { processes: Object.keys(await redis.hgetall("roomcount")), listed: [...new Set(listings)] };
  }

  /**
   * create through the front door until a seat lands on `host`. Colyseus gives a new room to the
   * process with the fewest rooms as the shared room count says, which each process updates at most
   * once a second: a retry waits that out, or a burst would read the same stale counts.
   */
  async function createOn(host: Host, base = front, limit = 6): Promise<{ reservation: Reservation; room: Room }> {
    for (let i = 0; i < limit; i++) {
      const reservation = await reserve(base, "create", "lobby", await login(front));
      const room = await seat(reservation);
      if (hostOf(reservation) === host) return { reservation, room };
      await new Promise((r) => setTimeout(r, 1100));
    }
    assert.fail(`no room created on host ${host.name} in ${limit} tries`);
  }

  let roomOnA: Reservation;
  let roomOnB: Reservation;
  let bobInB: Room;
  let bob: Session;

  it("lands logins through the front door on both hosts, and each token works on both", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => login(front)));
    const byHost = net.hosts.map((h) => sessions.filter((s) => s.servedBy.startsWith(h.address)).length);
    figure(`20 logins through nginx: host a served ${byHost[0]}, host b ${byHost[1]}`);
    assert.ok(byHost.every((n) => n > 0), `served by: ${sessions.map((s) => s.servedBy).join(", ")}`);
    for (const s of sessions.slice(0, 6)) {
      for (const h of net.hosts) {
        const me = await fetch(`${direct(h)}/api/users/me`, { headers: { authorization: `Bearer ${s.token}` } });
        assert.equal(me.status, 200, `a token from ${s.servedBy} on host ${h.name}`);
      }
    }
  });

  it("seats clients on both hosts through their paths, and carries chat from a seat taken on one host to a room on the other", async () => {
    roomOnA = (await createOn(hostA)).reservation;
    roomOnB = (await createOn(hostB)).reservation;
    assert.notEqual(roomOnA.processId, roomOnB.processId);
    const alice = await login(front);
    bob = await login(front);
    // Alice's seat is reserved by host a for the room on host b; her socket goes to /b.
    const aliceInB = await seat(await reserve(direct(hostA), "joinById", roomOnB.roomId, alice));
    bobInB = await seat(await reserve(direct(hostB), "joinById", roomOnB.roomId, bob));
    const latencies: number[] = [];
    for (let i = 0; i < 4; i++) {
      const heard = new Promise<number>((resolve) => bobInB.onMessage("chat", (m: { text: string }) => m.text === `m${i}` && resolve(Date.now())));
      const sent = Date.now();
      aliceInB.send("chat", { text: `m${i}` });
      latencies.push((await heard) - sent);
    }
    figure(`chat from a seat reserved on host a to a room on host b: ${latencies.join(", ")} ms`);
  });

  it("closes the socket held by host b with 4401 within 1 s of a logout handled by host a", async () => {
    const closed = new Promise<number>((resolve) => bobInB.onLeave(resolve));
    const start = Date.now();
    const logout = await fetch(`${direct(hostA)}/api/auth/logout`, { method: "POST", headers: { authorization: `Bearer ${bob.token}` } });
    assert.equal(logout.status, 200);
    assert.equal(await closed, 4401);
    const ms = Date.now() - start;
    figure(`logout on host a → 4401 on host b's socket: ${ms} ms`);
    assert.ok(ms < 1000, `${ms} ms`);
  });

  it("unlists a host cut off within 5 s with no player tripping on it, while the other keeps serving", async () => {
    const processA = roomOnA.processId;
    assert.ok((await records()).listed.includes(processA));
    net.cut(hostA);
    const ms = await waitFor(async () => {
      const r = await records();
      return !r.processes.includes(processA) && !r.listed.includes(processA);
    }, 8000, () => "host a is still listed 8 s after it was cut off");
    figure(`host a cut off: unlisted with its rooms after ${ms} ms, no player request involved`);
    assert.ok(ms < 5000, `${ms} ms`);
    const started = Date.now();
    const during = await Promise.all(Array.from({ length: 5 }, () => login(front)));
    assert.ok(during.every((s) => s.servedBy.includes(hostB.address)), during.map((s) => s.servedBy).join(", "));
    // Rooms on b, so that a, once back, has the fewest and gets the next room.
    for (let i = 0; i < 3; i++) assert.equal(hostOf((await createOn(hostB)).reservation), hostB);
    figure(`while a is cut off: 5 logins and 3 seats through nginx, all on b, in ${Date.now() - started} ms`);
  });

  it("seats players on the host back on the network within 5 s", async () => {
    const start = Date.now();
    net.restore(hostA);
    let landed: Reservation | undefined;
    const refusals: string[] = [];
    while (!landed && Date.now() - start < 8000) {
      const session = await login(front);
      const res = await fetch(`${front}/matchmake/create/lobby`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ accessToken: session.token }) });
      const body = (await res.json()) as Reservation & { error?: string };
      if (res.status !== 200) {
        // A host whose Redis connection is still coming back answers 503 ("retry later").
        refusals.push(`${res.status} from ${res.headers.get("x-served-by")}`);
      } else {
        await seat(body);
        if (hostOf(body) === hostA) landed = body;
      }
      if (!landed) await new Promise((r) => setTimeout(r, 200));
    }
    const ms = Date.now() - start;
    assert.ok(landed, `host a took no seat within 8 s of coming back (refusals: ${refusals.join(", ")})`);
    figure(`host a back on the network: first seat on it (connected) after ${ms} ms; ${refusals.length} matchmaking answers meanwhile were 503 (${refusals.join(", ") || "none"})`);
    assert.ok(ms < 5000, `${ms} ms`);
  });

  it("leaves no listing of a SIGKILLed host that seats players into nowhere, before and after its restart", async () => {
    const processB = roomOnB.processId;
    // nginx skips a host for fail_timeout (5 s) after a failed attempt: wait until it sends to a
    // again, or with b killed it would have no host left to try (502).
    const backInNginx = await waitFor(async () => {
      const res = await fetch(`${front}/healthz`);
      return (res.headers.get("x-served-by") ?? "").includes(hostA.address);
    }, 8000, () => "nginx does not send requests to host a again");
    figure(`nginx sends requests to host a again ${backInNginx} ms into this step`);
    const start = Date.now();
    await servers.get(hostB)!.kill("SIGKILL");
    const ms = await waitFor(async () => {
      const r = await records();
      return !r.processes.includes(processB) && !r.listed.includes(processB);
    }, 8000, () => "the killed host is still listed 8 s later");
    figure(`host b SIGKILLed: its listings removed after ${ms} ms`);
    const joined = async (label: string) => {
      const seats: string[] = [];
      for (let i = 0; i < 5; i++) {
        const reservation = await reserve(front, "joinOrCreate", "lobby", await login(front));
        assert.notEqual(reservation.processId, processB, `${label}: a seat for the dead process`);
        await seat(reservation);
        seats.push(hostOf(reservation).name);
      }
      return seats;
    };
    const before = await joined("before the restart");
    await startHost(hostB);
    const r = await records();
    assert.ok(!r.processes.includes(processB) && !r.listed.includes(processB), "the old process is listed again after the restart");
    const after = await joined("after the restart");
    const { reservation } = await createOn(hostB);
    figure(`joinOrCreate through nginx: before b's restart on ${before.join(",")}, after on ${after.join(",")}; b (new process) takes rooms again; ${Date.now() - start} ms in all`);
    assert.notEqual(reservation.processId, processB);
  });
});

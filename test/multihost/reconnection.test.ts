/**
 * Reconnection across hosts: two server hosts in network namespaces behind nginx (as front-door
 * test), the game client (client/src, webRuntime over `ws`) talking HTTP to host a only while its
 * room lives on host b. It proves: after a network switch (the old connection left open on the
 * server's side), the client takes its seat back on host b, its reconnect request handled by host
 * a; a socket dropped 20 times leaves one seat and no leaked reservation in the shared listing.
 * Skips, saying why, without root, ip, nginx, redis-server or TEST_DATABASE_URL.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import Redis from "ioredis";
import pg from "pg";
import { Client, type Room } from "@colyseus/sdk";
import { createGameClient, memoryStorage, webRuntime, type GameClient } from "../../client/src/index";
import { simulatorPlatformEnv } from "../../src/simulator/simulator-server";
import { declareBackend } from "../support/backend-report";
import { leaveRooms } from "../support/rooms";
import { testDatabaseUrl } from "../support/services";
import { multihostSkipReason, Topology, waitFor, type Child, type Host } from "./topology";
import { compiledEntry } from "../support/compiled-source";

const skipReason = multihostSkipReason(testDatabaseUrl);
declareBackend({ name: "two hosts in network namespaces behind nginx", titles: /reconnection across hosts/, skipReason });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The player's device: every socket it opened, and a network switch that leaves them open on the far side. */
class Device {
  readonly sockets: WebSocket[] = [];
  readonly urls: string[] = [];
  readonly WebSocket = (() => {
    const device = this;
    return class extends WebSocket {
      constructor(url: string) {
        super(url);
        device.sockets.push(this);
        device.urls.push(url);
      }
    };
  })();

  switchNetwork(): void {
    for (const socket of this.sockets.splice(0)) {
      const raw = (socket as unknown as { _socket?: { pause(): void; removeAllListeners(event: string): void } })._socket;
      raw?.removeAllListeners("data");
      raw?.pause();
      this.abandoned.push(socket);
      socket.emit("close", 1006, Buffer.from(""));
    }
  }
  dropConnections(): void {
    for (const socket of this.sockets.splice(0)) socket.terminate();
  }
  readonly abandoned: WebSocket[] = [];
  dispose(): void {
    for (const socket of [...this.sockets, ...this.abandoned]) socket.terminate();
  }
}

(skipReason ? describe.skip : describe)(`reconnection across hosts behind nginx (network namespaces)${skipReason ? ` — skipped: ${skipReason}` : ""}`, function () {
  this.timeout(60_000);
  const net = new Topology(["a", "b"]);
  const [hostA, hostB] = net.hosts;
  const servers = new Map<Host, Child>();
  const rooms: Room[] = [];
  const devices: Device[] = [];
  const database = `mgl_mhreconnect_${net.id}`;
  let admin: pg.Client;
  let redis: Redis;
  let front: string;
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
    const storeUrl = new URL(testDatabaseUrl!);
    storeUrl.hostname = net.bridgeAddress;
    storeUrl.port = String(relayPort);
    storeUrl.pathname = `/${database}`;
    hostEnv = {
      NODE_ENV: "production",
      PORT: "2567",
      JWT_SECRET: `mhreconnect-${net.id}-jwt-secret-long-enough-for-production`,
      DATABASE_URL: storeUrl.toString(),
      REDIS_URL: `redis://${net.bridgeAddress}:${redisPort}`,
      ACCESS_TOKEN_ROUTE_KEY: `mhreconnect-${net.id}-route-key-0123456789`,
      METRICS_TOKEN: `mhreconnect-${net.id}-metrics-token-0123`,
      TRUST_PROXY: "1",
      LOG_LEVEL: "info",
      ...simulatorPlatformEnv(/listening at (http:\/\/\S+?) /.exec(simulator.output)![1]),
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
    for (const device of devices) device.dispose();
    redis?.disconnect();
    await net.stop();
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`).catch(() => undefined);
      await admin.end();
    }
  });

  async function startHost(host: Host): Promise<void> {
    const server = net.start(`host ${host.name}`, process.execPath, ["--enable-source-maps", compiledEntry("src/server/index.ts")], { ...hostEnv, PUBLIC_ADDRESS: `${frontDoor}/${host.name}` }, host);
    servers.set(host, server);
    const ready = async () => (await fetch(`http://${host.address}:2567/readyz`).catch(() => undefined))?.status === 200;
    await waitFor(async () => !server.running || (await ready()), 40_000, () => `host ${host.name} was not ready:\n${server.tail()}`);
    assert.ok(server.running, `host ${host.name} exited:\n${server.tail()}`);
  }

  /** A player whose client talks HTTP to host a only. */
  function player(): { client: GameClient; device: Device; log: string[] } {
    const device = new Device();
    devices.push(device);
    const code = `mhr${net.id}p${players++}`;
    let n = 0;
    const client = createGameClient({
      server: `http://${hostA.address}:2567`,
      runtime: webRuntime({ platform: "wechat", storage: memoryStorage(), WebSocket: device.WebSocket, login: async () => ({ code: `${code}.${++n}` }) }),
    });
    const log: string[] = [];
    client.on("reconnecting", (e) => log.push(`reconnecting ${e.attempt}`));
    client.on("reconnected", (e) => log.push(`reconnected ${e.attempts}`));
    client.on("reconnectFailed", (e) => log.push(`failed ${e.reason}`));
    return { client, device, log };
  }

  /** A lobby on host b: created through the front door until one lands there. */
  async function roomOnB(): Promise<string> {
    for (let i = 0; i < 8; i++) {
      const login = (await (await fetch(`${front}/api/minigame/wechat/login?jsCode=mhr${net.id}owner${i}.1`)).json()) as { data: { token: string } };
      const res = await fetch(`${front}/matchmake/create/lobby`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ accessToken: login.data.token }) });
      const reservation = (await res.json()) as { roomId: string; publicAddress: string };
      rooms.push(await new Client(front).consumeSeatReservation(reservation as never));
      if (reservation.publicAddress === `${frontDoor}/b`) return reservation.roomId;
      await sleep(1100); // the shared room count each process reads is refreshed once a second
    }
    assert.fail("no room landed on host b");
  }

  function chat(from: Room, to: Room, text: string): Promise<void> {
    const heard = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`chat "${text}" never arrived`)), 5000);
      to.onMessage("chat", (m: { text: string }) => m.text === text && (clearTimeout(timer), resolve()));
    });
    from.send("chat", { text });
    return heard;
  }

  let roomId: string;

  it("takes the seat back on host b after a network switch, its HTTP going to host a", async () => {
    roomId = await roomOnB();
    const a = player();
    const other = player();
    await a.client.login();
    await other.client.login();
    const room = await a.client.joinById(roomId);
    const peer = await other.client.joinById(roomId);
    rooms.push(room, peer);
    room.onMessage("*", () => undefined);
    assert.ok(a.device.urls[0].includes(`${frontDoor}/b/`), `the seat's socket goes to host b: ${a.device.urls[0]}`);
    const seat = room.sessionId;

    a.device.switchNetwork();
    await waitFor(() => a.log.some((l) => l.startsWith("reconnected") || l.startsWith("failed")), 15_000, () => `no reconnection: ${a.log.join(", ")}`);
    assert.ok(a.log.some((l) => l.startsWith("reconnected")), a.log.join(", "));
    assert.equal(room.sessionId, seat, "the same seat");
    assert.ok(a.device.urls.at(-1)!.includes(`${frontDoor}/b/`), `reconnected through host b's path: ${a.device.urls.at(-1)}`);
    await chat(room, peer, "back on host b");
    await chat(peer, room, "seen from host b");
    const players = [...((room.state as any).players.keys() as Iterable<string>)];
    assert.equal(players.filter((id) => id === seat).length, 1);
  });

  it("keeps one seat and leaks no reservation when the socket drops 20 times, across two processes", async () => {
    const a = player();
    await a.client.login();
    const room = await a.client.joinById(roomId);
    rooms.push(room);
    room.onMessage("*", () => undefined);
    const seat = room.sessionId;
    const listing = async () => JSON.parse((await redis.hget("roomcaches", roomId))!) as { clients: number };
    const before = (await listing()).clients;
    for (let i = 0; i < 20; i++) {
      if (i % 2 === 0) await waitFor(() => !!room.connection?.isOpen && !a.log.at(-1)?.startsWith("reconnecting"), 10_000, () => `not back before drop ${i + 1}: ${a.log.join(", ")}`);
      a.device.dropConnections();
      await sleep(i % 2 === 0 ? Math.floor(Math.random() * 15) : 40);
    }
    await waitFor(() => !!room.connection?.isOpen && !!a.log.at(-1)?.startsWith("reconnected"), 15_000, () => `not back after the drops: ${a.log.join(", ")}`);
    assert.ok(!a.log.some((l) => l.startsWith("failed")), a.log.join(", "));
    assert.equal(room.sessionId, seat);
    // A leaked reservation would keep counting in the listing until it expired (15 s).
    await sleep(500);
    assert.equal((await listing()).clients, before, "the shared listing counts the player once");
    const players = [...((room.state as any).players.keys() as Iterable<string>)];
    assert.equal(players.filter((id) => id === seat).length, 1);
    const peer = rooms[rooms.length - 2];
    await chat(room, peer, "still one of me");
  });
});

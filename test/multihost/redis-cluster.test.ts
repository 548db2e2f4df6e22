/**
 * Redis Cluster as the shared cache and the Colyseus presence and driver, against three real masters
 * (test/support/redis-cluster.ts): two server processes on REDIS_CLUSTER_NODES, a login on one and
 * its refresh on the other, a room shared by both, a logout on one closing the room socket held
 * through the other with 4401; a user's session keys in one hash slot.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Cluster } from "ioredis";
import { Client, type Room } from "@colyseus/sdk";
import { createCache } from "../../src/adapters/cache/create-cache";
import { CrossSlotWriteError } from "../../src/adapters/cache/redis-cache";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { redisCluster, redisClusterSkipReason } from "../support/redis-cluster";
import { leaveRooms } from "../support/rooms";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { uniquePrefix } from "../support/services";

interface Session {
  token: string;
  refreshToken: string;
  user: { id: string };
}

(redisClusterSkipReason ? describe.skip : describe)("Redis Cluster as cache, presence and room driver (three masters)", function () {
  this.timeout(90_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-cluster-"));
  const prefix = uniquePrefix("cluster");
  const run = Date.now().toString(36);
  const servers: ServerProcess[] = [];
  const rooms: Room[] = [];
  let simulator: RunningSimulator;
  let raw: Cluster;

  before(async () => {
    const nodes = await redisCluster();
    simulator = await startSimulator({ port: 0 });
    raw = new Cluster(nodes.ports.map((port) => ({ host: "127.0.0.1", port })));
    const env = {
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      // One SQLite file for both processes (WAL): the cluster is what is under test here.
      SQLITE_PATH: path.join(tmp, "users.sqlite"),
      REDIS_CLUSTER_NODES: nodes.urls.join(","),
      CACHE_KEY_PREFIX: prefix,
      // Seats name the process holding the room ({port}: each process's own).
      PUBLIC_ADDRESS: "127.0.0.1:{port}",
      ...simulatorPlatformEnv(simulator.url),
    };
    for (let i = 0; i < 2; i++) servers.push(await startServerProcess(env));
  });

  after(async () => {
    await leaveRooms(rooms);
    await Promise.all(servers.map((s) => s.stop()));
    await simulator?.close();
    raw?.disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function login(server: ServerProcess, player: string): Promise<Session> {
    const res = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${player}.1`);
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { data: Session }).data;
  }

  it("logs in on one process, refreshes on the other, with the user's keys in one hash slot", async () => {
    const session = await login(servers[0], `cl${run}a`);
    const me = await fetch(`${servers[1].baseUrl}/api/users/me`, { headers: { authorization: `Bearer ${session.token}` } });
    assert.equal(me.status, 200, "the token works on the other process");
    const refreshed = await fetch(`${servers[1].baseUrl}/api/auth/refresh`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    const { token } = ((await refreshed.json()) as { data: Session }).data;
    assert.equal((await fetch(`${servers[0].baseUrl}/api/users/me`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

    const keys: string[] = [];
    for (const node of raw.nodes("master")) keys.push(...(await node.keys(`${prefix}*${session.user.id}*`)));
    assert.ok(keys.length >= 2, `session keys found: ${keys.join(", ")}`);
    assert.ok(keys.includes(`${prefix}access_token:{${session.user.id}}`), `a cluster's keys carry the hash tag: ${keys.join(", ")}`);
    const slots = new Set(await Promise.all(keys.map((k) => raw.cluster("KEYSLOT", k) as Promise<number>)));
    assert.equal(slots.size, 1, `one slot for ${keys.join(", ")}`);
  });

  it("refuses an atomic write across hash slots instead of splitting it", async () => {
    const { urls } = await redisCluster();
    const cache = await createCache({ kind: "redis-cluster", nodes: urls }, prefix);
    try {
      const entries = [{ key: "{x}:guard", value: "v", ttlSec: 60 }, { key: "{y}:other", value: "w", ttlSec: 60 }];
      await assert.rejects(cache.setMany(entries), CrossSlotWriteError);
      await assert.rejects(cache.replaceIfEquals("{x}:guard", "v", entries), CrossSlotWriteError);
      assert.deepEqual(await cache.getMany(["{x}:guard", "{y}:other"]), [null, null], "nothing written");
    } finally {
      await cache.close();
    }
  });

  it("shares rooms over the cluster and closes a room socket with 4401 on a logout at the other process", async () => {
    const alice = await login(servers[0], `cl${run}b`);
    const bob = await login(servers[1], `cl${run}c`);
    const roomA = await new Client(servers[0].baseUrl).joinOrCreate("lobby", { accessToken: alice.token });
    rooms.push(roomA);
    const roomB = await new Client(servers[1].baseUrl).joinById(roomA.roomId, { accessToken: bob.token });
    rooms.push(roomB);
    const heard = new Promise<{ text: string }>((resolve) => roomA.onMessage("chat", resolve));
    roomB.onMessage("chat", () => undefined);
    roomB.send("chat", { text: `hello over the cluster ${run}` });
    assert.equal((await heard).text, `hello over the cluster ${run}`);

    const closed = new Promise<number>((resolve) => roomA.onLeave(resolve));
    const logout = await fetch(`${servers[1].baseUrl}/api/auth/logout`, { method: "POST", headers: { authorization: `Bearer ${alice.token}` } });
    assert.equal(logout.status, 200);
    assert.equal(await closed, 4401);
  });
});

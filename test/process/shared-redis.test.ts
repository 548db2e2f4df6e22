/**
 * Two deployments on one Redis (staging and production, two games, two test runs), told apart by
 * CACHE_KEY_PREFIX. Colyseus's room list and presence keys must follow the prefix too, or one
 * deployment's matchmaking finds the other's rooms and hands players seats no process of its own holds.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Client, type Room } from "@colyseus/sdk";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { testRedisUrl, uniquePrefix } from "../support/services";

(testRedisUrl ? describe : describe.skip)("two deployments sharing one Redis", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let redis: Redis;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-shared-redis-"));
  const prefixes = [uniquePrefix("deploy-a"), uniquePrefix("deploy-b")];
  const servers: ServerProcess[] = [];
  const rooms: Room[] = [];

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    redis = new Redis(testRedisUrl!);
    for (const [i, prefix] of prefixes.entries()) {
      servers.push(
        await startServerProcess({
          NODE_ENV: "test",
          JWT_SECRET: TEST_JWT_SECRET,
          LOG_LEVEL: "warn",
          SQLITE_PATH: path.join(tmp, `users-${i}.sqlite`),
          REDIS_URL: testRedisUrl!,
          CACHE_KEY_PREFIX: prefix,
          ...simulatorPlatformEnv(simulator.url),
        }),
      );
    }
  });

  after(async () => {
    await Promise.all(rooms.map((r) => r.leave().catch(() => undefined)));
    await Promise.all(servers.map((s) => s.stop()));
    await simulator?.close();
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis?.quit();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function joinLobby(server: ServerProcess, player: string): Promise<Room> {
    const login = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${player}.1`);
    assert.equal(login.status, 200);
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const room = await new Client(server.baseUrl).joinOrCreate("lobby", { accessToken: token });
    rooms.push(room);
    return room;
  }

  it("keeps each deployment's rooms to itself, with Colyseus's keys under its CACHE_KEY_PREFIX", async () => {
    const run = Date.now().toString(36);
    const roomA = await joinLobby(servers[0], `sharedA${run}`);
    const roomB = await joinLobby(servers[1], `sharedB${run}`);
    assert.notEqual(roomB.roomId, roomA.roomId, "the second deployment matchmade into the first one's room");
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((roomB.state as { players: Map<string, unknown> }).players.size, 1);
    for (const [i, prefix] of prefixes.entries()) {
      const listed = await redis.hkeys(`${prefix}roomcaches`);
      assert.deepEqual(listed, [[roomA, roomB][i].roomId], `rooms listed under ${prefix}`);
    }
  });
});

/**
 * A server process SIGKILLed beside another on the same Redis: its room listings go within seconds
 * (src/server/host-health.ts), not never, as with Colyseus 0.16 alone, and matchmaking never hands
 * out a seat for it, before or after a new process takes its place. The loopback cousin of
 * test/multihost/front-door.test.ts, for machines where network namespaces are not available.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Client, type Room } from "@colyseus/sdk";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { leaveRooms } from "../support/rooms";
import { startServerProcess, startServerProcesses, type ServerProcess } from "../support/server-process";
import { testRedisUrl, uniquePrefix } from "../support/services";

(testRedisUrl ? describe : describe.skip)("a SIGKILLed process on shared Redis", function () {
  this.timeout(60_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-dead-host-"));
  const prefix = uniquePrefix("dead-host");
  const run = Date.now().toString(36);
  const servers: ServerProcess[] = [];
  const rooms: Room[] = [];
  let simulator: RunningSimulator;
  let redis: Redis;
  let env: Record<string, string>;
  let players = 0;

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    redis = new Redis(testRedisUrl!);
    env = {
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      SQLITE_PATH: path.join(tmp, "users.sqlite"),
      REDIS_URL: testRedisUrl!,
      CACHE_KEY_PREFIX: prefix,
      PUBLIC_ADDRESS: "127.0.0.1:{port}",
      ...simulatorPlatformEnv(simulator.url),
    };
    servers.push(...(await startServerProcesses(env, 2)));
  });

  after(async () => {
    await leaveRooms(rooms);
    await Promise.all(servers.map((s) => s.stop()));
    await simulator?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function join(server: ServerProcess, method: "create" | "joinOrCreate"): Promise<Room> {
    const login = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=dh${run}p${players++}.1`);
    assert.equal(login.status, 200);
    const { token } = ((await login.json()) as { data: { token: string } }).data;
    const room = await new Client(server.baseUrl)[method]("lobby", { accessToken: token });
    rooms.push(room);
    return room;
  }

  const processesListed = async () => {
    const listings = Object.values(await redis.hgetall(`${prefix}roomcaches`)).map((v) => JSON.parse(v) as { processId: string; publicAddress: string });
    return { counted: Object.keys(await redis.hgetall(`${prefix}roomcount`)), listed: new Set(listings.map((l) => l.processId)), listings };
  };

  it("unlists it within 5 s and never seats a player on it, before or after a replacement starts", async () => {
    // A room on each process: creations go to the process with the fewest rooms.
    await join(servers[0], "create");
    await new Promise((r) => setTimeout(r, 1100)); // room counts are shared at most once a second
    await join(servers[0], "create");
    const byProcess = await processesListed();
    assert.equal(byProcess.listed.size, 2, "a room on each process");
    const victim = servers[1];
    const deadId = byProcess.listings.find((l) => victim.baseUrl.endsWith(l.publicAddress))!.processId;

    const killedAt = Date.now();
    victim.child.kill("SIGKILL");
    await victim.exited;
    for (;;) {
      const now = await processesListed();
      if (!now.listed.has(deadId) && !now.counted.includes(deadId)) break;
      assert.ok(Date.now() - killedAt < 5000, "the killed process is still listed 5 s later");
      await new Promise((r) => setTimeout(r, 100));
    }
    const cleanedMs = Date.now() - killedAt;

    for (let i = 0; i < 3; i++) await join(servers[0], "joinOrCreate");
    servers.splice(servers.indexOf(victim), 1, await startServerProcess(env));
    for (let i = 0; i < 3; i++) await join(servers[1], "joinOrCreate");
    const after = await processesListed();
    assert.ok(!after.listed.has(deadId) && !after.counted.includes(deadId), "the dead process is listed again");
    assert.ok(cleanedMs < 5000, `${cleanedMs} ms`);
  });
});

/**
 * Two server processes (src/server/index.ts) on one Redis and one PostgreSQL, serving the default app
 * and a studio's "puzzle" game against one standalone simulator that knows both apps: each app's
 * platform access token is fetched once for both processes, a token cancelled in one app heals
 * without touching the other, and a player's two games keep two sessions across the processes.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { defaultSimulatorApps, simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { TEST_JWT_SECRET } from "../support/app-harness";
import { createTestDatabase } from "../support/postgres";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

const PUZZLE = { platform: "wechat", appId: "wx_puzzle_two_processes", appSecret: "puzzle-two-processes-secret" };

(testRedisUrl && testDatabaseUrl ? describe : describe.skip)("several apps over two processes (PostgreSQL + Redis)", function () {
  this.timeout(90_000);
  let simulator: RunningSimulator;
  let redis: Redis;
  let dropDatabase: () => Promise<void>;
  const prefix = uniquePrefix("apps-two");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-two-"));
  const servers: ServerProcess[] = [];

  before(async () => {
    simulator = await startSimulator({ port: 0, apps: [...defaultSimulatorApps(), PUZZLE] });
    redis = new Redis(testRedisUrl!);
    const db = await createTestDatabase(testDatabaseUrl!);
    dropDatabase = () => db.drop();
    const appsFile = path.join(dir, "apps.json");
    fs.writeFileSync(appsFile, JSON.stringify({ apps: [{ key: "puzzle", wechat: { appId: PUZZLE.appId, appSecret: PUZZLE.appSecret } }] }));
    const env = {
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      DATABASE_URL: db.url,
      REDIS_URL: testRedisUrl!,
      CACHE_KEY_PREFIX: prefix,
      APPS_FILE: appsFile,
      ...simulatorPlatformEnv(simulator.url),
    };
    servers.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await simulator?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis?.quit();
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = async (server: ServerProcess, pathAndQuery: string, headers: Record<string, string> = {}) => {
    const res = await fetch(server.baseUrl + pathAndQuery, { headers });
    return { status: res.status, body: (await res.json()) as any };
  };
  const token = async (server: ServerProcess, appId?: string) => {
    const res = await get(server, `/api/minigame/wechat/access_token${appId ? `?appId=${appId}` : ""}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.access_token as string;
  };

  it("fetches each app's platform access token once for both processes, and heals one app alone", async () => {
    simulator.resetStats();
    const first = await Promise.all(servers.flatMap((s) => [token(s), token(s, PUZZLE.appId), token(s), token(s, PUZZLE.appId)]));
    assert.equal(simulator.stats().accessToken.wechat, 2, "one upstream fetch per app across the two processes");
    const [defaultToken, puzzleToken] = first;
    assert.deepEqual(new Set(first), new Set([defaultToken, puzzleToken]));
    assert.notEqual(defaultToken, puzzleToken);

    // Process 1 reports the puzzle token as rejected: process 2 serves the new one, the default app's is untouched.
    const healed = await fetch(`${servers[0].baseUrl}/api/minigame/wechat/access_token/invalidate?appId=${PUZZLE.appId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ access_token: puzzleToken }),
    }).then((r) => r.json() as Promise<{ data: { access_token: string } }>);
    assert.notEqual(healed.data.access_token, puzzleToken);
    await new Promise((r) => setTimeout(r, 200)); // the change travels on the presence channel
    assert.equal(await token(servers[1], PUZZLE.appId), healed.data.access_token);
    assert.equal(await token(servers[1]), defaultToken);
    // The puzzle app's heal only: WeChat's stable-token API answers the same token in normal mode
    // (nobody cancelled it upstream), so a forced fetch follows; the default app fetched nothing.
    assert.equal(simulator.stats().accessToken.wechat, 4);
  });

  it("keeps a player's two games' sessions apart across the processes", async () => {
    const player = `twoproc${Date.now().toString(36)}`;
    const inDefault = await get(servers[0], `/api/minigame/wechat/login?jsCode=${player}.1`);
    const inPuzzle = await get(servers[1], `/api/minigame/wechat/login?jsCode=${player}.2&appId=${PUZZLE.appId}`);
    assert.equal(inPuzzle.body.data.user.id, inDefault.body.data.user.id);
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    assert.equal((await get(servers[1], "/api/users/me", bearer(inDefault.body.data.token))).body.data.app, "default");
    assert.equal((await get(servers[0], "/api/users/me", bearer(inPuzzle.body.data.token))).body.data.app, "puzzle");
  });
});

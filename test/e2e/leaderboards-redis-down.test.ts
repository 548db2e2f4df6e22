/**
 * The leaderboard routes while Redis is unreachable (the real app on PostgreSQL, its Redis reached
 * through a TCP proxy this test owns; the shared Redis is never stopped): top, around-me, me and a
 * client's score answer 200 (from the store) or 503 `service_unavailable` (the sessions and rates
 * live in Redis), soon, never a 500 and never hanging; a score the game's code submits meanwhile is
 * accepted, and shows in the ranks from Redis once it is back.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { startHarness, type Harness } from "../support/app-harness";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";
import { TcpProxy } from "../support/tcp-proxy";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const key = { app: "default", board: "highscores", seq: 1 };
/** The cache's own fault suite allows its first 503 2 s; a hang would be the 2 s command timeout, twice. */
const SOON_MS = 2500;

(testDatabaseUrl && testRedisUrl ? describe : describe.skip)("leaderboard routes on PostgreSQL + Redis while Redis is unreachable", function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let proxy: TcpProxy;
  let h: Harness;
  let ranks: RedisRankIndex;
  let player: { token: string; user: { id: string } };
  let trusted: { token: string; user: { id: string } };

  before(async () => {
    database = await createTestDatabase(testDatabaseUrl!);
    const url = new URL(testRedisUrl!);
    proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379));
    url.host = `127.0.0.1:${proxy.port}`;
    const prefix = uniquePrefix("lbdown");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lbdown-")), "leaderboards.json");
    fs.writeFileSync(file, JSON.stringify({ default: [{ id: "highscores", operator: "best", clientSubmit: true, clientSubmitsPerMinute: 6000 }] }));
    h = await startHarness({
      env: { DATABASE_URL: database.url, REDIS_URL: url.toString(), CACHE_KEY_PREFIX: prefix, LEADERBOARDS_FILE: file, LEADERBOARD_TICK_MS: "200", LOG_LEVEL: "warn" },
    });
    ranks = new RedisRankIndex(testRedisUrl!, prefix);
    [player, trusted] = [await login(), await login()];
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 50 }, bearer(player.token))).status, 200);
    await h.services.leaderboards.submit("default", trusted.user.id, "highscores", 10);
    for (let i = 0; i < 100 && !(await ranks.ready(key)); i++) {
      await h.get("/api/leaderboards/highscores/records", bearer(player.token));
      await sleep(20);
    }
    assert.ok(await ranks.ready(key), "the ranks are served from Redis before the fault");
  });
  after(async () => {
    // Connections that lost bytes in the silence are reset first: some outside the leaderboards (the
    // rooms' presence) would otherwise wait for a lost reply on shutdown.
    proxy?.cut();
    proxy?.restore();
    await sleep(300);
    await h?.close();
    await ranks?.close();
    await proxy?.close();
    await database?.drop();
  });

  async function login(): Promise<{ token: string; user: { id: string } }> {
    const wechat = platformDefinitions.find((p) => p.name === "wechat")!;
    const res = await h.get(loginPath(wechat, `${freshPlayer("lbdown")}.1`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  }

  /** 200, or 503 service_unavailable, within SOON_MS. */
  async function answers(method: string, url: string, body?: unknown): Promise<number> {
    const started = Date.now();
    const res = await h.request(method, url, body, bearer(player.token));
    const took = Date.now() - started;
    assert.ok(took < SOON_MS, `${method} ${url} took ${took} ms`);
    assert.ok(res.status === 200 || res.status === 503, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.status === 503) assert.equal(res.body.data.code, "service_unavailable");
    return res.status;
  }

  let best = 1000;
  for (const [name, fault] of [
    ["connections reset", () => proxy.cut()],
    ["silent, bytes held", () => proxy.silence("hold")],
    ["silent, bytes lost", () => proxy.silence("drop")],
  ] as const) {
    it(`Redis ${name}: 200 or 503 soon; a trusted score is accepted and ranked from Redis once it is back`, async () => {
      best += 1000;
      fault();
      try {
        for (let round = 0; round < 3; round++) {
          await answers("GET", "/api/leaderboards/highscores/records?limit=10");
          await answers("GET", "/api/leaderboards/highscores/records/around-me?limit=5");
          await answers("GET", "/api/leaderboards/highscores/me");
          await answers("POST", "/api/leaderboards/highscores/scores", { score: 60 + round });
          await sleep(200);
        }
        const started = Date.now();
        const record = await h.services.leaderboards.submit("default", trusted.user.id, "highscores", best);
        assert.ok(Date.now() - started < SOON_MS, `the room's submit took ${Date.now() - started} ms`);
        assert.deepEqual([record.rank, record.score], [1, best]);
      } finally {
        proxy.restore();
      }

      let top: { status: number; body: any } | undefined;
      for (let i = 0; i < 100; i++) {
        top = await h.get("/api/leaderboards/highscores/records?limit=1", bearer(player.token));
        const inRedis = await ranks.ranksOf(key, [trusted.user.id]);
        if (top.status === 200 && inRedis?.[0]?.record.score === best) break;
        await sleep(50);
      }
      assert.equal(top?.status, 200, "answers again once Redis is back");
      assert.deepEqual([top?.body.data.records[0].userId, top?.body.data.records[0].score], [trusted.user.id, best]);
      assert.equal((await ranks.ranksOf(key, [trusted.user.id]))?.[0]?.record.score, best, "the submission reached the ranks in Redis");
      assert.ok(!h.logs.some((line) => /"level":50/.test(line) && /leaderboard/i.test(line)), "no error logged for the leaderboards");
    });
  }
});

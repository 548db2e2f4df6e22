/**
 * The console over two server processes on one PostgreSQL and one Redis: an operator signed in on
 * one process is signed in on both; a refund and a grant made through process B reach the player
 * who logged in and bought through process A (the kept session key is in Redis), each once; and a
 * disable through B closes the player's room socket on A with 4401.
 */
import assert from "node:assert/strict";
import Redis from "ioredis";
import { Client } from "colyseus.js";
import { parseConfig } from "../../src/config/config";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { TEST_JWT_SECRET } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { createTestDatabase } from "../support/postgres";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

(testRedisUrl && testDatabaseUrl ? describe : describe.skip)("console over two processes (PostgreSQL + Redis)", function () {
  this.timeout(90_000);
  let simulator: RunningSimulator;
  let redis: Redis;
  let dropDatabase: () => Promise<void>;
  let env: Record<string, string>;
  const prefix = uniquePrefix("console-two");
  const servers: ServerProcess[] = [];

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    redis = new Redis(testRedisUrl!);
    const db = await createTestDatabase(testDatabaseUrl!);
    dropDatabase = () => db.drop();
    env = {
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      DATABASE_URL: db.url,
      REDIS_URL: testRedisUrl!,
      CACHE_KEY_PREFIX: prefix,
      // A room may be created on either process: its seat names the process holding it.
      PUBLIC_ADDRESS: "127.0.0.1:{port}",
      ...simulatorPlatformEnv(simulator.url),
      ...simulatorPaymentEnv(simulator.url),
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
  });

  const balance = async (openid: string) => ((await (await fetch(`${simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number }).balance;

  it("signs in on one process for both; refunds, grants and disables through the other", async () => {
    const [a, b] = servers;
    const login = await fetch(`${a.baseUrl}/api/minigame/wechat/login?jsCode=twoproc${Date.now().toString(36)}.1`).then((r) => r.json() as Promise<any>);
    const { token, openid, user } = login.data;
    await fetch(`${simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
    const bought = await fetch(`${a.baseUrl}/api/payments/orders`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ orderId: "gem-1", itemId: "sword", coins: 30 }) });
    assert.equal(bought.status, 201);
    const room = await new Client(a.baseUrl).joinOrCreate("lobby", { accessToken: token });
    const closed = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

    const op = await addOperator(parseConfig(env), `ops${Date.now().toString(36)}`, "admin");
    const onA = new ConsoleClient(a.baseUrl);
    await onA.signIn(op, OPERATOR_PASSWORD);
    const onB = new ConsoleClient(b.baseUrl);
    onB.cookie = onA.cookie;
    onB.csrf = onA.csrf;
    assert.equal((await onB.call("GET", "/session")).status, 200, "the session is shared through Redis");

    const refunds = await Promise.all([onB.call("POST", `/players/${user.id}/orders/gem-1/refund`), onA.call("POST", `/players/${user.id}/orders/gem-1/refund`)]);
    for (const r of refunds) assert.equal(r.body.data?.state, "refunded", JSON.stringify(r.body));
    assert.equal(await balance(openid), 100, "refunded once");
    const grants = await Promise.all([onB.call("POST", `/players/${user.id}/grants`, { platform: "wechat", coins: 15, grantId: "two-proc" }), onA.call("POST", `/players/${user.id}/grants`, { platform: "wechat", coins: 15, grantId: "two-proc" })]);
    for (const g of grants) assert.equal(g.body.data?.state, "delivered", JSON.stringify(g.body));
    assert.equal(await balance(openid), 115, "granted once");

    const disabled = await onB.call("POST", `/players/${user.id}/disable`, { reason: "two-process ban" });
    assert.equal(disabled.status, 200);
    assert.equal(await closed, 4401, "the room on the other process closed with 4401");

    const audit = await onA.call("GET", `/audit?target=${user.id}&outcome=ok`);
    assert.deepEqual(audit.body.data.map((e: { action: string }) => e.action).sort(), ["order.grant", "order.grant", "order.refund", "order.refund", "player.disable"]);

    await onA.call("DELETE", "/session");
    assert.equal((await onB.call("GET", "/session")).status, 401, "signed out on both");
  });
});

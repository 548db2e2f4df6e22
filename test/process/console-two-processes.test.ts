/**
 * The console over two server processes on one PostgreSQL and one Redis: an operator signed in on
 * one process is signed in on both; a refund and a grant made through process B reach the player
 * who logged in and bought through process A (the kept session key is in Redis), each once; and a
 * disable through B closes the player's room socket on A with 4401. Either process lists the rooms
 * a player is in on both, and a mute made through one refuses the player's chat in a room on the other.
 */
import assert from "node:assert/strict";
import Redis from "ioredis";
import { Client } from "@colyseus/sdk";
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
    assert.deepEqual(audit.body.data.map((e: { action: string }) => e.action).sort(), ["order.grant", "order.refund", "order.refund", "player.disable"]);
    // The same grantId through the other process granted nothing more: audited as a repeat, not a second grant.
    const repeats = await onA.call("GET", `/audit?target=${user.id}&outcome=repeated`);
    assert.deepEqual(repeats.body.data.map((e: { action: string }) => e.action), ["order.grant"]);

    await onA.call("DELETE", "/session");
    assert.equal((await onB.call("GET", "/session")).status, 401, "signed out on both");
  });

  it("lists a player's rooms on both processes from either; a mute through one silences the player on the other", async () => {
    const login = await fetch(`${servers[0].baseUrl}/api/minigame/wechat/login?jsCode=tworooms${Date.now().toString(36)}.1`).then((r) => r.json() as Promise<any>);
    const { token, user } = login.data;
    const lobby = await new Client(servers[0].baseUrl).joinOrCreate("lobby", { accessToken: token });
    const match = await new Client(servers[1].baseUrl).create("match", { accessToken: token });
    const errors: Array<{ code: string }> = [];
    lobby.onMessage("error", (e) => errors.push(e));
    lobby.onMessage("chat", () => undefined);
    try {
      const op = await addOperator(parseConfig(env), `rooms${Date.now().toString(36)}`, "support");
      const consoles = servers.map((server) => new ConsoleClient(server.baseUrl));
      assert.equal((await consoles[0].signIn(op, OPERATOR_PASSWORD)).status, 200);
      assert.equal((await consoles[1].signIn(op)).status, 200, "then with the new password");
      const pids = servers.map((server) => server.child.pid);
      let lobbyPid: number | undefined;
      for (const client of consoles) {
        const listed = await client.call("GET", `/players/${user.id}/rooms`);
        assert.equal(listed.status, 200, JSON.stringify(listed.body));
        const rooms = listed.body.data.rooms as Array<{ roomId: string; roomType: string; pid: number; processId: string; connected: boolean }>;
        assert.deepEqual(rooms.map((r) => [r.roomType, r.roomId, r.connected]), [["lobby", lobby.roomId, true], ["match", match.roomId, true]]);
        for (const r of rooms) assert.ok(pids.includes(r.pid), `the room's process is one of the two servers (${r.pid})`);
        assert.equal(listed.body.data.unanswered, 0);
        lobbyPid = rooms[0].pid;
      }
      // Mute through the process that does not hold the lobby (or through B when both hold it).
      const other = consoles[pids.indexOf(lobbyPid) === 0 ? 1 : 0];
      const muted = await other.call("POST", `/players/${user.id}/mute`, { reason: "two-process mute", durationSec: 600 });
      assert.equal(muted.status, 200, JSON.stringify(muted.body));
      lobby.send("chat", { text: "hello from the muted" });
      for (let i = 0; i < 150 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(errors.map((e) => e.code), ["muted"]);
    } finally {
      await Promise.allSettled([lobby.leave(), match.leave()]);
    }
  });
});

/**
 * The console's refund and grant with the server killed (SIGKILL, through the test-only
 * PAYMENT_CRASH_POINT) after the platform was asked and before the ledger recorded it: after a
 * restart the grant is finished by the reconciler and the refund by the operator's retry, each
 * moving coins once (the bill numbers make a repeat harmless). On SQLite + memory (one process)
 * and PostgreSQL + Redis (two processes); with the memory cache the player logs in again, as the
 * kept session key died with the process.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../../src/config/config";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { backends } from "../support/backends";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { startServerProcess, startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "console-fault-tests-jwt-secret-0123456789abcdef";
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`console refund and grant survive SIGKILL: ${backend.name}`, function () {
    this.timeout(120_000);
    let sim: RunningSimulator;
    let env: Record<string, string>;
    let release: () => Promise<void>;
    let tmp: string;
    const servers: ServerProcess[] = [];
    const twoProcesses = !backend.name.startsWith("embedded");

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-consolefault-"));
      env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "warn",
        SQLITE_PATH: path.join(tmp, "users.sqlite"),
        PAYMENT_RECONCILE_INTERVAL_SEC: "1",
        PAYMENT_SETTLE_AFTER_MS: "300",
        ...simulatorPlatformEnv(sim.url),
        ...simulatorPaymentEnv(sim.url),
        ...prepared.env,
      };
    });
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.stop()));
    });
    after(async () => {
      await sim?.close();
      await release?.();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function login(server: ServerProcess, player: string, n: number) {
      const res = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${player}.${n}`);
      const body = (await res.json()) as { data: { token: string; openid: string; user: { id: string } } };
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.data;
    }
    const coins = async (openid: string) => (await (await fetch(`${sim.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number };
    async function operator(server: ServerProcess) {
      const op = await addOperator(parseConfig(env), unique("ops"), "admin");
      const client = new ConsoleClient(server.baseUrl);
      await client.signIn(op, OPERATOR_PASSWORD);
      return { op, client };
    }
    async function restart(): Promise<ServerProcess[]> {
      const restarted = await startServerProcesses(env, twoProcesses ? 2 : 1);
      servers.push(...restarted);
      return restarted;
    }

    it("after_grant_sent: the reconciler finishes the grant; the operator's repeat grants nothing more", async () => {
      const crashing = await startServerProcess({ ...env, PAYMENT_CRASH_POINT: "after_grant_sent" });
      servers.push(crashing);
      const player = unique("granted");
      const first = await login(crashing, player, 1);
      await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
      const { op, client } = await operator(crashing);
      const grant = await client.call("POST", `/players/${first.user.id}/grants`, { platform: "wechat", coins: 20, grantId: "crash-grant" }).then(
        (r) => r.status,
        () => "no answer",
      );
      await crashing.exited;
      assert.equal(grant, "no answer");
      assert.equal(crashing.exit()?.signal, "SIGKILL");
      assert.equal((await coins(first.openid)).balance, 120, "the platform presented the coins before the kill");

      const [server] = await restart();
      const again = await login(server, player, 2); // the memory cache lost the kept key with the process
      let state = "";
      for (let i = 0; i < 100 && state !== "delivered"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const res = await fetch(`${server.baseUrl}/api/payments/orders/crash-grant`, { headers: { authorization: `Bearer ${again.token}` } });
        state = ((await res.json()) as { data: { state?: string } }).data.state ?? "";
      }
      assert.equal(state, "delivered");
      const console2 = new ConsoleClient(server.baseUrl);
      await console2.signIn(op);
      const repeat = await console2.call("POST", `/players/${first.user.id}/grants`, { platform: "wechat", coins: 20, grantId: "crash-grant" });
      assert.equal(repeat.body.data?.state, "delivered", JSON.stringify(repeat.body));
      assert.equal((await coins(first.openid)).balance, 120, "granted once");
      const audit = await console2.call("GET", `/audit?action=order.grant&target=${first.user.id}`);
      const entries = audit.body.data as Array<{ outcome: string; detail: { grantId?: string } }>;
      // The killed attempt's `started`, the retry's `started`, and the retry's outcome: a repeat (the
      // reconciler had finished the grant), not a second grant.
      assert.deepEqual(entries.map((e) => e.outcome).sort(), ["repeated", "started", "started"], "the killed attempt is on record");
      assert.ok(entries.every((e) => e.detail.grantId === "crash-grant"));
    });

    it("after_refund_sent: the operator's retry records the refund; the coins came back once", async () => {
      const crashing = await startServerProcess({ ...env, PAYMENT_CRASH_POINT: "after_refund_sent" });
      servers.push(crashing);
      const player = unique("refunded");
      const first = await login(crashing, player, 1);
      await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
      const bought = await fetch(`${crashing.baseUrl}/api/payments/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${first.token}` },
        body: JSON.stringify({ orderId: "crash-refund", itemId: "sword", coins: 30 }),
      });
      assert.equal(bought.status, 201);
      const { op, client } = await operator(crashing);
      const refund = await client.call("POST", `/players/${first.user.id}/orders/crash-refund/refund`).then(
        (r) => r.status,
        () => "no answer",
      );
      await crashing.exited;
      assert.equal(refund, "no answer");
      assert.equal((await coins(first.openid)).balance, 100, "the platform gave the coins back before the kill");

      const [server] = await restart();
      await login(server, player, 2);
      const console2 = new ConsoleClient(server.baseUrl);
      await console2.signIn(op);
      const orders = await console2.call("GET", `/players/${first.user.id}/orders`);
      assert.equal(orders.body.data[0].state, "delivered", "the ledger never heard of the refund");
      const retried = await console2.call("POST", `/players/${first.user.id}/orders/crash-refund/refund`);
      assert.equal(retried.body.data?.state, "refunded", JSON.stringify(retried.body));
      assert.equal((await coins(first.openid)).balance, 100, "given back once");
    });
  });
}

/**
 * The server process killed (SIGKILL, through the test-only PAYMENT_CRASH_POINT) at each step of a
 * coin spend: after the deduction was sent and before the ledger recorded it, after `paid` was
 * recorded and before delivery, and while the delivery hook runs. After a restart (two processes on
 * PostgreSQL + Redis and MongoDB + Redis, one on SQLite) the reconciler brings the order to `delivered` with one
 * deduction. The player logs in again after the restart, as a returning player would: with the
 * in-memory cache the session key WeChat's signature needs died with the process.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PAYMENT_CRASH_POINTS } from "../../src/config/settings/payments";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends as backends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";
import { startServerProcess, startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "payment-fault-tests-jwt-secret-0123456789abcdef";
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`payments survive SIGKILL at each step: ${backend.name}`, function () {
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
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-payfault-"));
      env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "info",
        SQLITE_PATH: path.join(tmp, "users.sqlite"),
        PAYMENT_RECONCILE_INTERVAL_SEC: "1",
        PAYMENT_SETTLE_AFTER_MS: "300",
        PAYMENT_DELIVERY_LEASE_MS: "1000",
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
      const body = (await res.json()) as { data: { token: string; openid: string } };
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.data;
    }

    for (const point of PAYMENT_CRASH_POINTS) {
      it(`${point}: delivered once after the restart, one deduction`, async () => {
        const crashing = await startServerProcess({ ...env, PAYMENT_CRASH_POINT: point });
        servers.push(crashing);
        const player = unique("faulty");
        const first = await login(crashing, player, 1);
        await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
        const orderId = unique("ord");
        const spend = await fetch(`${crashing.baseUrl}/api/payments/orders`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${first.token}` },
          body: JSON.stringify({ orderId, itemId: "sword", coins: 30 }),
        }).then(
          (r) => r.status,
          () => "no answer",
        );
        await crashing.exited;
        assert.equal(spend, "no answer");
        assert.equal(crashing.exit()?.signal, "SIGKILL");

        const restarted = await startServerProcesses(env, twoProcesses ? 2 : 1);
        servers.push(...restarted);
        const again = await login(restarted[0], player, 2);
        let state = "";
        for (let i = 0; i < 100 && state !== "delivered"; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const res = await fetch(`${restarted[0].baseUrl}/api/payments/orders/${orderId}`, { headers: { authorization: `Bearer ${again.token}` } });
          state = ((await res.json()) as { data: { state?: string } }).data.state ?? "";
        }
        assert.equal(state, "delivered");
        const coins = (await (await fetch(`${sim.url}/__simulator/coins?platform=wechat&openid=${first.openid}`)).json()) as { balance: number; deductions: number };
        assert.deepEqual([coins.balance, coins.deductions], [70, 1]);

        // Deliveries after the restart: exactly one, whichever process made it. A crash during the
        // hook means the hook ran before too, with the same order id (its idempotency key).
        const hookCalls = (s: ServerProcess) => s.output().split("\n").filter((l) => l.includes('"event":"item_delivered"') && l.includes(orderId));
        const after = restarted.flatMap(hookCalls);
        assert.equal(after.length, 1, after.join("\n"));
        // The killed process's own log line of a hook it started may die with it (stdout is buffered).
        const before = hookCalls(crashing);
        assert.ok(before.length <= (point === "during_delivery" ? 1 : 0), before.join("\n"));
        const ids = new Set([...before, ...after].map((l) => (JSON.parse(l) as { order: string }).order));
        assert.equal(ids.size, 1, "one order id across every call of the hook");
      });
    }
  });
}

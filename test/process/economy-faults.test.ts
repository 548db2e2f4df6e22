/**
 * The server process killed (SIGKILL, through the test-only ECONOMY_CRASH_POINT) at each step of a
 * grant: after its source claim and before its ledger entry, and after the entry before anything
 * else. After a restart (two processes on PostgreSQL + Redis and MongoDB + Redis, one on SQLite):
 * a soft-currency purchase replayed 20 times concurrently over the processes is made exactly once;
 * a paid coin order, finished by the reconciler, lands in the wallet exactly once.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ECONOMY_CRASH_POINTS } from "../../src/adapters/store/economy-chain";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends as backends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";
import { startServerProcess, startServerProcesses, unhandledErrors, type ServerProcess } from "../support/server-process";
import { untilAnswered } from "../support/until-answered";

const JWT = "economy-fault-tests-jwt-secret-0123456789abcdef";
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`economy grants survive SIGKILL at each step: ${backend.name}`, function () {
    this.timeout(180_000);
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
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-ecofault-"));
      env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "info",
        SQLITE_PATH: path.join(tmp, "users.sqlite"),
        PAYMENT_RECONCILE_INTERVAL_SEC: "1",
        PAYMENT_SETTLE_AFTER_MS: "300",
        PAYMENT_DELIVERY_LEASE_MS: "1000",
        DATABASE_QUERY_TIMEOUT_MS: "5000",
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
    const call = (server: ServerProcess, token: string, method: string, route: string, body?: unknown) =>
      fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: any } }));

    async function restart(): Promise<ServerProcess[]> {
      const restarted = await startServerProcesses(env, twoProcesses ? 2 : 1);
      servers.push(...restarted);
      return restarted;
    }

    for (const step of ECONOMY_CRASH_POINTS) {
      it(`${step} of a soft purchase: made exactly once after the restart, 20 concurrent replays over the processes`, async () => {
        const crashing = await startServerProcess({ ...env, ECONOMY_CRASH_POINT: `${step}:purchase` });
        servers.push(crashing);
        const player = unique("eco");
        const first = await login(crashing, player, 1);
        await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
        const pack = await call(crashing, first.token, "POST", "/api/payments/orders", { orderId: unique("pack"), itemId: "gem_pack" });
        assert.equal(pack.status, 201, JSON.stringify(pack.body));
        const purchase = { purchaseId: unique("buy"), itemId: "potion" };
        const answer = await call(crashing, first.token, "POST", "/api/economy/purchases", purchase).then(
          (r) => r.status,
          () => "no answer",
        );
        await crashing.exited;
        assert.equal(answer, "no answer");
        assert.equal(crashing.exit()?.signal, "SIGKILL");

        const restarted = await restart();
        const again = await login(restarted[0], player, 2);
        // A replay answered 503 (the claim still held, a loaded database) is sent again, as a game does.
        const replays = await Promise.all(Array.from({ length: 20 }, (_, i) => untilAnswered(() => call(restarted[i % restarted.length], again.token, "POST", "/api/economy/purchases", purchase))));
        assert.deepEqual(new Set(replays.map((r) => r.status)), new Set([200]), JSON.stringify(replays.map((r) => r.body)) + unhandledErrors(restarted));
        assert.ok(replays.every((r) => r.body.data.balances.gems === 50));
        for (const server of restarted) {
          assert.deepEqual((await call(server, again.token, "GET", "/api/economy/wallet")).body.data.balances, { gems: 50 });
          assert.deepEqual((await call(server, again.token, "GET", "/api/economy/inventory")).body.data.items, [{ itemId: "potion", count: 1 }]);
        }
      });
    }

    it("after_claim of a paid coin order's grant: the reconciler delivers it, granted exactly once", async () => {
      const crashing = await startServerProcess({ ...env, ECONOMY_CRASH_POINT: "after_claim:coin_order" });
      servers.push(crashing);
      const player = unique("ecoorder");
      const first = await login(crashing, player, 1);
      await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: first.openid, balance: 100 }) });
      const orderId = unique("pack");
      const answer = await call(crashing, first.token, "POST", "/api/payments/orders", { orderId, itemId: "gem_pack" }).then(
        (r) => r.status,
        () => "no answer",
      );
      await crashing.exited;
      assert.equal(answer, "no answer");

      const restarted = await restart();
      const again = await login(restarted[0], player, 2);
      let state = "";
      for (let i = 0; i < 150 && state !== "delivered"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = (await call(restarted[0], again.token, "GET", `/api/payments/orders/${orderId}`)).body.data.state ?? "";
      }
      assert.equal(state, "delivered");
      const replays = await Promise.all(Array.from({ length: 20 }, (_, i) => call(restarted[i % restarted.length], again.token, "POST", "/api/payments/orders", { orderId, itemId: "gem_pack" })));
      assert.deepEqual(new Set(replays.map((r) => r.status)), new Set([200]));
      for (const server of restarted) assert.deepEqual((await call(server, again.token, "GET", "/api/economy/wallet")).body.data.balances, { gems: 60 });
      const coins = (await (await fetch(`${sim.url}/__simulator/coins?platform=wechat&openid=${first.openid}`)).json()) as { balance: number; deductions: number };
      assert.deepEqual([coins.balance, coins.deductions], [40, 1]);
    });
  });
}

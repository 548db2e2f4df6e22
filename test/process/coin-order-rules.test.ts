/**
 * Coin orders under the catalog's rules in real server processes (issue 48):
 * - two processes on one database (PostgreSQL + Redis, MongoDB + Redis): 20 concurrent coin orders
 *   for a durable spread over both → one item, one deduction; for an item with `limit: 2` → two; a
 *   catalog an operator loads in the middle of a stream of coin orders never changes what a paid
 *   order delivers;
 * - every store (two processes after the restart where the store is shared): the process killed
 *   (SIGKILL) after the platform was asked to deduct and after `paid` was recorded, the catalog
 *   changed while it is down (a price doubled, a price halved, an item removed), and the orders
 *   are delivered after the restart as they were priced: 2 swords, 1 shield, 1 gem.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { exampleCatalog, type Catalog } from "../../src/core/catalog";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { runAdmin } from "../support/admin-cli";
import { storeBackends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";
import { startServerProcess, startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "coin-order-rules-tests-jwt-secret-0123456789abcdef";
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

function catalogWithTicket(): Catalog {
  const catalog = exampleCatalog();
  catalog.items.push({ itemId: "ticket", name: "Ticket", kind: "consumable", prices: { coins: 5 }, grants: { items: [{ itemId: "ticket", count: 1 }] }, limit: 2 });
  return catalog;
}

for (const backend of storeBackends) {
  const shared = !backend.name.startsWith("embedded");
  describe(`coin orders under the catalog's rules, in server processes: ${backend.name}`, function () {
    this.timeout(240_000);
    let sim: RunningSimulator;
    let env: Record<string, string>;
    let release: () => Promise<void>;
    let tmp: string;
    const servers: ServerProcess[] = [];

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-coin-rules-"));
      const catalogFile = path.join(tmp, "catalog.json");
      fs.writeFileSync(catalogFile, JSON.stringify(catalogWithTicket()));
      env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "info",
        SQLITE_PATH: path.join(tmp, "users.sqlite"),
        CATALOG_FILE: catalogFile,
        CATALOG_REFRESH_SEC: "1",
        DATABASE_QUERY_TIMEOUT_MS: "10000",
        // The stream below makes more new orders than the per-player limit allows a minute.
        RATE_LIMIT_USER_MAX: "1000",
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

    const call = (server: ServerProcess, token: string, method: string, route: string, body?: unknown) =>
      fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { data: any } }),
        () => ({ status: 0, body: { data: {} } }),
      );
    async function login(server: ServerProcess, player: string, n: number, coins?: number) {
      const res = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${player}.${n}`);
      const body = (await res.json()) as { data: { token: string; openid: string } };
      assert.equal(res.status, 200, JSON.stringify(body));
      if (coins !== undefined) await fetch(`${sim.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: body.data.openid, balance: coins }) });
      return body.data;
    }
    const wallet = async (openid: string) => (await (await fetch(`${sim.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number; deductions: number };
    const inventory = async (server: ServerProcess, token: string) =>
      Object.fromEntries(((await call(server, token, "GET", "/api/economy/inventory")).body.data.items as Array<{ itemId: string; count: number }>).map((i) => [i.itemId, i.count]));
    const codes = (results: Array<{ status: number; body: any }>) => results.map((r) => (r.status < 300 ? r.status : `${r.status} ${r.body.data.code}`)).sort();
    async function loadCatalog(catalog: Catalog) {
      const file = path.join(tmp, `${unique("catalog")}.json`);
      fs.writeFileSync(file, JSON.stringify(catalog));
      const run = await runAdmin({ ...process.env, ...env, NODE_ENV: "development" }, "catalog", "load", file);
      assert.equal(run.status, 0, run.stderr);
    }

    if (shared) {
      it("two processes: 20 concurrent coin orders for a durable → one item, one charge; for limit 2 → two", async () => {
        servers.push(...(await startServerProcesses(env, 2)));
        const player = await login(servers[0], unique("durable"), 1, 10_000);
        const skins = await Promise.all(Array.from({ length: 20 }, (_, i) => call(servers[i % 2], player.token, "POST", "/api/payments/orders", { orderId: unique("o"), itemId: "golden-skin" })));
        assert.deepEqual(codes(skins), [201, ...Array(19).fill("409 already_owned")]);
        const tickets = await Promise.all(Array.from({ length: 20 }, (_, i) => call(servers[i % 2], player.token, "POST", "/api/payments/orders", { orderId: unique("o"), itemId: "ticket" })));
        assert.deepEqual(codes(tickets), [201, 201, ...Array(18).fill("409 purchase_limit")]);
        for (const server of servers) assert.deepEqual(await inventory(server, player.token), { "golden-skin": 1, ticket: 2 });
        assert.deepEqual(await wallet(player.openid).then((w) => [w.balance, w.deductions]), [10_000 - 60 - 10, 3]);
      });

      it("two processes: a catalog loaded in the middle of a stream of coin orders never changes what a paid order delivers", async () => {
        servers.push(...(await startServerProcesses(env, 2)));
        const player = await login(servers[0], unique("stream"), 1, 1_000_000);
        const sent: Array<Promise<{ status: number; body: any }>> = [];
        const changed = catalogWithTicket();
        changed.items.find((i) => i.itemId === "sword")!.prices = { coins: 45 };
        changed.items = changed.items.filter((i) => i.itemId !== "gem");
        // Orders keep coming while the operator loads the catalog and for a while after (each process reads it within CATALOG_REFRESH_SEC).
        let streamUntil = Infinity;
        const loaded = new Promise((resolve) => setTimeout(resolve, 500)).then(() => loadCatalog(changed)).then(() => (streamUntil = Date.now() + 2_500));
        // As a client does: an answer that says "retry" (no answer in time, the store busy) is retried with the same orderId.
        const orderOnce = async (i: number, body: Record<string, unknown>) => {
          let answer = await call(servers[i % 2], player.token, "POST", "/api/payments/orders", body);
          for (let retry = 1; retry < 30 && (answer.status === 0 || answer.status >= 500); retry++) {
            await new Promise((resolve) => setTimeout(resolve, 500));
            answer = await call(servers[(i + retry) % 2], player.token, "POST", "/api/payments/orders", body);
          }
          return answer;
        };
        for (let i = 0; Date.now() < streamUntil && i < 600; i++) {
          sent.push(orderOnce(i, { orderId: unique("o"), itemId: ["sword", "gem", "shield"][i % 3], quantity: 1 + (i % 4) }));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await loaded;
        const results = await Promise.all(sent);
        assert.ok(results.every((r) => r.status === 201 || r.status === 200 || r.body.data.code === "item_not_found"), JSON.stringify(codes(results)));
        const made = results.filter((r) => r.status < 300).map((r) => r.body.data);
        assert.ok(made.some((o) => o.itemId === "sword" && o.unitPrice === 45) && made.some((o) => o.itemId === "gem"), `orders on both sides of the change: ${JSON.stringify(made.map((o) => [o.itemId, o.unitPrice, o.catalogVersion]))}`);
        const expected: Record<string, number> = {};
        for (const o of made) {
          assert.deepEqual([o.state, o.coins], ["delivered", o.unitPrice * o.quantity]);
          expected[o.itemId] = (expected[o.itemId] ?? 0) + o.quantity;
        }
        for (const server of servers) assert.deepEqual(await inventory(server, player.token), expected);
        assert.equal((await wallet(player.openid)).balance, 1_000_000 - made.reduce((sum, o) => sum + o.coins, 0));
      });
    }

    it("killed after payment, the catalog changed before the restart: each order delivered as it was priced", async () => {
      const player = unique("crash");
      const orders: Array<{ orderId: string; itemId: string; quantity: number }> = [
        { orderId: unique("o"), itemId: "sword", quantity: 2 },
        { orderId: unique("o"), itemId: "shield", quantity: 1 },
        { orderId: unique("o"), itemId: "gem", quantity: 1 },
      ];
      const points = ["after_pay_sent", "after_paid", "after_paid"];
      await loadCatalog(catalogWithTicket());
      let openid = "";
      for (const [i, order] of orders.entries()) {
        // Its reconciler leaves the orders the earlier ones left to the restart (they are younger than PAYMENT_SETTLE_AFTER_MS).
        const crashing = await startServerProcess({ ...env, PAYMENT_CRASH_POINT: points[i], PAYMENT_SETTLE_AFTER_MS: "600000" });
        servers.push(crashing);
        const first = await login(crashing, player, i + 1, i === 0 ? 1_000 : undefined);
        openid = first.openid;
        const spend = await call(crashing, first.token, "POST", "/api/payments/orders", order);
        await crashing.exited;
        assert.equal(spend.status, 0, "no answer: the process died");
        assert.equal(crashing.exit()?.signal, "SIGKILL");
      }
      // While every process is down: the sword costs twice as much, the shield half, the gem is gone.
      const changed = catalogWithTicket();
      changed.items.find((i) => i.itemId === "sword")!.prices = { coins: 60 };
      changed.items.find((i) => i.itemId === "shield")!.prices = { coins: 10 };
      changed.items = changed.items.filter((i) => i.itemId !== "gem");
      await loadCatalog(changed);

      const restarted = await startServerProcesses(env, shared ? 2 : 1);
      servers.push(...restarted);
      const again = await login(restarted[0], player, 9);
      for (const order of orders) {
        let state = "";
        for (let i = 0; i < 150 && state !== "delivered"; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          state = (await call(restarted[i % restarted.length], again.token, "GET", `/api/payments/orders/${order.orderId}`)).body.data.state ?? "";
        }
        assert.equal(state, "delivered", order.itemId);
      }
      for (const server of restarted) assert.deepEqual(await inventory(server, again.token), { sword: 2, shield: 1, gem: 1 });
      assert.deepEqual(await wallet(openid).then((w) => [w.balance, w.deductions]), [1_000 - 60 - 20 - 10, 3]);
    });
  });
}

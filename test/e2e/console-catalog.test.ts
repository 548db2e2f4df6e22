/**
 * A catalog version an admin stores in the console reaches every process (two servers on one
 * PostgreSQL + Redis) without a restart; a stale upload and a viewer's upload are refused and
 * audited, and a catalog with problems stores nothing.
 */
import assert from "node:assert/strict";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

describe("console catalog upload over two servers (PostgreSQL + Redis)", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let db: TestDatabase;
  let servers: Harness[] = [];

  before(async function () {
    if (!testRedisUrl || !testDatabaseUrl) return this.skip();
    simulator = await startSimulator({ port: 0 });
    db = await createTestDatabase(testDatabaseUrl);
    const shared = { DATABASE_URL: db.url, REDIS_URL: testRedisUrl, CACHE_KEY_PREFIX: uniquePrefix("concat"), CATALOG_REFRESH_SEC: "1" };
    servers = [await startHarness({ env: shared, simulator }), await startHarness({ env: shared, simulator })];
  });
  after(async () => {
    for (const h of servers) await h.close();
    await simulator?.close();
    await db?.drop();
  });

  async function signedIn(h: Harness, role: "viewer" | "admin") {
    const op = await addOperator(h.config, `${role}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`, role);
    const client = new ConsoleClient(h.baseUrl);
    assert.equal((await client.signIn(op, OPERATOR_PASSWORD)).status, 200);
    return { op, client };
  }

  it("stores the next version on one server; the other serves it within the refresh", async () => {
    const login = await servers[1].get(`/api/minigame/wechat/login?jsCode=concat${Date.now().toString(36)}.1`);
    const player = { authorization: `Bearer ${login.body.data.token}` };
    const { client: admin, op } = await signedIn(servers[0], "admin");
    const { client: viewer } = await signedIn(servers[0], "viewer");
    const before = (await admin.call("GET", "/economy/catalog?app=default")).body.data.version as number;
    const catalog = { currencies: [{ currencyId: "gold" }], items: [{ itemId: "crown", name: "Crown", kind: "durable", prices: { gold: 9 } }] };

    assert.equal((await viewer.call("POST", "/economy/catalog", { catalog })).status, 403);
    const broken = await admin.call("POST", "/economy/catalog", { catalog: { items: [{ itemId: "crown", kind: "nope" }, { itemId: "" }] } });
    assert.equal(broken.status, 422);
    assert.ok(broken.body.data.problems.length >= 2, "every problem at once");
    const saved = await admin.call("POST", "/economy/catalog", { expectedVersion: before, catalog });
    assert.deepEqual([saved.status, saved.body.data.version], [200, before + 1], JSON.stringify(saved.body));
    assert.equal((await admin.call("POST", "/economy/catalog", { expectedVersion: before, catalog })).status, 409, "a stale edit overwrites nothing");

    let served: any;
    for (let i = 0; i < 100 && served?.version !== before + 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      served = (await servers[1].get("/api/catalog", player)).body.data;
    }
    assert.equal(served.version, before + 1, "the other process took the new version up");
    assert.deepEqual(served.items.map((i: { itemId: string }) => i.itemId), ["crown"]);

    const outcomes = (await admin.call("GET", "/audit?action=catalog.replace")).body.data.map((e: { actor: string; outcome: string; detail: { code?: string } }) => [e.actor === op.name ? "admin" : "viewer", e.outcome, e.detail.code ?? null]).map(String).sort();
    assert.deepEqual(outcomes, ["admin,ok,", "admin,refused,catalog_invalid", "admin,refused,version_conflict", "viewer,refused,console_role_forbidden"]);
  });
});

/**
 * The economy's operator commands as an operator runs them (`npm run admin`, a separate process with
 * the servers' settings): a grant of soft currency and items once per grant id through the
 * RewardGranter; a catalog change that reaches two running servers without a restart; a catalog
 * file's problems all at once; export and erase with the wallet, inventory and ledger.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { runAdmin } from "../support/admin-cli";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

describe("admin economy: grant, catalog, export and erase (PostgreSQL + Redis, two servers)", function () {
  this.timeout(120_000);
  let simulator: RunningSimulator;
  let db: TestDatabase;
  let servers: Harness[] = [];
  let env: NodeJS.ProcessEnv;
  let dir: string;

  before(async function () {
    if (!testRedisUrl || !testDatabaseUrl) return this.skip();
    simulator = await startSimulator({ port: 0 });
    db = await createTestDatabase(testDatabaseUrl);
    const shared = { DATABASE_URL: db.url, REDIS_URL: testRedisUrl, CACHE_KEY_PREFIX: uniquePrefix("admineco"), CATALOG_REFRESH_SEC: "1" };
    servers = [await startHarness({ env: shared, simulator }), await startHarness({ env: shared, simulator })];
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", ...simulatorPlatformEnv(simulator.url), ...shared };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-eco-"));
  });
  after(async () => {
    for (const h of servers) await h.close();
    await simulator?.close();
    await db?.drop();
  });

  const admin = (...args: string[]) => runAdmin(env, ...args);
  async function player() {
    const login = await servers[0].get(`/api/minigame/wechat/login?jsCode=admineco${Date.now().toString(36)}${Math.random()}`);
    return { id: login.body.data.user.id as string, openid: login.body.data.openid as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
  }

  it("grants soft currency and items once per grant id, whatever the number of concurrent runs", async () => {
    const p = await player();
    const runs = await Promise.all([0, 1, 2].map(() => admin("grant", `wechat:${p.openid}`, "--grant-id", "outage-9", "--currency", "gems=25", "--item", "potion=2", "--reason", "outage")));
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    const results = runs.map((r) => JSON.parse(r.stdout));
    assert.equal(results.filter((r) => r.granted).length, 1);
    assert.ok(results.every((r) => r.balances.gems === 25));
    for (const h of servers) {
      assert.deepEqual((await h.get("/api/economy/wallet", p.headers)).body.data.balances, { gems: 25 });
      assert.deepEqual((await h.get("/api/economy/inventory", p.headers)).body.data.items, [{ itemId: "potion", count: 2 }]);
    }
    assert.match(runs[0].stderr, /"action":"grant"/);
    assert.equal((await admin("grant", p.id, "--grant-id", "x", "--currency", "gems=-1")).status, 2);
    assert.equal((await admin("grant", p.id, "--grant-id", "x", "--currency", "gems=1", "--platform", "wechat")).status, 2);
    assert.equal((await admin("grant", p.id, "--grant-id", "bad id", "--currency", "gems=1")).status, 2);
    // What the catalog does not list (a typo) is refused, named, and nothing is granted.
    const typo = await admin("grant", p.id, "--grant-id", "typo-1", "--currency", "gold=1", "--item", "poton=1");
    assert.equal(typo.status, 1, typo.stdout);
    assert.match(typo.stderr, /Not in the catalog of app default: currency "gold", item "poton"/);
    assert.deepEqual((await servers[0].get("/api/economy/wallet", p.headers)).body.data.balances, { gems: 25 });
  });

  it("reports every problem of a catalog file at once, and changes nothing", async () => {
    const file = path.join(dir, "bad.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        currencies: [{ currencyId: "gold" }],
        items: [
          { itemId: "a", name: "A", kind: "consumable", prices: { silver: 5 } },
          { itemId: "b", name: "B", kind: "bundle", prices: { coins: -1 } },
          { itemId: "a", name: "A again", kind: "durable", prices: { gold: 1 } },
        ],
      }),
    );
    for (const action of ["check", "load"]) {
      const run = await admin("catalog", action, file);
      assert.equal(run.status, 1, run.stdout);
      assert.match(run.stderr, /items\[1\] \(b\)\.prices\.coins/);
    }
    const semantic = path.join(dir, "semantic.json");
    fs.writeFileSync(semantic, JSON.stringify({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "a", name: "A", kind: "consumable", prices: { silver: 5 } }, { itemId: "a", name: "A", kind: "bundle", prices: { gold: 1 } }] }));
    const run = await admin("catalog", "load", semantic);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /items\[0\] \(a\)\.prices\.silver: unknown currency/);
    assert.match(run.stderr, /items\[1\] \(a\): itemId is listed twice/);
    assert.match(run.stderr, /items\[1\] \(a\): a bundle must say what it grants/);
    assert.equal((await servers[1].get("/api/catalog", (await player()).headers)).body.data.version, 0);
  });

  it("a catalog an operator loads reaches both running servers without a restart", async () => {
    const p = await player();
    const file = path.join(dir, "shop.json");
    fs.writeFileSync(file, JSON.stringify({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "hat", name: "Hat", kind: "durable", prices: { gold: 5 } }] }));
    const run = await admin("catalog", "load", file, "--by", "ops-ann");
    assert.equal(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).version, 1);
    for (const h of servers) {
      let catalog: any;
      for (let i = 0; i < 100 && catalog?.version !== 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        catalog = (await h.get("/api/catalog", p.headers)).body.data;
      }
      assert.equal(catalog.version, 1);
      assert.deepEqual(catalog.items.map((i: any) => i.itemId), ["hat"]);
    }
    // An operator working from version 0 does not overwrite version 1 unseen.
    const stale = await admin("catalog", "load", file, "--expect-version", "0");
    assert.equal(stale.status, 1);
    const shown = await admin("catalog", "show");
    assert.equal(JSON.parse(shown.stdout).version, 1);
  });

  it("exports the player's wallet, inventory and ledger, and erases them", async () => {
    const p = await player();
    await servers[0].services.economy.rewards.grant({ appId: "default", userId: p.id, source: "operator", sourceId: `exp-${p.id}`, currencies: { gems: 7 } });
    const exported = await admin("export", p.id);
    assert.equal(exported.status, 0, exported.stderr);
    const economy = JSON.parse(exported.stdout).economy;
    assert.deepEqual(economy.default.balances, { gems: 7 });
    assert.equal(economy.default.ledger.length, 1);
    assert.equal(economy.default.ledger[0].source, "operator");
    const erased = await admin("erase", p.id);
    assert.equal(erased.status, 0, erased.stderr);
    assert.deepEqual(await servers[0].services.economy.store.appsOf(p.id), []);
    assert.deepEqual((await servers[0].services.economy.store.state("default", p.id)).balances, {});
  });
});

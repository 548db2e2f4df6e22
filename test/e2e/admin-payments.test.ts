/**
 * `npm run admin -- orders | refund | grant` as an operator runs it: a separate process with the
 * server's settings (the same SQLite store, the same simulator). Refunds and grants sign with the
 * player's kept session key, which only a shared cache (Redis) lets the CLI reach.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { simulatorPaymentEnv } from "../support/payments";
import { testRedisUrl, uniquePrefix } from "../support/services";
import { runAdmin } from "../support/admin-cli";


describe("admin orders, refund and grant (Redis)", function () {
  this.timeout(120_000);
  let simulator: RunningSimulator;
  let h: Harness;
  let env: NodeJS.ProcessEnv;

  before(async function () {
    if (!testRedisUrl) return this.skip();
    simulator = await startSimulator({ port: 0 });
    const sqlitePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-pay-")), "users.sqlite");
    const shared = { SQLITE_PATH: sqlitePath, REDIS_URL: testRedisUrl, CACHE_KEY_PREFIX: uniquePrefix("adminpay"), ...simulatorPaymentEnv(simulator.url) };
    h = await startHarness({ env: shared, simulator });
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", ...simulatorPlatformEnv(simulator.url), ...shared };
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  const admin = (...args: string[]) => runAdmin(env, ...args);
  const balance = async (openid: string) => ((await (await fetch(`${simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number }).balance;

  it("lists a player's orders, refunds a coin order once and grants coins once per grant id", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=adminpay${Date.now().toString(36)}.1`);
    const { user, openid, token } = login.body.data;
    await fetch(`${simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
    const bought = await h.request("POST", "/api/payments/orders", { orderId: "sword-1", itemId: "sword", coins: 30 }, { authorization: `Bearer ${token}` });
    assert.equal(bought.status, 201);

    const orders = await admin("orders", user.id, "--state", "delivered");
    assert.equal(orders.status, 0, orders.stderr);
    assert.deepEqual(JSON.parse(orders.stdout).map((o: { orderId: string; env: string }) => [o.orderId, o.env]), [["sword-1", "sandbox"]], "env is named, not 0/1");

    for (let i = 0; i < 2; i++) {
      const refund = await admin("refund", user.id, "sword-1", "--by", "ops-dana");
      assert.equal(refund.status, 0, refund.stderr);
      assert.equal(JSON.parse(refund.stdout).state, "refunded");
    }
    assert.equal(await balance(openid), 100);

    for (let i = 0; i < 2; i++) {
      const grant = await admin("grant", `wechat:${openid}`, "25", "--platform", "wechat", "--grant-id", "outage-7", "--reason", "server outage");
      assert.equal(grant.status, 0, grant.stderr);
      const granted = JSON.parse(grant.stdout);
      assert.equal(granted.state, "delivered");
      assert.deepEqual([granted.reason, granted.itemId], ["server outage", ""], "the reason is kept as the reason, not as an item");
    }
    assert.equal(await balance(openid), 125);
    const audit = (await admin("grant", user.id, "25", "--platform", "wechat", "--grant-id", "outage-7", "--by", "ops-erin")).stderr;
    assert.match(audit, /"action":"grant"/);

    assert.equal((await admin("grant", user.id, "0", "--platform", "wechat", "--grant-id", "x")).status, 2);
    assert.equal((await admin("grant", user.id, "5", "--grant-id", "x")).status, 2);
    assert.equal((await admin("orders", user.id, "--state", "lost")).status, 2);
    assert.equal((await admin("refund", user.id, "no-such-order")).status, 1);
  });

  it("audits each payment action with its outcome: a refund the server refused is audited as refused", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=adminaudit${Date.now().toString(36)}.1`);
    const { user } = login.body.data;
    const refused = await admin("refund", user.id, "never-bought", "--by", "ops-fay");
    assert.equal(refused.status, 1);
    const lines = refused.stderr.split("\n").filter((l) => l.includes('"admin_action"')).map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.by, l.action, l.userId, l.orderId, l.outcome, l.error]),
      [["ops-fay", "refund", user.id, "never-bought", "refused", "order_not_found"]],
      refused.stderr,
    );
  });

  it("exports the player's orders with the account: every store port's data", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=adminexport${Date.now().toString(36)}.1`);
    const { user, openid, token } = login.body.data;
    await fetch(`${simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 50 }) });
    const bought = await h.request("POST", "/api/payments/orders", { orderId: "shield-1", itemId: "shield", coins: 20 }, { authorization: `Bearer ${token}` });
    assert.equal(bought.status, 201);
    const exported = await admin("export", user.id, "--by", "dpo");
    assert.equal(exported.status, 0, exported.stderr);
    const data = JSON.parse(exported.stdout);
    assert.equal(data.user.id, user.id);
    assert.deepEqual(data.orders.map((o: { orderId: string; itemId: string; env: string }) => [o.orderId, o.itemId, o.env]), [["shield-1", "shield", "sandbox"]]);
    assert.match(exported.stderr, /"outcome":"done"/);
  });
});

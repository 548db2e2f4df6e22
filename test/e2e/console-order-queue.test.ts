/**
 * The console's queue of paid orders that need a person, over HTTP on every store: it lists exactly
 * the paid orders whose delivery keeps failing and the pushes the catalog refused (never a delivered
 * order, nor a coin spend the platform refused); a retry delivers once; a refund goes back through
 * the platform where it has one and is refused on Douyin; each action is in the audit trail. And the
 * one player page: wallet, the ledger with the operator behind a console grant, orders, last login.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { platformDefinitions } from "../../src/platforms/registry";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { storeBackends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const appIdOf = (platform: string) => platformDefinitions.find((p) => p.name === platform)!.simulatorApp.appId;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of storeBackends) describe(`console: orders that need a person, and the player page — ${backend.name}`, function () {
  this.timeout(90_000);
  let h: Harness;
  let release: (() => Promise<void>) | undefined;
  /** The game's hook fails while this is set: the order stays paid, its delivery owed. */
  let gameDown = false;
  const hookRuns = new Map<string, number>();

  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    const simulator = await startSimulator({ port: 0 });
    // Settled at once, the reconciler out of the way, a short lease: the operator's retry is what delivers.
    const timings = { PAYMENT_SETTLE_AFTER_MS: "0", PAYMENT_RECONCILE_INTERVAL_SEC: "86400", PAYMENT_DELIVERY_LEASE_MS: "1000" };
    h = await startHarness({ simulator, env: { ...prepared.env, ...simulatorPaymentEnv(simulator.url), ...timings } });
    h.services.payments.onDeliver(async (order) => {
      if (gameDown) throw new Error("the game's delivery is down");
      hookRuns.set(order.id, (hookRuns.get(order.id) ?? 0) + 1);
    });
  });
  after(async () => {
    await h?.close();
    await h?.simulator.close();
    await release?.();
  });

  const balance = async (openid: string) => ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number }).balance;
  async function admin() {
    const op = await addOperator(h.config, unique("queue"), "admin");
    const client = new ConsoleClient(h.baseUrl);
    assert.equal((await client.signIn(op, OPERATOR_PASSWORD)).status, 200);
    return { op, client };
  }
  async function buy(player: { token: string; user: { id: string } }, orderId: string) {
    await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, { authorization: `Bearer ${player.token}` });
    return (await h.services.payments.ledger.findByOrderId(player.user.id, orderId))!;
  }

  it("lists exactly what needs a person; retry delivers once, refund where the platform has one, each audited", async () => {
    const { client } = await admin();
    const login = (await h.get(`/api/minigame/wechat/login?jsCode=${unique("q")}.1`)).body.data;
    const auth = { authorization: `Bearer ${login.token}` };
    const userId: string = login.user.id;
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: login.openid, balance: 100 }) });
    const ledger = h.services.payments.ledger;

    const fine = await buy(login, unique("fine"));
    assert.equal(fine.state, "delivered");
    gameDown = true;
    const stuck = await buy(login, unique("stuck"));
    const toRefund = await buy(login, unique("refund"));
    gameDown = false;
    assert.deepEqual([stuck.state, toRefund.state, await balance(login.openid)], ["paid", "paid", 10]);
    const broke = await h.request("POST", "/api/payments/orders", { orderId: unique("broke"), itemId: "sword", coins: 30 }, auth);
    assert.equal(broke.body.data.code, "insufficient_balance", "a refused spend: nothing taken, nothing to do");
    // A pushed purchase of an item the catalog does not list: the money is taken, nothing delivered.
    const refused = await h.services.payments.operations.recordItemPurchase("wechat", appIdOf("wechat"), { openid: login.openid, tradeNo: unique("trade"), itemId: "no-such-item", price: 600, env: 1 });
    assert.deepEqual([refused.state, refused.failure], ["failed", "item_not_found"]);
    // A Douyin coin spend whose delivery is owed (Douyin's wallet has no refund).
    const douyinId = crypto.randomUUID();
    const { order: douyin } = await ledger.create({ id: douyinId, platform: "douyin", appId: appIdOf("douyin"), userId, openid: `dy-${douyinId}`, orderId: unique("dy"), kind: "coin_spend", itemId: "sword", coins: 10, platformOrderId: douyinId.replace(/-/g, ""), env: 1, state: "paid", createdAt: new Date(Date.now() - 60_000).toISOString() });

    await sleep(1100); // the failed attempts' delivery leases lapse
    const listed = await client.call("GET", "/orders/queue");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const mine = listed.body.data.filter((e: { order: { userId: string } }) => e.order.userId === userId);
    const byId = new Map(mine.map((e: any) => [e.order.id, e]));
    assert.deepEqual([...byId.keys()].sort(), [stuck.id, toRefund.id, refused.id, douyin.id].sort(), "exactly the paid orders owed a delivery and the refused push");
    assert.deepEqual([(byId.get(stuck.id) as any).reason, (byId.get(stuck.id) as any).actions], ["delivery_failing", ["retry", "refund"]]);
    assert.deepEqual([(byId.get(refused.id) as any).reason, (byId.get(refused.id) as any).order.failure, (byId.get(refused.id) as any).actions], ["push_refused", "item_not_found", ["retry", "record_refund"]]);
    assert.deepEqual([(byId.get(douyin.id) as any).reason, (byId.get(douyin.id) as any).actions], ["delivery_waiting", ["retry"]], "no refund offered on Douyin");
    assert.equal((byId.get(stuck.id) as any).player.username, login.user.username);

    // Retry: delivered, the hook run once and the economy's grant once, however often it is asked.
    const path = (order: { id: string }, action: string) => `/orders/queue/${userId}/${order.id}/${action}`;
    for (let i = 0; i < 2; i++) {
      const retried = await client.call("POST", path(stuck, "retry"));
      assert.deepEqual([retried.status, retried.body.data.state], [200, "delivered"], JSON.stringify(retried.body));
    }
    assert.equal(hookRuns.get(stuck.id), 1, "the game's hook ran once");
    const grants = (await h.services.economy.store.entries("default", userId)).filter((e) => e.source === "coin_order" && e.sourceId === stuck.id);
    assert.equal(grants.length, 1, "granted once");
    assert.equal((await client.call("POST", `/orders/queue/someone-else/${stuck.id}/retry`)).body.data.code, "order_not_found", "an order is acted on as its player's only");

    // Refund: through WeChat's cancel, once; refused on Douyin before anything is asked.
    const refund = await client.call("POST", path(toRefund, "refund"));
    assert.deepEqual([refund.status, refund.body.data.state], [200, "refunded"], JSON.stringify(refund.body));
    assert.equal(await balance(login.openid), 40);
    const noRefund = await client.call("POST", path(douyin, "refund"));
    assert.deepEqual([noRefund.status, noRefund.body.data.code], [409, "order_refund_unsupported"]);
    assert.equal((await ledger.findById(douyin.id))!.state, "paid", "nothing changed");

    // A refused push: retried while the catalog still refuses it, then recorded refunded on the platform.
    const still = await client.call("POST", path(refused, "retry"));
    assert.deepEqual([still.status, still.body.data.code, still.body.data.reason], [409, "order_still_refused", "item_not_found"]);
    const recorded = await client.call("POST", path(refused, "record-refund"));
    assert.deepEqual([recorded.status, recorded.body.data.state, recorded.body.data.failure], [200, "refunded", "refunded_on_platform"]);

    const after = (await client.call("GET", "/orders/queue")).body.data.filter((e: { order: { userId: string } }) => e.order.userId === userId);
    assert.deepEqual(after.map((e: { order: { id: string } }) => e.order.id), [douyin.id], "what was handled left the queue");

    // Another refused push, delivered once the catalog lists its item at that price: once, however often retried.
    const late = await h.services.payments.operations.recordItemPurchase("wechat", appIdOf("wechat"), { openid: login.openid, tradeNo: unique("trade"), itemId: "late-item", price: 600, env: 1 });
    assert.equal(late.failure, "item_not_found");
    const current = (await client.call("GET", "/economy/catalog?app=default")).body.data;
    const sword = current.catalog.items.find((i: { itemId: string }) => i.itemId === "sword");
    const catalog = { ...current.catalog, items: [...current.catalog.items, { ...sword, itemId: "late-item", name: "Late item", prices: { coins: 600 } }] };
    const saved = await client.call("POST", "/economy/catalog", { app: "default", expectedVersion: current.version, catalog });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    for (let i = 0; i < 2; i++) {
      const delivered = await client.call("POST", path(late, "retry"));
      assert.deepEqual([delivered.status, delivered.body.data.state, delivered.body.data.failure], [200, "delivered", null], JSON.stringify(delivered.body));
    }
    assert.equal(hookRuns.get(late.id), 1, "the refused push delivered once");
    assert.equal((await h.services.economy.store.entries("default", userId)).filter((e) => e.source === "item_push" && e.sourceId === late.id).length, 1);

    const trail = async (action: string) => (await client.call("GET", `/audit?action=${action}&target=${userId}`)).body.data.map((e: any) => [e.outcome, e.detail.id ?? null, e.detail.code ?? null]).sort();
    assert.deepEqual(await trail("order.retry"), [["ok", stuck.id, null], ["ok", stuck.id, null], ["ok", late.id, null], ["ok", late.id, null], ["refused", null, "order_still_refused"]].sort());
    assert.deepEqual((await trail("order.refund")).map((e: unknown[]) => [e[0], e[2]]), [["ok", null], ["refused", "order_refund_unsupported"], ["started", null], ["started", null]]);
    assert.deepEqual(await trail("order.record_refund"), [["ok", refused.id, null]]);
  });

  it("a support operator reads the queue and retries, but may not refund", async () => {
    const support = new ConsoleClient(h.baseUrl);
    assert.equal((await support.signIn(await addOperator(h.config, unique("sup"), "support"), OPERATOR_PASSWORD)).status, 200);
    assert.equal((await support.call("GET", "/orders/queue")).status, 200);
    const refused = await support.call("POST", `/orders/queue/u/${crypto.randomUUID()}/refund`);
    assert.deepEqual([refused.status, refused.body.data.code], [403, "console_role_forbidden"]);
    assert.equal((await support.call("POST", `/orders/queue/u/${crypto.randomUUID()}/retry`)).body.data.code, "order_not_found");
  });

  it("one page per player: wallet and its ledger with who granted what and why, orders, last login", async () => {
    const { op, client } = await admin();
    const login = (await h.get(`/api/minigame/wechat/login?jsCode=${unique("page")}.1`)).body.data;
    const userId: string = login.user.id;
    const grantId = unique("outage");
    const granted = await client.call("POST", `/rewards/players/${userId}`, { app: "default", currencies: { gems: 40 }, items: [], grantId, reason: "outage compensation" });
    assert.equal(granted.status, 200, JSON.stringify(granted.body));
    const page = await client.call("GET", `/players/${userId}/page?app=default`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const view = page.body.data;
    assert.equal(view.overview.user.id, userId);
    assert.deepEqual(view.wallet.balances, { gems: 40 });
    assert.deepEqual(view.ledger.map((e: any) => [e.source, e.sourceId, e.currencies, e.note, e.by]), [["operator", grantId, { gems: 40 }, "outage compensation", op.name]]);
    assert.deepEqual(view.logins.map((l: { app: string }) => l.app), ["default"]);
    assert.ok(Math.abs(Date.parse(view.logins[0].at) - Date.now()) < 60_000, "the login's time");
    assert.deepEqual([view.orders, view.mail, view.records], [[], [], []]);
    assert.equal((await client.call("GET", "/players/no-such-player/page")).status, 404);
    assert.equal((await client.call("GET", `/players/${userId}/page?app=nope`)).status, 400);
  });
});

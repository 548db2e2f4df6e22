/**
 * The built drop-in client's payments inside a modelled WeChat runtime, against the real server and
 * simulator: balance, spending coins once per orderId, its errors, the order list, and waiting for an
 * item bought through the platform's own payment to be delivered.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { simulatorPaymentEnv } from "../support/payments";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe("client payments in a WeChat runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPlatformEnv(simulator.url), ...simulatorPaymentEnv(simulator.url) } });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("reads the balance, spends once per orderId, reports refusals with their codes, and waits for a pushed purchase", async () => {
    const game = createMiniGameContext("wechat", new FakeDevice(unique("payer")), dropIn);
    const client = game.library.createGameClient({ server: h.baseUrl });
    const user = await client.login();
    await fetch(`${simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: user.openid, balance: 50 }) });

    assert.equal(await client.balance(), 50);
    const purchase = { orderId: unique("ord"), itemId: "sword", coins: 30 };
    const order = await client.spendCoins(purchase);
    assert.deepEqual([order.orderId, order.state, order.coins], [purchase.orderId, "delivered", 30]);
    assert.equal((await client.spendCoins(purchase)).platformOrderId, order.platformOrderId, "the same orderId is the same order");
    assert.equal(await client.balance(), 20);
    await assert.rejects(client.spendCoins({ ...purchase, orderId: unique("ord") }), (err: { code?: string; status?: number }) => err.code === "insufficient_balance" && err.status === 402);
    await assert.rejects(client.spendCoins({ ...purchase, coins: 31 }), (err: { code?: string }) => err.code === "order_conflict");
    // Values made in the runtime's own realm: compared as plain data.
    assert.deepEqual(JSON.parse(JSON.stringify((await client.orders("delivered")).map((o) => o.orderId))), [purchase.orderId]);

    const bought = await fetch(`${simulator.url}/__simulator/item-purchase`, {
      method: "POST",
      body: JSON.stringify({ platform: "wechat", openid: user.openid, itemId: "gem_pack", price: 600, notifyUrl: `${h.baseUrl}/api/minigame/wechat/push` }),
    });
    const { outTradeNo } = (await bought.json()) as { outTradeNo: string };
    const delivered = await client.waitForDelivery(outTradeNo, { timeoutMs: 10_000, intervalMs: 50 });
    assert.deepEqual([delivered.kind, delivered.itemId, delivered.state], ["item_purchase", "gem_pack", "delivered"]);
    await assert.rejects(client.waitForDelivery(unique("never"), { timeoutMs: 200, intervalMs: 50 }), (err: { code?: string }) => err.code === "delivery_timeout");

    // buyItem: the runtime's payment UI (here a stand-in for wx.requestMidasPayment that has the
    // simulator play WeChat's side), then the delivery of what the platform pushed.
    const shown: Array<Record<string, unknown>> = [];
    (game.context.wx as Record<string, unknown>).requestMidasPayment = (options: Record<string, any>) => {
      shown.push(options);
      void fetch(`${simulator.url}/__simulator/item-purchase`, {
        method: "POST",
        body: JSON.stringify({ platform: "wechat", openid: user.openid, itemId: options.productId, price: 100, outTradeNo: options.outTradeNo, notifyUrl: `${h.baseUrl}/api/minigame/wechat/push` }),
      }).then(() => options.success?.({}));
    };
    const tradeNo = unique("trade");
    const item = await client.buyItem({ outTradeNo: tradeNo, paymentOptions: { mode: "short_series_goods", productId: "golden-skin" }, timeoutMs: 10_000 });
    assert.deepEqual([item.orderId, item.itemId, item.state], [tradeNo, "golden-skin", "delivered"]);
    assert.equal(shown[0].outTradeNo, tradeNo);
  });
});

/**
 * The ItemOrderQuery port over its one implementation, WeChat's `/xpay/query_order` client, against
 * the simulator over real HTTP: the pay_sig it makes verifies, a trade the item-purchase simulator made
 * is answered paid with its item and price, and every "no" and every failure comes back as the port
 * says. The answers the simulator never gives (unpaid and refunded orders, busy, malformed) come from a
 * stub speaking WeChat's shape.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { AppError } from "../../src/core/errors";
import type { PaymentKeys } from "../../src/core/ports/coin-wallet";
import type { ItemOrderCall, ItemOrderQuery } from "../../src/core/ports/item-order-query";
import { PlatformTokenRejectedError } from "../../src/platforms/platform";
import { WechatItemOrders } from "../../src/platforms/wechat/wechat-item-orders";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { defaultSimulatorApps, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { freePort } from "../support/app-harness";

const WX = defaultSimulatorApps().find((a) => a.platform === "wechat")!;
const logger = pino({ level: "silent" });
const client = (apiBaseUrl: string): ItemOrderQuery => new WechatItemOrders({ apiBaseUrl, timeoutMs: 2000, busyRetries: 1, retryDelayMs: () => 1, logger });
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}q${seq++}`;

function keysFor(env: 0 | 1, appId = WX.appId): PaymentKeys {
  const k = simulatorPaymentKeys("wechat", appId);
  return { offerId: k.offerId, zoneId: k.zoneId, appKey: k.appKey, sandboxAppKey: k.sandboxAppKey, env };
}

describe("ItemOrderQuery contract: WeChat /xpay/query_order against the simulator", () => {
  let sim: RunningSimulator;
  let orders: ItemOrderQuery;
  let accessToken: string;
  let lostPushUrl: string;
  const call = (openid: string, overrides: Partial<ItemOrderCall> = {}): ItemOrderCall => ({ appId: WX.appId, keys: keysFor(1), accessToken, openid, ...overrides });

  async function buy(openid: string, itemId: string, price: number, env?: 0 | 1): Promise<string> {
    const res = await fetch(`${sim.url}/__simulator/item-purchase`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, itemId, price, env, notifyUrl: lostPushUrl }) });
    assert.equal(res.status, 200);
    return ((await res.json()) as { outTradeNo: string }).outTradeNo;
  }

  before(async () => {
    sim = await startSimulator({ port: 0 });
    orders = client(sim.url);
    const token = await fetch(`${sim.url}/cgi-bin/stable_token`, { method: "POST", body: JSON.stringify({ grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret }) });
    accessToken = ((await token.json()) as { access_token: string }).access_token;
    // Nothing listens there: the simulator's push fails and is retried later, as a lost push would be.
    lostPushUrl = `http://127.0.0.1:${await freePort()}/push`;
  });
  after(() => sim?.close());

  it("answers a trade paid with its item, price, number and player, in the env asked", async () => {
    const tradeNo = await buy("o_buyer", "gem_pack", 600);
    assert.deepEqual(await orders.query(call("o_buyer"), tradeNo), { kind: "paid", tradeNo, openid: "o_buyer", itemId: "gem_pack", price: 600, env: 1 });
    const live = await buy("o_live", "sword", 100, 0);
    assert.deepEqual(await orders.query(call("o_live", { keys: keysFor(0) }), live), { kind: "paid", tradeNo: live, openid: "o_live", itemId: "sword", price: 100, env: 0 });
    assert.equal(sim.payments.orderQueries(tradeNo), 1);
  });

  it("answers not_found for an unknown number, another player's order and the other env", async () => {
    const tradeNo = await buy("o_owner", "gem_pack", 600);
    assert.deepEqual(await orders.query(call("o_owner"), unique("nosuch")), { kind: "not_found", errcode: 268490002 });
    assert.deepEqual(await orders.query(call("o_thief"), tradeNo), { kind: "not_found", errcode: 268490001 });
    assert.deepEqual(await orders.query(call("o_owner", { keys: keysFor(0) }), tradeNo), { kind: "not_found", errcode: 268490002 });
  });

  it("refuses another AppKey's pay_sig (platform_misconfigured, 268490003) and signals a rejected token for healing", async () => {
    const tradeNo = await buy("o_keys", "gem_pack", 600);
    const wrongKeys = { ...keysFor(1), sandboxAppKey: "not-the-console-key" };
    await assert.rejects(orders.query(call("o_keys", { keys: wrongKeys }), tradeNo), (err: AppError) => err.code === "platform_misconfigured" && err.data.errcode === 268490003);
    await assert.rejects(orders.query(call("o_keys", { accessToken: "f".repeat(96) }), tradeNo), (err: unknown) => err instanceof PlatformTokenRejectedError);
  });
});

describe("ItemOrderQuery contract: WeChat answers the simulator does not give", () => {
  let server: http.Server;
  let answer: () => unknown;
  let url: string;
  const ask = (orderId = "ord1") => client(url).query({ appId: "wx_stub", keys: keysFor(1, "wx_stub"), accessToken: "t", openid: "o1" }, orderId);
  const order = (fields: Record<string, unknown>) => ({ errcode: 0, errmsg: "ok", order: { order_id: "ord1", status: 2, order_type: 0, order_fee: 600, paid_fee: 500, biz_meta: "gem", env_type: 2, ...fields } });

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end(JSON.stringify(answer())));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads paid_fee as the price and statuses 2, 3, 4 of a payment as paid", async () => {
    for (const status of [2, 3, 4]) {
      answer = () => order({ status });
      assert.deepEqual(await ask(), { kind: "paid", tradeNo: "ord1", openid: "o1", itemId: "gem", price: 500, env: 1 });
    }
    answer = () => order({ biz_meta: "" });
    assert.equal(((await ask()) as { itemId?: string }).itemId, undefined, "no attach: no item");
  });

  it("answers not_paid for created, refunded and closed orders and for refunds; not_found for the other env", async () => {
    for (const status of [0, 1, 5, 6, 8]) {
      answer = () => order({ status });
      assert.deepEqual(await ask(), { kind: "not_paid", status });
    }
    answer = () => order({ order_type: 1 });
    assert.deepEqual(await ask(), { kind: "not_paid", status: 2 });
    answer = () => order({ env_type: 1 });
    assert.deepEqual(await ask(), { kind: "not_found" });
    // Not in the documented answer, but if WeChat names the payer, another player's order is not this one's.
    answer = () => order({ openid: "o_someone_else" });
    assert.deepEqual(await ask(), { kind: "not_found" });
    answer = () => order({ openid: "o1" });
    assert.equal((await ask()).kind, "paid");
  });

  it("fails as platform_unavailable when busy past the retries, rate limited, or malformed", async () => {
    const failsWith = async (reason: string) => assert.rejects(ask(), (err: AppError) => err.code === "platform_unavailable" && err.data.reason === reason);
    answer = () => ({ errcode: -1, errmsg: "system error" });
    await failsWith("busy");
    answer = () => ({ errcode: 268490015, errmsg: "frequency limit" });
    await failsWith("rate_limited");
    answer = () => order({ order_id: "another" });
    await failsWith("malformed_response");
    answer = () => order({ paid_fee: "600" });
    await failsWith("malformed_response");
  });
});

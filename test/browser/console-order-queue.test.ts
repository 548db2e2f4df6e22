/**
 * The orders queue and the one player page in the operator console, in Chinese (Shanghai) and in
 * English (New York): a paid order whose delivery failed and a push the catalog refused are in the
 * queue with their reasons; the order is refunded from there (cancelled once: nothing happens; then
 * confirmed, the confirmation naming the player, coins and platform), checked through the player's
 * API and the platform; from the queue, the player's page shows their wallet and its ledger: the
 * operator's grant with its reason and who made it, in the browser's zone. With
 * UPDATE_CONSOLE_SCREENSHOTS=1 the Chinese walk takes docs/console-zh-orders.png.
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { platformDefinitions } from "../../src/platforms/registry";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");
const RAW_ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/;

interface Walk {
  name: string;
  locale: string;
  timezoneId: string;
  zone: string;
  failing: string;
  refused: string;
  refundOf: (order: string) => string;
  confirm: string;
  cancelled: string;
  done: string;
  reason: string;
  granted: string;
  grantSource: string;
}

const WALKS: Walk[] = [
  {
    name: "Chinese",
    locale: "zh-CN",
    timezoneId: "Asia/Shanghai",
    zone: "(UTC+08:00)",
    failing: "发货失败",
    refused: "推送被商品目录拒绝：商品目录中没有该物品",
    refundOf: (order) => `退款订单 ${order}`,
    confirm: "30 游戏币将退回其 wechat 余额",
    cancelled: "已取消，未作任何修改",
    done: "：已完成",
    reason: "补偿：支付故障",
    granted: "已向",
    grantSource: "客服发放 (operator)",
  },
  {
    name: "English",
    locale: "en-US",
    timezoneId: "America/New_York",
    zone: "(UTC-0",
    failing: "delivery failed",
    refused: "push refused by the catalog: the item is not in the catalog",
    refundOf: (order) => `Refund of order ${order}`,
    confirm: "30 coins back to their wechat balance",
    cancelled: "cancelled, nothing was changed",
    done: ": done",
    reason: "payment outage compensation",
    granted: "Granted gems 40",
    grantSource: "operator grant (operator)",
  },
];

describe("operator console: the orders that need a person and the player page, in Chinese and English (headless Chromium)", function () {
  this.timeout(180_000);
  let h: Harness;
  const browsers: Browser[] = [];
  let gameDown = false;

  before(async function () {
    requireChromium(this);
    const simulator = await startSimulator({ port: 0 });
    // Settled at once and the reconciler out of the way: the queue is the operator's.
    const timings = { PAYMENT_SETTLE_AFTER_MS: "0", PAYMENT_RECONCILE_INTERVAL_SEC: "86400", PAYMENT_DELIVERY_LEASE_MS: "1000" };
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), ...timings } });
    h.services.payments.onDeliver(async () => {
      if (gameDown) throw new Error("the game's delivery is down");
    });
  });
  after(async () => {
    for (const b of browsers) await b.close();
    await h?.close();
    await h?.simulator.close();
  });

  async function openConsole(walk: Walk): Promise<{ page: Page; name: string }> {
    const browser = await launchChromium({ locale: walk.locale, timezoneId: walk.timezoneId });
    browsers.push(browser);
    const admin = await addOperator(h.config, unique("lead"), "admin");
    const page = await browser.open(h.baseUrl, "/console");
    await page.fill("#signin-name", admin.name);
    await page.fill("#signin-password", admin.password);
    await page.click("#signin-submit");
    await page.fill("#current-password", admin.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: admin.name }).waitFor();
    return { page, name: admin.name };
  }

  const screen = async (page: Page, id: string) => {
    await page.click(`nav button[data-screen="${id}"]`);
    await page.locator(`nav button[data-screen="${id}"][aria-current="page"]`).waitFor();
    await page.locator("main section").first().waitFor();
  };

  for (const walk of WALKS) {
    it(`${walk.name}: refunds from the queue with a confirmation, then opens the player's page with wallet and ledger`, async () => {
      const { page, name: operator } = await openConsole(walk);
      const login = (await h.get(`/api/minigame/wechat/login?jsCode=${unique("queue")}.1`)).body.data;
      const auth = { authorization: `Bearer ${login.token}` };
      const nick = `${unique("n").slice(-6)}${walk.locale === "zh-CN" ? "小红" : "Hong"}`;
      assert.equal((await h.request("PATCH", "/api/users/me", { nickname: nick, version: 1 }, auth)).status, 200);
      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: login.openid, balance: 100 }) });
      const coins = async () => ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${login.openid}`)).json()) as { balance: number }).balance;
      // The game's delivery is down while the player buys: paid, not delivered.
      const orderId = unique("stuck");
      gameDown = true;
      await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, auth);
      gameDown = false;
      const orderState = async () => (await h.get(`/api/payments/orders/${orderId}`, auth)).body.data.state;
      assert.deepEqual([await orderState(), await coins()], ["paid", 70]);
      const wechatApp = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;
      const tradeNo = unique("trade");
      await h.services.payments.operations.recordItemPurchase("wechat", wechatApp, { openid: login.openid, tradeNo, itemId: "no-such-item", price: 600, env: 1 });

      await screen(page, "orders");
      const row = page.locator("#order-queue tr", { hasText: orderId });
      await row.locator(".reason", { hasText: walk.failing }).waitFor();
      await page.locator("#order-queue tr", { hasText: tradeNo }).locator(".reason", { hasText: walk.refused }).waitFor();
      assert.doesNotMatch((await page.textContent("main")) ?? "", RAW_ISO);
      assert.ok(((await page.textContent("main")) ?? "").includes(walk.zone), "times in the browser's zone");

      // docs/console.md's picture of the Orders screen (the support day's walk leaves the queue empty).
      if (walk.locale === "zh-CN" && process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-orders.png"), fullPage: true });
      // Cancelled first: nothing happens; then confirmed: refunded through the platform.
      await page.getByRole("button", { name: walk.refundOf(orderId) }).click();
      await page.locator("#confirm-text", { hasText: walk.confirm }).waitFor();
      assert.ok(((await page.textContent("#confirm-text")) ?? "").includes(nick), "names the player");
      if (walk.locale === "zh-CN") await page.screenshot({ path: path.join(RESULTS, "console-zh-queue-confirm.png") });
      await page.click("#confirm-cancel");
      await page.locator("#order-queue + .result", { hasText: walk.cancelled }).waitFor();
      assert.deepEqual([await orderState(), await coins()], ["paid", 70], "a cancelled refund refunds nothing");
      await page.getByRole("button", { name: walk.refundOf(orderId) }).click();
      await page.click("#confirm-ok");
      await page.locator("#order-queue + .result", { hasText: walk.done }).waitFor({ timeout: 10_000 });
      assert.deepEqual([await orderState(), await coins()], ["refunded", 100], "refunded once, through the platform");
      await page.locator("#order-queue tr", { hasText: orderId }).waitFor({ state: "detached" });
      if (walk.locale === "zh-CN") await page.screenshot({ path: path.join(RESULTS, "console-zh-queue.png"), fullPage: true });

      // A grant with a reason, then the player's page from the queue: wallet, and the ledger saying who and why.
      await screen(page, "rewards");
      await page.fill("#reward-user", login.user.id);
      await page.fill("#reward-currencies", "gems=40");
      await page.fill("#reward-grant-id", unique("grant"));
      await page.fill("#reward-reason", walk.reason);
      await page.click("#reward-submit");
      await page.locator("#reward-result", { hasText: walk.granted }).waitFor();
      await screen(page, "orders");
      await page.locator("#order-queue tr", { hasText: tradeNo }).getByRole("link").click();
      await page.locator("#player-profile", { hasText: login.user.id }).waitFor();
      assert.equal(new URL(page.url()).hash, `#/players/${login.user.id}`, "the player's own address");
      await page.locator("#player-wallet tr", { hasText: "gems" }).locator("td", { hasText: /^40$/ }).waitFor();
      const entry = page.locator("#player-ledger tbody tr").first();
      for (const text of [walk.grantSource, "gems +40", walk.reason, operator, walk.zone]) await entry.locator("td", { hasText: text }).first().waitFor();
      await page.locator("#player-logins dd", { hasText: walk.zone }).waitFor();
      assert.doesNotMatch((await page.textContent("main")) ?? "", RAW_ISO);
      if (walk.locale === "zh-CN") await page.screenshot({ path: path.join(RESULTS, "console-zh-player-page.png"), fullPage: true });
      // The address opens the same page after a reload (a bookmark, a link sent to a colleague).
      await page.reload();
      await page.locator("#player-ledger td", { hasText: walk.reason }).waitFor();
      await page.close();
    });
  }

  it("raised no script errors", () => {
    assert.deepEqual(browsers.flatMap((b) => b.pageErrors), []);
  });
});

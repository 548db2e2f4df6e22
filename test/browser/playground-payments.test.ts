/**
 * The playground's Payments panel in a real headless Chromium against the booted app with the
 * embedded simulator: a top-up through the simulator controls, a coin purchase, one refused for too
 * few coins, and an item bought in the (simulated) platform payment UI and delivered by the push,
 * told both by the client's wait and by the lobby's `purchase` message.
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

describe("playground payments in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let userId: string;

  before(async function () {
    requireChromium(this);
    ensureClientBuilt();
    h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", PLAYGROUND_ENABLED: "true" } });
    browser = await launchChromium();
    page = await browser.open(h.baseUrl, "/");
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  const shownOrder = async () => JSON.parse((await page.textContent("#order")) ?? "null");

  it("shows the panel only after a login, then tops up through the simulator", async () => {
    assert.equal(await page.isVisible("#payments-panel"), false);
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique("buyer")}.1`);
    await page.click("#login");
    await page.locator("#login-status", { hasText: "Logged in as" }).waitFor();
    userId = JSON.parse((await page.textContent("#user")) ?? "null").id;
    await page.locator("#payments-panel").waitFor({ state: "visible" });
    // The balance is read at login, without a click on Refresh.
    await page.locator("#payment-status.ok", { hasText: "Balance:" }).waitFor();
    assert.match((await page.textContent("#balance")) ?? "", /^\d+$/);
    await page.click("#join");
    await page.locator("#room-status", { hasText: "Connected to lobby" }).waitFor();

    await page.fill("#topup-balance", "100");
    await page.click("#topup");
    await page.locator("#payment-status.ok", { hasText: "Balance set; the server reads 100" }).waitFor();
    assert.equal(await page.textContent("#balance"), "100");
  });

  it("buys with coins: the order is delivered and the balance goes down by the price", async () => {
    await page.fill("#spend-item", "sword");
    await page.fill("#spend-quantity", "1");
    await page.click("#spend");
    await page.locator("#payment-status.ok", { hasText: "delivered" }).waitFor();
    assert.equal(await page.textContent("#balance"), "70");
    const order = await shownOrder();
    assert.deepEqual([order.kind, order.itemId, order.coins, order.state, order.platform], ["coin_spend", "sword", 30, "delivered", "wechat"]);
    // The server's ledger says the same, not only the page.
    const recorded = await h.services.payments.payments.getOrder(userId, order.orderId);
    assert.equal(recorded.state, "delivered");
    await page.locator("#events li", { hasText: `room: purchase message, order ${order.orderId} delivered` }).waitFor();
  });

  it("shows a refusal for too few coins, nothing deducted", async () => {
    await page.fill("#spend-quantity", "10");
    await page.click("#spend");
    await page.locator("#payment-status.error", { hasText: "402 insufficient_balance" }).waitFor();
    await page.click("#balance-refresh");
    await page.locator("#payment-status.ok", { hasText: "Balance: 70" }).waitFor();
  });

  it("buys an item in the simulated payment UI and sees it delivered by the push, in the lobby too", async () => {
    await page.fill("#item-id", "gem_pack");
    await page.fill("#item-price", "600");
    await page.click("#buy-item");
    await page.locator("#payment-status.ok", { hasText: "Item gem_pack delivered" }).waitFor({ timeout: 30_000 });
    const order = await shownOrder();
    assert.match(order.orderId, /^pgitem/);
    assert.deepEqual([order.kind, order.itemId, order.coins, order.state], ["item_purchase", "gem_pack", 600, "delivered"]);
    assert.equal(await page.getAttribute("#order-state", "data-order-id"), order.orderId);
    await page.locator("#events li", { hasText: `simulator: item gem_pack bought for 600 fen, trade ${order.orderId}` }).waitFor();
    await page.locator("#events li", { hasText: `room: purchase message, order ${order.orderId} delivered` }).waitFor();
    // An item purchase is found by its trade number in the player's game (the route's ?kind=item_purchase).
    const wechat = h.services.platformApps.get("wechat", "default");
    const scope = { kind: "item_purchase" as const, itemApps: [{ platform: "wechat", appId: wechat.appId }] };
    assert.equal((await h.services.payments.payments.getOrder(userId, order.orderId, undefined, scope)).state, "delivered");
    // Paid on the platform, not in coins.
    await page.click("#balance-refresh");
    await page.locator("#payment-status.ok", { hasText: "Balance: 70" }).waitFor();
    await page.locator("#payments-panel").screenshot({ path: path.join(RESULTS, "playground-payments.png") });
  });

  it("hides the panel after a logout, and raised no script errors", async () => {
    await page.click("#logout");
    await page.locator("#events li", { hasText: "logout confirmed by the server" }).waitFor();
    assert.equal(await page.isVisible("#payments-panel"), false);
    assert.deepEqual(browser.pageErrors, []);
  });
});

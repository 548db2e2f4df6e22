/**
 * The playground's Shop panel in a real headless Chromium against the booted app with the embedded
 * simulator: the example catalog with the server's prices, a bundle bought with coins that grants
 * gems, an item bought with those gems, the wallet and inventory the server keeps, and the lobby's
 * `reward` messages for each grant.
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

describe("playground shop in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;
  let page: Page;

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

  it("shows the catalog after a login, buys gems with coins and a potion with gems, and hears each reward in the lobby", async () => {
    assert.equal(await page.isVisible("#shop-panel"), false);
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique("shopper")}.1`);
    await page.click("#login");
    await page.locator("#login-status", { hasText: "Logged in as" }).waitFor();
    const userId = JSON.parse((await page.textContent("#user")) ?? "null").id;
    await page.locator("#shop-panel").waitFor({ state: "visible" });
    await page.locator("#catalog tr", { hasText: "gem_pack" }).waitFor();
    assert.match((await page.textContent("#catalog-version")) ?? "", /version 0, ad units: adunit-example/);
    assert.match((await page.locator("#catalog tr", { hasText: "potion" }).textContent()) ?? "", /10 gems/);
    await page.click("#join");
    await page.locator("#room-status", { hasText: "Connected to lobby" }).waitFor();
    await page.fill("#topup-balance", "100");
    await page.click("#topup");
    await page.locator("#payment-status.ok", { hasText: "Balance set" }).waitFor();

    await page.click('#catalog button[data-item-id="gem_pack"]');
    await page.locator("#shop-status.ok", { hasText: "Bought gem_pack (order" }).waitFor();
    assert.equal(await page.getAttribute("#wallet", "data-balances"), JSON.stringify({ gems: 60 }));
    await page.click('#catalog button[data-item-id="potion"]');
    await page.locator("#shop-status.ok", { hasText: "Bought potion (paid 10 gems)" }).waitFor();
    assert.equal(await page.getAttribute("#wallet", "data-balances"), JSON.stringify({ gems: 50 }));
    assert.equal(await page.textContent("#inventory"), "potion × 1");
    await page.locator("#events li", { hasText: "room: reward from coin_order" }).waitFor();
    await page.locator("#events li", { hasText: 'room: reward from purchase, balances {"gems":50}' }).waitFor();
    // The server's store says the same, not only the page.
    assert.deepEqual((await h.services.economy.store.state("default", userId)).items, { potion: 1 });

    await page.click('#catalog button[data-item-id="starter-chest"]');
    await page.locator("#shop-status.ok", { hasText: "Bought starter-chest" }).waitFor();
    await page.click('#catalog button[data-item-id="starter-chest"]');
    await page.locator("#shop-status.error", { hasText: "409 purchase_limit" }).waitFor();
    await page.locator("#shop-panel").screenshot({ path: path.join(RESULTS, "playground-shop.png") });
    assert.deepEqual(browser.pageErrors, []);
  });
});

/**
 * The playground's Rewards panel in a real headless Chromium against the booted app with the
 * embedded simulator: an ad watched through the simulator turning into the catalog's reward once
 * the verified callback landed, and a mail to every player claimed once.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, unique, type Browser } from "./chromium";

describe("playground rewards in headless Chromium", function () {
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

  it("an ad watched turns into the reward; a mail's attachments are claimed once", async () => {
    assert.equal(await page.isVisible("#rewards-panel"), false);
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique("viewer")}.1`);
    await page.click("#login");
    await page.locator("#login-status", { hasText: "Logged in as" }).waitFor();
    const userId = JSON.parse((await page.textContent("#user")) ?? "null").id as string;
    await page.locator("#rewards-panel").waitFor({ state: "visible" });

    await page.fill("#ad-unit", "adunit-example");
    await page.click("#watch-ad");
    await page.locator("#reward-status.ok", { hasText: "Reward landed" }).waitFor({ timeout: 30_000 });
    const reward = JSON.parse((await page.textContent("#ad-reward")) ?? "null");
    assert.deepEqual([reward.adUnitId, reward.granted, reward.balances], ["adunit-example", true, { gems: 5 }]);
    // The server's ledger says the same, not only the page.
    assert.deepEqual((await h.services.economy.store.state("default", userId)).balances, { gems: 5 });

    const { mail } = await h.services.rewardSources.mail.send({ app: "default", userId: null, title: unique("Outage"), attachments: { currencies: { gems: 10 } }, sender: "ops" });
    await page.click("#mail-refresh");
    const item = page.locator(`#mail-list li[data-mail-id="${mail.mailId}"]`);
    await item.locator("button", { hasText: "Claim" }).click();
    await page.locator("#reward-status.ok", { hasText: "Claimed" }).waitFor();
    await page.locator(`#mail-list li[data-mail-id="${mail.mailId}"]`, { hasText: "(claimed)" }).waitFor();
    assert.deepEqual((await h.services.economy.store.state("default", userId)).balances, { gems: 15 });
  });
});

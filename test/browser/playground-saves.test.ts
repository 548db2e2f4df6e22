/**
 * The playground's Cloud saves panel in a real headless Chromium: a state saved, reloaded after a
 * page reload (a new session of the same player), and a save made elsewhere in between refused as a
 * version_conflict until the page reloads.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, unique, type Browser } from "./chromium";

describe("playground cloud saves in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;

  before(async function () {
    requireChromium(this);
    ensureClientBuilt();
    h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", PLAYGROUND_ENABLED: "true" } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it("saves a state, reloads it, and refuses a save over one made elsewhere", async () => {
    const page = await browser.open(h.baseUrl, "/");
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique("saver")}.1`);
    await page.click("#login");
    await page.locator("#saves-panel").waitFor({ state: "visible" });
    await page.locator("#save-status", { hasText: "Nothing saved yet" }).waitFor();
    await page.fill("#save-state", '{"level": 3, "coins": 12}');
    await page.click("#save-put");
    await page.locator("#save-status", { hasText: "Saved version 1" }).waitFor();
    await page.fill("#save-state", "{}");
    await page.click("#save-get");
    await page.locator("#save-status", { hasText: "Reloaded version 1" }).waitFor();
    assert.deepEqual(JSON.parse(await page.inputValue("#save-state")), { level: 3, coins: 12 });

    // Server code (a room) saves in between: the page's version is stale.
    const userId = JSON.parse((await page.textContent("#user")) ?? "null").id as string;
    await h.services.saves.put("default", userId, { collection: "playground", key: "state", value: { level: 4, coins: 12 }, version: 1 }, "server");
    await page.fill("#save-state", '{"level": 3, "coins": 99}');
    await page.click("#save-put");
    await page.locator("#save-status", { hasText: "version_conflict" }).waitFor();
    await page.click("#save-get");
    await page.locator("#save-status", { hasText: "Reloaded version 2" }).waitFor();
    assert.deepEqual(JSON.parse(await page.inputValue("#save-state")), { level: 4, coins: 12 });
    await page.close();
  });
});

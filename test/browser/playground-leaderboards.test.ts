/**
 * The playground's Leaderboard panel in a real headless Chromium: two players each play a match,
 * and the board fills as each match room finishes, with their names and ranks.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, unique, type Browser } from "./chromium";

describe("playground leaderboard in headless Chromium", function () {
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

  async function player(label: string): Promise<{ page: Page; userId: string }> {
    const page = await browser.open(h.baseUrl, "/");
    assert.equal(await page.isVisible("#leaderboard-panel"), false);
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique(label)}.1`);
    await page.click("#login");
    await page.locator("#login-status", { hasText: "Logged in as" }).waitFor();
    await page.locator("#leaderboard-panel").waitFor({ state: "visible" });
    await page.locator("#board-status", { hasText: "No record yet" }).waitFor();
    return { page, userId: JSON.parse((await page.textContent("#user")) ?? "null").id };
  }

  async function play(page: Page, hits: number): Promise<void> {
    await page.fill("#match-hits", String(hits));
    await page.click("#play-match");
    await page.locator("#board-status.ok", { hasText: "You are #" }).waitFor();
  }

  it("fills the board as each player's match finishes", async () => {
    const first = await player("boardA");
    await play(first.page, 7);
    const rowsAfterFirst = await first.page.locator(`#board li[data-user-id="${first.userId}"]`).textContent();
    assert.match(rowsAfterFirst ?? "", /— 7$/);

    const second = await player("boardB");
    await play(second.page, 9);
    const mine = await second.page.textContent("#board-me");
    const rank = Number(/rank (\d+)/.exec(mine ?? "")?.[1]);
    await first.page.click("#board-refresh");
    await first.page.locator("#board-status.ok").waitFor();
    const order = await first.page.locator("#board li").evaluateAll((items) => items.map((li) => li.getAttribute("data-user-id")));
    assert.ok(order.indexOf(second.userId) >= 0 && order.indexOf(second.userId) < order.indexOf(first.userId), "9 points rank above 7");
    assert.equal(order.indexOf(second.userId) + 1, rank);
  });
});

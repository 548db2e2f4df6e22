/**
 * The two browser pages in a real headless Chromium against the booted app: Swagger UI's
 * "Try it out" logs a player in, and the playground walks login → lobby → chat → logout.
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

describe("browser pages in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;

  before(async function () {
    requireChromium(this);
    ensureClientBuilt(); // the playground runs on the game client's drop-in file
    h = await startHarness({ env: { PLAYGROUND_ENABLED: "true" } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  const open = (pathname: string): Promise<Page> => browser.open(h.baseUrl, pathname);

  it("/api-docs: Try it out on WeChat login answers 200 with a token, which Authorize then uses", async () => {
    const page = await open("/api-docs");
    const operation = page.locator(".opblock", { has: page.locator('.opblock-summary-path[data-path="/api/minigame/wechat/login"]') });
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.locator('tr[data-param-name="jsCode"] input').fill(unique("docs"));
    await operation.getByRole("button", { name: "Execute" }).click();

    const live = operation.locator(".live-responses-table");
    await live.locator(".response-col_status", { hasText: "200" }).waitFor();
    const body = await live.locator(".response-col_description pre").first().textContent();
    assert.match(body ?? "", /"token": "ey/);
    assert.match(body ?? "", /"success": true/);
    // The whole page is several screens tall; the viewport around the live answer is what matters.
    await operation.locator(".responses-inner h4", { hasText: "Server response" }).scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, -250);
    await page.screenshot({ path: path.join(RESULTS, "api-docs.png") });

    // Authorize with the token just issued, then call a protected route from the page.
    const { token } = JSON.parse(body ?? "{}").data;
    await page.locator(".scheme-container button.authorize").click();
    const bearer = page.locator(".auth-container", { hasText: "bearerAuth" });
    await bearer.locator("input").fill(token);
    await bearer.locator("button.authorize").click();
    await page.locator(".modal-ux .close-modal").click();
    const me = page.locator(".opblock", { has: page.locator('.opblock-summary-path[data-path="/api/users/me"]') }).filter({
      has: page.locator(".opblock-summary-method", { hasText: "GET" }),
    });
    await me.locator(".opblock-summary").click();
    await me.getByRole("button", { name: "Try it out" }).click();
    await me.getByRole("button", { name: "Execute" }).click();
    await me.locator(".live-responses-table .response-col_status", { hasText: "200" }).waitFor();
    assert.match((await me.locator(".live-responses-table .response-col_description pre").first().textContent()) ?? "", /"username": "mg_wechat_/);
    await page.close();
  });

  it("/: login, claims, lobby presence, chat, and the server closing the room on logout", async () => {
    const page = await open("/");
    // The page runs on the game client's browser build, not on a separately served colyseus.js.
    assert.deepEqual(await page.evaluate(() => [typeof (globalThis as any).MinigameClient?.createGameClient, typeof (globalThis as any).Colyseus]), ["function", "undefined"]);
    await page.selectOption("#platform", "wechat");
    await page.fill("#code", `${unique("pg")}.1`);
    await page.click("#login");
    await page.locator("#login-status", { hasText: "Logged in as" }).waitFor();
    const user = JSON.parse((await page.textContent("#user")) ?? "null");
    const claims = await page.textContent("#claims");
    assert.match(user.username, /^mg_wechat_/);
    assert.match(claims ?? "", new RegExp(`"userId": "${user.id}"`), "the decoded claims carry the user's id");

    await page.click("#join");
    await page.locator("#room-status", { hasText: "Connected to lobby" }).waitFor();
    await page.locator("#players li", { hasText: user.username }).waitFor();

    await page.fill("#chat-text", "hello from the playground");
    await page.click("#send");
    await page.locator("#chat li", { hasText: `${user.username}: hello from the playground` }).waitFor();

    await page.click("#logout");
    await page.locator("#room-status", { hasText: "Disconnected by the server (close code 4" }).waitFor();
    await page.locator("#events li", { hasText: "logout confirmed by the server" }).waitFor();
    assert.equal(await page.locator("#players li").count(), 0);
    assert.equal(await page.locator("#events li", { hasText: "session ended" }).count(), 0, "a deliberate logout is no sessionEnded event");
    await page.screenshot({ path: path.join(RESULTS, "playground.png"), fullPage: true });
    await page.close();
  });

  it("raised no script errors on either page", () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});

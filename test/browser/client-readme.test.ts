/**
 * client/README.md's browser example, as written, in a real headless Chromium on a page of the
 * booted server (which serves the drop-in file): it logs in and joins; then the server loses the
 * page's socket (as a network drop looks from there) and the same room comes back by itself.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { matchMaker } from "@colyseus/core";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { readmeExample } from "../support/readme-examples";
import { launchChromium, requireChromium, type Browser } from "./chromium";

const README = path.resolve(__dirname, "../../client/README.md");

describe("client/README.md's browser example in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const consoleLines: string[] = [];

  before(async function () {
    requireChromium(this);
    ensureClientBuilt();
    h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", PLAYGROUND_ENABLED: "true" } });
    browser = await launchChromium();
    // A page of the server's origin, whose content becomes the README's example.
    page = await browser.open(h.baseUrl, "/api-docs.json");
    page.on("console", (message) => consoleLines.push(message.text()));
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it("logs in, joins and chats; a dropped socket brings the same room back", async () => {
    await page.setContent(readmeExample(README, "browser"), { waitUntil: "load" });
    const joined = await page.evaluate(async () => {
      const { user, room } = await (globalThis as any).readmeExample;
      return { userId: user.id as string, username: user.username as string, roomId: room.roomId as string, sessionId: room.sessionId as string };
    });
    assert.match(joined.username, /^mg_douyin_/);
    const heard = async (text: string) => {
      const start = Date.now();
      while (!consoleLines.some((l) => l.endsWith(`: ${text}`))) {
        if (Date.now() - start > 10_000) throw new Error(`"${text}" not heard; console: ${consoleLines.join(" | ")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await heard("hello from the browser");

    // The server's end of the page's socket dies without a close frame: a network drop.
    const room = matchMaker.getLocalRoomById(joined.roomId) as unknown as { clients: Array<{ sessionId: string; ref: { terminate(): void } }> };
    room.clients.find((c) => c.sessionId === joined.sessionId)!.ref.terminate();
    const start = Date.now();
    while (!consoleLines.includes("back in the room")) {
      if (Date.now() - start > 15_000) throw new Error(`no reconnection; console: ${consoleLines.join(" | ")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = await page.evaluate(async () => {
      const { room } = await (globalThis as any).readmeExample;
      room.send("chat", { text: "still here in the browser" });
      return room.sessionId as string;
    });
    assert.equal(after, joined.sessionId, "the same seat");
    await heard("still here in the browser");
    assert.deepEqual(browser.pageErrors, []);
  });
});

/**
 * A customer-service round trip in headless Chromium (zh-CN, Shanghai): a player writes in the game's
 * customer-service conversation (the simulator pushes it as WeChat does, on the message push, safe
 * mode); the operator finds the conversation in the console, reads it in local time, cancels a reply
 * once (nothing is sent), then sends it; the reply arrives at the simulator's custom/send, is kept in
 * the conversation and in the audit.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");

const RAW_ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/;

describe("operator console: a customer-service conversation round trip (headless Chromium)", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser | undefined;

  before(async function () {
    requireChromium(this);
    const simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), ...simulatorRewardEnv() } });
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await h?.simulator.close();
  });

  it("player message in through the push, operator reply out through custom/send", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cs")}.1`);
    const { openid, user } = login.body.data;
    const control = (path: string, body: unknown) => fetch(`${h.simulator.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    const notifyUrl = `${h.baseUrl}/api/minigame/wechat/gift-push`;
    assert.equal((await control("/__simulator/support-message", { platform: "wechat", openid, text: "我的钻石不见了", notifyUrl })).status, 200);
    const replies = async () => ((await (await fetch(`${h.simulator.url}/__simulator/support-replies?openid=${openid}`)).json()) as { replies: Array<{ content: string }> }).replies;

    browser = await launchChromium({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
    const support = await addOperator(h.config, unique("cs"), "support");
    const page = await browser.open(h.baseUrl, "/console");
    await page.fill("#signin-name", support.name);
    await page.fill("#signin-password", support.password);
    await page.click("#signin-submit");
    await page.fill("#current-password", support.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: support.name }).waitFor();

    await page.click('nav button[data-screen="support"]');
    await page.locator('nav button[data-screen="support"]', { hasText: "客服消息" }).waitFor();
    // The push is delivered asynchronously: show the list until the player's conversation is there.
    for (let i = 0; i < 50; i++) {
      await page.click("#support-show");
      if (await page.locator("#support-list td", { hasText: user.id }).count()) break;
      await page.waitForTimeout(100);
    }
    await page.locator("#support-list tr", { hasText: "我的钻石不见了" }).waitFor();
    await page.getByRole("button", { name: `打开与 ${user.id} 的会话` }).click();
    await page.locator("#support-messages td", { hasText: "我的钻石不见了" }).waitFor();
    const shown = (await page.textContent("#support-messages")) ?? "";
    assert.match(shown, /\(UTC\+08:00\)/, "the browser's local time");
    assert.doesNotMatch(shown, RAW_ISO);

    await page.fill("#support-reply-text", "已为您补发 40 钻石");
    await page.click("#support-send");
    await page.locator("#confirm-text", { hasText: user.id }).waitFor();
    assert.match((await page.textContent("#confirm-text")) ?? "", /wechat/, "names the platform");
    await page.click("#confirm-cancel");
    await page.locator("#support-reply + .result", { hasText: "已取消" }).waitFor();
    assert.deepEqual(await replies(), [], "a cancelled reply sends nothing");

    await page.click("#support-send");
    await page.click("#confirm-ok");
    await page.locator("#support-reply + .result", { hasText: "已完成" }).waitFor({ timeout: 10_000 });
    assert.deepEqual((await replies()).map((r) => r.content), ["已为您补发 40 钻石"], "arrived at WeChat's custom/send");
    await page.locator("#support-messages td", { hasText: "已为您补发 40 钻石" }).waitFor();
    await page.locator("#support-messages td", { hasText: `客服 ${support.name}` }).waitFor();
    assert.equal(await page.inputValue("#support-reply-text"), "", "ready for the next reply");
    await page.screenshot({ path: path.join(RESULTS, "console-zh-support.png"), fullPage: true });
    if (process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-support.png"), fullPage: true });
  });
});

/**
 * A support person's day in the operator console, once in Chinese (a browser in zh-CN, in Shanghai)
 * and once in English (en-US, New York; switched to Chinese and back from the header): find a player
 * by part of their nickname, refund an order (cancelled once: nothing happens; then confirmed), grant
 * with a reason, meet a typo's error in the page's language, take some back (confirmed), mail with
 * attachments; each checked afterwards through the player's own API. Times show in the browser's zone,
 * never as raw ISO. The Chinese walk also photographs every screen (test-results/, and docs/ with
 * UPDATE_CONSOLE_SCREENSHOTS=1).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { ERROR_CODES } from "../../src/core/errors";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");
const RAW_ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/;

interface Day {
  name: string;
  locale: string;
  timezoneId: string;
  zone: string;
  nick: string;
  players: string;
  refundOf: (order: string) => string;
  refundConfirm: string;
  cancelled: string;
  refunded: string;
  reason: string;
  granted: string;
  notInCatalog: string;
  debitConfirm: string;
  debited: string;
  mailTitle: string;
}

const CHINESE: Day = {
  name: "Chinese",
  locale: "zh-CN",
  timezoneId: "Asia/Shanghai",
  zone: "(UTC+08:00)",
  nick: "小明同学",
  players: "玩家",
  refundOf: (order) => `退款 ${order}`,
  refundConfirm: "30 游戏币将退回其 wechat 余额",
  cancelled: "已取消，未作任何修改",
  refunded: "：已完成",
  reason: "补偿：服务器维护",
  granted: "已向",
  notInCatalog: "不在该应用的商品目录中：poton",
  debitConfirm: "扣除 gems 15",
  debited: "已从",
  mailTitle: "维护补偿",
};

const ENGLISH: Day = {
  name: "English",
  locale: "en-US",
  timezoneId: "America/New_York",
  zone: "(UTC-0",
  nick: "MingTheBrave",
  players: "Players",
  refundOf: (order) => `Refund ${order}`,
  refundConfirm: "30 coins back to their wechat balance",
  cancelled: "cancelled, nothing was changed",
  refunded: ": done",
  reason: "outage compensation",
  granted: "Granted gems 40",
  notInCatalog: "Not in the app's catalog: poton",
  debitConfirm: "Take gems 15 back",
  debited: "Took gems 15 back",
  mailTitle: "Sorry for the outage",
};

/** What the console shows for an instant in a zone: "2026-11-28 20:15:03 (UTC+08:00)". */
function shownTime(iso: string, timeZone: string): string {
  const date = new Date(iso);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const gmt = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" }).formatToParts(date).find((p) => p.type === "timeZoneName")!.value;
  const offset = gmt === "GMT" ? "UTC+00:00" : gmt.replace("GMT", "UTC");
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} (${offset})`;
}

describe("operator console: a support person's day in Chinese and English (headless Chromium)", function () {
  this.timeout(180_000);
  let h: Harness;
  const browsers: Browser[] = [];

  before(async function () {
    requireChromium(this);
    const simulator = await startSimulator({ port: 0 });
    const boards = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "console-day-boards-")), "leaderboards.json");
    fs.writeFileSync(boards, JSON.stringify({ default: [{ id: "highscores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1000 }] }));
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), LEADERBOARDS_FILE: boards } });
  });
  after(async () => {
    for (const b of browsers) await b.close();
    await h?.close();
    await h?.simulator.close();
  });

  async function openConsole(day: Day): Promise<{ page: Page; browser: Browser }> {
    const browser = await launchChromium({ locale: day.locale, timezoneId: day.timezoneId });
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
    return { page, browser };
  }

  const screen = async (page: Page, id: string) => {
    await page.click(`nav button[data-screen="${id}"]`);
    await page.locator(`nav button[data-screen="${id}"][aria-current="page"]`).waitFor();
    await page.locator("main section").first().waitFor();
  };

  async function supportDay(day: Day, page: Page) {
    // A player writes in; they bought something with coins, and call themselves by a nickname.
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("day")}.1`);
    const { token, openid, user } = login.body.data;
    const auth = { authorization: `Bearer ${token}` };
    const tag = unique("p").slice(-6);
    const renamed = await h.request("PATCH", "/api/users/me", { nickname: `${tag}${day.nick}`, version: 1 }, auth);
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
    const orderId = unique("order");
    assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, auth)).status, 201);
    const coins = async () => ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number }).balance;
    const orderState = async () => (await h.get(`/api/payments/orders/${orderId}`, auth)).body.data.state;
    const catalog = (await h.get("/api/catalog", auth)).body.data;
    const item: string = catalog.items[0].itemId;

    // Found by part of the nickname (the tag and the first characters of the name).
    await screen(page, "players");
    await page.fill("#player-query", `${tag}${day.nick.slice(0, 2)}`);
    await page.click("#player-find");
    await page.locator("#player-profile", { hasText: user.id }).waitFor();
    assert.equal(await page.textContent("#player-created"), shownTime(user.createdAt, day.timezoneId), "the browser's zone");
    assert.match((await page.textContent("#player-created")) ?? "", new RegExp(day.zone.replace(/[()+]/g, "\\$&")));
    assert.doesNotMatch((await page.textContent("main")) ?? "", RAW_ISO);

    // Refund: cancelled first (nothing happens), then confirmed.
    await page.getByRole("button", { name: day.refundOf(orderId) }).click();
    await page.locator("#confirm-text", { hasText: day.refundConfirm }).waitFor();
    assert.match((await page.textContent("#confirm-text")) ?? "", new RegExp(`${tag}${day.nick}`), "names the player");
    if (day === CHINESE) await page.screenshot({ path: path.join(RESULTS, "console-zh-confirm.png") });
    if (day === CHINESE && process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-confirm.png") });
    await page.click("#confirm-cancel");
    await page.locator("#player-orders + .result", { hasText: day.cancelled }).waitFor();
    assert.deepEqual([await orderState(), await coins()], ["delivered", 70], "a cancelled refund refunds nothing");
    await page.getByRole("button", { name: day.refundOf(orderId) }).click();
    await page.click("#confirm-ok");
    await page.locator("#player-orders + .result", { hasText: day.refunded }).waitFor({ timeout: 10_000 });
    assert.deepEqual([await orderState(), await coins()], ["refunded", 100], "refunded through the platform");

    // Grant with a reason; a typo answers in the page's language; a debit, confirmed.
    await screen(page, "rewards");
    await page.fill("#reward-user", user.id);
    await page.fill("#reward-currencies", "gems=40");
    await page.fill("#reward-grant-id", unique("grant"));
    await page.fill("#reward-reason", day.reason);
    await page.click("#reward-submit");
    await page.locator("#reward-result", { hasText: day.granted }).waitFor();
    await page.fill("#reward-currencies", "poton=1");
    await page.fill("#reward-grant-id", unique("typo"));
    await page.click("#reward-submit");
    await page.locator("#reward-result", { hasText: day.notInCatalog }).waitFor();
    assert.match((await page.textContent("#reward-result")) ?? "", /\(not_in_catalog\)/, "the machine code stays");
    await page.fill("#debit-user", user.id);
    await page.fill("#debit-currencies", "gems=15");
    await page.fill("#debit-id", unique("debit"));
    await page.fill("#debit-reason", day.reason);
    await page.click("#debit-submit");
    await page.locator("#confirm-text", { hasText: day.debitConfirm }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#debit-result", { hasText: day.debited }).waitFor();
    assert.deepEqual((await h.get("/api/economy/wallet", auth)).body.data.balances, { gems: 25 }, "40 granted, 15 taken back");

    // Mail with attachments, claimed by the player.
    await screen(page, "mail");
    const mailId = unique("mail");
    await page.fill("#mail-user", user.id);
    await page.fill("#mail-title", day.mailTitle);
    await page.fill("#mail-currencies", "gems=50");
    await page.fill("#mail-items", `${item}=1`);
    await page.fill("#mail-id", mailId);
    await page.click("#mail-submit");
    await page.locator("#mail-result", { hasText: mailId }).waitFor();
    assert.match((await page.textContent("#mail-result")) ?? "", new RegExp(day.zone.replace(/[()+]/g, "\\$&")), "the expiry in the browser's zone");
    const claim = await h.request("POST", `/api/mail/${mailId}/claim`, undefined, auth);
    assert.deepEqual([claim.status, claim.body.data.granted, claim.body.data.balances], [200, true, { gems: 75 }]);
    const inventory = (await h.get("/api/economy/inventory", auth)).body.data;
    assert.ok(JSON.stringify(inventory).includes(item), JSON.stringify(inventory));

    // The result does not follow to the next screen.
    await screen(page, "players");
    await screen(page, "mail");
    assert.equal(await page.textContent("#mail-result"), "");
    assert.equal(await page.locator("main .result:not(:empty)").count(), 0);

    // The audit trail has the grant's reason; its times are in the zone.
    await screen(page, "audit");
    await page.fill("#audit-target", user.id);
    await page.click("#audit-search");
    await page.locator("#audit-list td", { hasText: "reward.grant" }).first().waitFor();
    const audit = (await page.textContent("#audit-list")) ?? "";
    assert.ok(audit.includes(day.reason), audit);
    assert.ok(audit.includes(day.zone), audit);
    assert.doesNotMatch(audit, RAW_ISO);
    return { user, tag, auth };
  }

  it("in Chinese, chosen from the browser, in Shanghai time; every screen photographed", async () => {
    const { page } = await openConsole(CHINESE);
    assert.equal(await page.textContent('nav button[data-screen="players"]'), "玩家");
    assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
    const { tag, user, auth } = await supportDay(CHINESE, page);
    // Something on the cloud saves screen: the player's progress.
    assert.equal((await h.request("PUT", "/api/saves/progress/slot1", { value: { level: 12, hero: "小明" } }, auth)).status, 201);
    const screens = await page.locator("nav button").evaluateAll((buttons) => buttons.map((b) => (b as unknown as { dataset: { screen: string } }).dataset.screen));
    for (const id of screens) {
      await screen(page, id);
      if (id === "players") {
        await page.fill("#player-query", tag);
        await page.click("#player-find");
        await page.locator("#player-orders tbody tr").first().waitFor();
      }
      if (id === "saves") {
        await page.fill("#save-user", user.id);
        await page.fill("#save-collection", "progress");
        await page.click("#save-show");
        await page.locator("#save-list td", { hasText: "slot1" }).waitFor();
      }
      if (id === "audit" || id === "health" || id === "leaderboards" || id === "operators") await page.locator("main table").first().waitFor();
      assert.doesNotMatch((await page.textContent("main")) ?? "", RAW_ISO, id);
      await page.screenshot({ path: path.join(RESULTS, `console-zh-${id}.png`), fullPage: true });
      // docs/console-zh-analytics.png shows a week of numbers, console-zh-liveops.png a loaded screen; the
      // orders queue is empty here: their own suites (console-analytics, console-liveops, console-order-queue) take them.
      if (process.env.UPDATE_CONSOLE_SCREENSHOTS && !["analytics", "liveops", "orders"].includes(id)) await page.screenshot({ path: path.join(DOCS, `console-zh-${id}.png`), fullPage: true });
    }
    await page.close();
  });

  it("in English, switched to Chinese from the header (remembered) and back, in New York time", async () => {
    const { page } = await openConsole(ENGLISH);
    assert.equal(await page.textContent('nav button[data-screen="players"]'), "Players");
    await page.selectOption("#language", "zh-CN");
    await page.locator('nav button[data-screen="players"]', { hasText: "玩家" }).waitFor();
    await page.reload();
    await page.locator('nav button[data-screen="players"]', { hasText: "玩家" }).waitFor();
    assert.equal(await page.textContent("header h1"), "运营后台", "remembered across a reload");
    await page.selectOption("#language", "en");
    await page.locator('nav button[data-screen="players"]', { hasText: "Players" }).waitFor();
    await supportDay(ENGLISH, page);
    await page.close();
  });

  it("has a text in both languages for every API error code, and shows the server's message for an unknown one", async () => {
    const { page } = await openConsole(ENGLISH);
    const found = await page.evaluate(async ({ codes, modules }) => {
      const [i18n] = await Promise.all(modules.map((m) => import(m)));
      const missing = codes.filter((code) => !i18n.hasText(`error.${code}`, "en") || !i18n.hasText(`error.${code}`, "zh-CN"));
      const unknown = i18n.errorText({ code: "some_future_code", message: "The server's own words" });
      return { missing, unknown };
    }, { codes: Object.keys(ERROR_CODES), modules: ["/console/i18n.js", "/console/texts/errors.js"] });
    assert.deepEqual(found, { missing: [], unknown: "The server's own words (some_future_code)" });
    await page.close();
  });

  it("raised no script errors", () => {
    assert.deepEqual(browsers.flatMap((b) => b.pageErrors), []);
  });
});

/**
 * The operator console in a real headless Chromium against the booted app (SQLite + memory cache):
 * an admin signs in with the one-time password and a TOTP code, picks a new password, finds a
 * player by openid, sees their orders, refunds one (on the memory cache: the server holds the key),
 * mutes the player in rooms, and disables them, whose room socket closes with 4401. Nothing is loaded from another host.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@colyseus/sdk";
import type { Page } from "playwright-core";
import { SESSION_ENDED_CLOSE_CODE } from "../../rooms/session-guard";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";
import { launchChromium, requireChromium, RESULTS, unique, type Browser } from "./chromium";

describe("operator console in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;
  const requested: string[] = [];

  before(async function () {
    requireChromium(this);
    const simulator = await startSimulator({ port: 0 });
    const boards = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "console-boards-")), "leaderboards.json");
    fs.writeFileSync(boards, JSON.stringify({ default: [{ id: "highscores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1000 }] }));
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), LEADERBOARDS_FILE: boards } });
    browser = await launchChromium();
    browser.context.on("request", (req) => requested.push(req.url()));
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await h?.simulator.close();
  });

  async function signIn(page: Page, name: string, password: string, totp?: string) {
    await page.fill("#signin-name", name);
    await page.fill("#signin-password", password);
    if (totp) await page.fill("#signin-totp", totp);
    await page.click("#signin-submit");
  }

  /** An operator's first sign-in: the one-time password, then their own, until the header names them. */
  async function firstSignIn(page: Page, operator: { name: string; password: string }, role: string) {
    await signIn(page, operator.name, operator.password);
    await page.fill("#current-password", operator.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: `${operator.name} (${role})` }).waitFor();
  }

  it("admin: TOTP sign-in, new password, player by openid, orders, refund, disable (socket 4401)", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cb")}.1`);
    const { token, openid, user } = login.body.data;
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
    for (const [orderId, coins] of [["sword-1", 30], ["shield-2", 20]] as const) {
      const bought = await h.request("POST", "/api/payments/orders", { orderId, itemId: orderId.split("-")[0], coins }, { authorization: `Bearer ${token}` });
      assert.equal(bought.status, 201);
    }
    const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token });
    const closed = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));

    const admin = await addOperator(h.config, unique("chief"), "admin", { totp: true });
    const page = await browser.open(h.baseUrl, "/console");
    await signIn(page, admin.name, admin.password, admin.totp());
    await page.fill("#current-password", admin.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.keyboard.press("Enter"); // the form works from the keyboard
    await page.locator("#operator", { hasText: `${admin.name} (admin)` }).waitFor();

    await page.getByLabel(/Find a player/).fill(openid);
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await page.locator("#player-profile", { hasText: user.id }).waitFor();
    await page.locator("#player-orders td", { hasText: "sword-1" }).waitFor();
    assert.equal(await page.locator("#player-orders tbody tr").count(), 2);

    await page.getByRole("button", { name: "Refund sword-1" }).click();
    await page.locator("#confirm-text", { hasText: "30 coins" }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#player-orders + .result", { hasText: "Refund sword-1: done" }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nresult: ${await page.textContent("main")}`);
    });
    await page.locator("#player-orders tr", { hasText: "sword-1" }).locator(".state", { hasText: "refunded" }).waitFor();
    const coins = (await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number };
    assert.equal(coins.balance, 80, "30 of the 50 spent came back");

    await page.locator("#player-rooms td", { hasText: room.roomId }).waitFor();
    assert.equal(await page.locator("#player-rooms tbody tr").count(), 1, "one live room: the lobby");
    // Mute in rooms: the player's chat is refused at once.
    const refusals: Array<{ code: string }> = [];
    room.onMessage("error", (e) => refusals.push(e));
    room.onMessage("chat", () => undefined);
    await page.fill("#mute-reason", "spam in the lobby");
    await page.selectOption("#mute-duration", "3600");
    await page.click("#mute-submit");
    await page.locator("#player-mute", { hasText: "muted until" }).waitFor();
    room.send("chat", { text: "buy gold at example.com" });
    for (let i = 0; i < 100 && refusals.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(refusals.map((e) => e.code), ["muted"]);

    await page.getByLabel("Reason").first().fill("chargeback abuse");
    await page.click("#disable-submit");
    await page.locator("#confirm-text", { hasText: "chargeback abuse" }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#player-status", { hasText: "disabled: chargeback abuse" }).waitFor();
    assert.equal(await closed, SESSION_ENDED_CLOSE_CODE);
    await page.locator("#player-detail").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS, "console.png"), fullPage: true });

    // The audit screen shows what was done.
    await page.click('nav button[data-screen="audit"]');
    await page.locator("#audit-list td", { hasText: "order.refund" }).first().waitFor();
    await page.locator("#audit-list td", { hasText: "player.disable" }).first().waitFor();
    await page.close();
  });

  it("admin: a mail the player claims once shows in the wallet; a catalog version and a restore; a ban from a board, lifted; a cloud save edited at the version shown, a stale edit refused", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cm")}.1`);
    const { token, user } = login.body.data;
    const admin = await addOperator(h.config, unique("mailer"), "admin");
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, admin, "admin");

    await page.click('nav button[data-screen="mail"]');
    await page.getByLabel("Player's user id").fill(user.id);
    await page.getByLabel("Title").fill("Sorry for the outage");
    await page.getByLabel(/^Currencies/).fill("gems=50");
    const mailId = unique("outage");
    await page.getByLabel(/^Mail id/).fill(mailId);
    await page.click("#mail-submit");
    await page.locator("#mail-result", { hasText: mailId }).waitFor();

    const claim = () => h.request("POST", `/api/mail/${mailId}/claim`, undefined, { authorization: `Bearer ${token}` });
    const first = await claim();
    assert.deepEqual([first.status, first.body.data.granted, first.body.data.balances], [200, true, { gems: 50 }]);
    const second = await claim();
    assert.deepEqual([second.status, second.body.data.granted, second.body.data.balances], [200, false, { gems: 50 }], "claimed once");

    await page.click('nav button[data-screen="players"]');
    await page.locator("#player-query").fill(user.id);
    await page.keyboard.press("Enter");
    await page.locator("#player-wallet tr", { hasText: "gems" }).locator("td", { hasText: /^50$/ }).waitFor();
    await page.screenshot({ path: path.join(RESULTS, "console-economy.png"), fullPage: true });
    await page.click('nav button[data-screen="audit"]');
    await page.locator("#audit-list td", { hasText: "mail.send" }).first().waitFor();

    // The catalog's next version from the JSON editor.
    await page.click('nav button[data-screen="economy"]');
    await page.locator("#catalog-version", { hasText: "version 0" }).waitFor();
    await page.click("#catalog-advanced summary"); // the JSON is the advanced view
    await page.fill("#catalog-editor", JSON.stringify({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "crown", name: "Crown", kind: "durable", prices: { gold: 9 } }] }));
    await page.getByRole("button", { name: "Save as next version" }).click();
    await page.locator("#confirm-text", { hasText: "version 1" }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#catalog-version", { hasText: "version 1" }).waitFor();
    assert.match((await page.textContent("#catalog-json")) ?? "", /"crown"/);
    assert.equal((await h.get("/api/catalog", { authorization: `Bearer ${token}` })).body.data.version, 1);
    // The history: version 1 in use; version 0 (the settings' catalog) viewed, then restored as version 2.
    await page.locator("#catalog-history td", { hasText: "1 (in use)" }).waitFor();
    await page.getByRole("button", { name: "View version 1" }).click();
    await page.locator("#catalog-old", { hasText: '"crown"' }).waitFor();
    await page.getByRole("button", { name: "Restore version 0" }).click();
    await page.click("#confirm-ok");
    await page.locator("#catalog-version", { hasText: "version 2" }).waitFor();
    await page.locator("#catalog-history td", { hasText: "2 (in use)" }).waitFor();
    assert.doesNotMatch((await page.textContent("#catalog-json")) ?? "", /"crown"/);

    // A leaderboard record, then a ban from the board.
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 77 }, { authorization: `Bearer ${token}` })).status, 200);
    await page.click('nav button[data-screen="leaderboards"]');
    await page.locator("#board-list td", { hasText: "highscores" }).waitFor();
    await page.fill("#board-user", user.id);
    await page.getByRole("button", { name: "Show records" }).click();
    await page.locator("#board-records td", { hasText: /^77$/ }).waitFor();
    await page.getByRole("button", { name: "Ban from highscores" }).click();
    await page.locator("#confirm-text", { hasText: "(77)" }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#board-records + .result", { hasText: "Ban from highscores: done" }).waitFor();
    await page.locator("#board-records td", { hasText: "Nothing here" }).waitFor();
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 80 }, { authorization: `Bearer ${token}` })).status, 403, "banned");
    await page.selectOption("#unban-board", "highscores");
    await page.getByRole("button", { name: "Unban" }).click();
    await page.locator("#unban-form + .result", { hasText: "Unban on highscores: done" }).waitFor();
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 81 }, { authorization: `Bearer ${token}` })).status, 200, "unbanned");

    // A player's cloud save, edited at the version shown, then an edit of the stale page refused.
    const bearer = { authorization: `Bearer ${token}` };
    assert.equal((await h.request("PUT", "/api/saves/progress/slot1", { value: { level: 3 } }, bearer)).status, 201);
    await page.click('nav button[data-screen="saves"]');
    await page.fill("#save-user", user.id);
    await page.fill("#save-collection", "progress");
    await page.getByRole("button", { name: "Show saves" }).click();
    await page.getByRole("textbox", { name: "Value of slot1" }).fill('{"level": 40}');
    await page.getByRole("button", { name: "Save slot1" }).click();
    await page.locator("#confirm-text", { hasText: `Save player ${user.id}'s object slot1 in collection progress` }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#save-list + .result", { hasText: "Save slot1: done" }).waitFor();
    assert.deepEqual((await h.get("/api/saves/progress/slot1", bearer)).body.data.value, { level: 40 });
    const current = (await h.get("/api/saves/progress/slot1", bearer)).body.data.version;
    assert.equal((await h.request("PUT", "/api/saves/progress/slot1", { value: { level: 41 }, version: current }, bearer)).status, 200);
    await page.getByRole("button", { name: "Save slot1" }).click();
    await page.click("#confirm-ok");
    await page.locator("#save-list + .result", { hasText: "version_conflict" }).waitFor();
    assert.deepEqual((await h.get("/api/saves/progress/slot1", bearer)).body.data.value, { level: 41 });
    await page.close();
  });

  it("cloud saves in a zh-CN browser: Chinese labels, local times; a cancelled delete deletes nothing, a confirmed one deletes; an edit is confirmed", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cz")}.1`);
    const { token, user } = login.body.data;
    const bearer = { authorization: `Bearer ${token}` };
    assert.equal((await h.request("PUT", "/api/saves/progress/slot1", { value: { level: 3 } }, bearer)).status, 201);
    assert.equal((await h.request("PUT", "/api/saves/progress/slot2", { value: { level: 5 } }, bearer)).status, 201);
    const admin = await addOperator(h.config, unique("cunzhang"), "admin");
    const chinese = await launchChromium({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
    try {
      const page = await chinese.open(h.baseUrl, "/console");
      await signIn(page, admin.name, admin.password);
      await page.fill("#current-password", admin.password);
      await page.fill("#new-password", OPERATOR_PASSWORD);
      await page.fill("#repeat-password", OPERATOR_PASSWORD);
      await page.click("#password-form button[type=submit]");
      await page.locator("#operator", { hasText: `${admin.name}（管理员）` }).waitFor();

      assert.equal(await page.textContent('nav button[data-screen="saves"]'), "云存档");
      await page.click('nav button[data-screen="saves"]');
      await page.locator("main h2", { hasText: "玩家的云存档" }).waitFor();
      await page.getByLabel("玩家用户 ID").fill(user.id);
      await page.getByLabel("集合").fill("progress");
      await page.getByRole("button", { name: "查看存档" }).click();
      await page.getByRole("textbox", { name: "slot1 的内容" }).waitFor();
      const headers = await page.locator("#save-list th").allTextContents();
      assert.deepEqual(headers, ["键", "版本", "读 / 写权限", "更新时间", "内容"]);
      const row = (await page.locator("#save-list tr", { hasText: "slot1" }).textContent()) ?? "";
      assert.match(row, /仅本人 \/ 仅本人/);
      assert.match(row, /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC\+08:00\)/, "the time in the browser's zone");
      assert.doesNotMatch((await page.textContent("main")) ?? "", /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, "no raw ISO time");

      // Delete: the confirmation names the player, collection, key and version; cancelled, nothing is deleted.
      const version = (await h.get("/api/saves/progress/slot1", bearer)).body.data.version;
      await page.getByRole("button", { name: "删除 slot1" }).click();
      const question = (await page.locator("#confirm-text").textContent()) ?? "";
      assert.equal(question, `确定删除玩家 ${user.id} 在集合 progress（应用 default）中的对象 slot1（版本 ${version}）？删除后无法恢复。`);
      assert.equal(await page.textContent("#confirm-cancel"), "取消");
      await page.click("#confirm-cancel");
      await page.locator("#save-list + .result", { hasText: "删除 slot1：已取消，未作任何修改" }).waitFor();
      const kept = await h.get("/api/saves/progress/slot1", bearer);
      assert.deepEqual([kept.status, kept.body.data.value, kept.body.data.version], [200, { level: 3 }, version], "a cancelled delete deletes nothing");

      // Confirmed, it is deleted; the other object stays.
      await page.getByRole("button", { name: "删除 slot1" }).click();
      await page.click("#confirm-ok");
      await page.locator("#save-list + .result", { hasText: "删除 slot1：已完成" }).waitFor();
      await page.getByRole("textbox", { name: "slot1 的内容" }).waitFor({ state: "detached" });
      assert.equal((await h.get("/api/saves/progress/slot1", bearer)).status, 404, "deleted");
      assert.equal((await h.get("/api/saves/progress/slot2", bearer)).status, 200, "only the one confirmed");

      // Save of an edit is confirmed too: cancelled, the stored value stays; confirmed, it is replaced.
      await page.getByRole("textbox", { name: "slot2 的内容" }).fill('{"level": 50}');
      await page.getByRole("button", { name: "保存 slot2" }).click();
      await page.locator("#confirm-text", { hasText: `确定保存玩家 ${user.id} 在集合 progress（应用 default）中的对象 slot2？框中的内容将替换版本` }).waitFor();
      await page.click("#confirm-cancel");
      await page.locator("#save-list + .result", { hasText: "保存 slot2：已取消" }).waitFor();
      assert.deepEqual((await h.get("/api/saves/progress/slot2", bearer)).body.data.value, { level: 5 });
      // Confirmed, it is replaced; "done" is said only once the list shows the new version, so text typed
      // after it is never overwritten by the list's late redraw (held here until checked).
      let entered = (): void => undefined;
      let releaseList = (): void => undefined;
      const listHeld = new Promise<void>((resolve) => (entered = resolve));
      const released = new Promise<void>((resolve) => (releaseList = resolve));
      await page.route("**/console/api/saves/players/**", async (route) => {
        if (route.request().method() !== "GET") return route.continue();
        entered();
        await released;
        return route.continue();
      });
      await page.getByRole("button", { name: "保存 slot2" }).click();
      await page.click("#confirm-ok");
      await listHeld;
      assert.doesNotMatch((await page.locator("#save-list + .result").textContent()) ?? "", /已完成/, "not done before the list is redrawn");
      releaseList();
      await page.locator("#save-list + .result", { hasText: "保存 slot2：已完成" }).waitFor();
      await page.unroute("**/console/api/saves/players/**");
      assert.deepEqual((await h.get("/api/saves/progress/slot2", bearer)).body.data.value, { level: 50 });
      await page.getByRole("textbox", { name: "slot2 的内容" }).fill("{level");
      await page.getByRole("button", { name: "保存 slot2" }).click();
      await page.locator("#save-list + .result", { hasText: "保存 slot2失败：不是有效的 JSON" }).waitFor();
      assert.equal(await page.locator("#confirm-dialog").count(), 0, "nothing to confirm for text that is not JSON");
      await page.close();
      assert.deepEqual(chinese.pageErrors, []);
    } finally {
      await chinese.close();
    }
  });

  it("the catalog as a form: a problem shows beside its field and nothing is stored; fixed, the new item is on sale", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cf")}.1`);
    const auth = { authorization: `Bearer ${login.body.data.token}` };
    const admin = await addOperator(h.config, unique("shopkeeper"), "admin");
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, admin, "admin");
    await page.click('nav button[data-screen="economy"]');
    await page.locator("#catalog-items fieldset").first().waitFor();
    const before = (await h.get("/api/catalog", auth)).body.data.version as number;
    await page.click("#catalog-add-items");
    const row = page.locator("#catalog-items fieldset").last();
    const field = (name: string) => row.locator(`[data-field="${name}"] [name]`);
    await field("itemId").fill("crown");
    await field("name").fill("Crown");
    await field("kind").selectOption("durable");
    await field("prices").fill("gold=9"); // no such currency
    await page.click("#catalog-form-save");
    await page.click("#confirm-ok");
    await row.locator('[data-field="prices"] .problem', { hasText: "unknown currency" }).waitFor();
    await page.locator("#catalog-form + .result", { hasText: "catalog_invalid" }).waitFor();
    assert.equal((await h.get("/api/catalog", auth)).body.data.version, before, "nothing stored");
    await field("prices").fill("gems=9");
    await page.click("#catalog-form-save");
    await page.locator("#confirm-text", { hasText: `version ${before + 1}` }).waitFor();
    await page.click("#confirm-ok");
    await page.locator("#catalog-version", { hasText: `version ${before + 1}` }).waitFor();
    const catalog = (await h.get("/api/catalog", auth)).body.data;
    assert.equal(catalog.version, before + 1);
    assert.deepEqual(catalog.items.find((i: { itemId: string }) => i.itemId === "crown")?.prices, { gems: 9 });
    await page.close();
  });

  it("a Douyin player: no Refund on their coin orders, coins granted on Douyin by default; Apps & settings claims no payments on QQ or Kuaishou", async () => {
    const login = await h.get(`/api/minigame/douyin/login?code=${unique("dy")}.1`);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const { token, openid, user } = login.body.data;
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid, balance: 100 }) });
    assert.equal((await h.request("POST", "/api/payments/orders", { orderId: "dy-sword", itemId: "sword", coins: 30 }, { authorization: `Bearer ${token}` })).status, 201);
    const admin = await addOperator(h.config, unique("dyadmin"), "admin");
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, admin, "admin");
    await page.locator("#player-query").fill(user.id);
    await page.keyboard.press("Enter");
    await page.locator("#player-orders td", { hasText: "dy-sword" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Refund dy-sword" }).count(), 0, "Douyin has no refund: none offered");
    assert.equal(await page.inputValue("#grant-platform"), "douyin", "the player's own platform");
    assert.deepEqual(await page.locator("#grant-platform option").allTextContents(), ["douyin", "wechat"], "only the platforms that take coins");
    // The server refuses it too, as an operator's mistake (400), not as a platform failure.
    const refused = await page.evaluate(async (userId) => {
      const session = (await (await fetch("/console/api/session")).json()) as { data: { csrfToken: string } };
      const res = await fetch(`/console/api/players/${userId}/orders/dy-sword/refund`, { method: "POST", headers: { "x-csrf-token": session.data.csrfToken } });
      return res.status;
    }, user.id);
    assert.equal(refused, 400);

    await page.click('nav button[data-screen="apps"]');
    const row = (platform: string) => page.locator("main td", { hasText: new RegExp(`\\b${platform}\\b`) }).first().textContent();
    await page.locator("main td", { hasText: "qq" }).first().waitFor();
    const platforms = (await row("qq")) ?? "";
    assert.doesNotMatch(platforms.match(/qq \S+( \([^)]*\))?/)?.[0] ?? "", /payments/, platforms);
    assert.doesNotMatch(platforms.match(/kuaishou \S+( \([^)]*\))?/)?.[0] ?? "", /payments/, platforms);
    assert.match(platforms.match(/douyin \S+( \([^)]*\))?/)?.[0] ?? "", /payments, no refunds/, platforms);
    assert.match(platforms.match(/wechat \S+( \([^)]*\))?/)?.[0] ?? "", /payments, refunds/, platforms);
    await page.close();
  });

  it("ids are checked by the browser (the pattern compiles under the v flag); a debit from the Rewards screen; the Audit screen filters by time", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cd")}.1`);
    const { token, user } = login.body.data;
    const admin = await addOperator(h.config, unique("debiter"), "admin");
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, admin, "admin");
    await page.click('nav button[data-screen="rewards"]');
    await page.locator("#reward-catalog", { hasText: "gems" }).waitFor();
    const valid = (selector: string) => page.$eval(selector, (el) => (el as unknown as { checkValidity(): boolean }).checkValidity());
    for (const selector of ["#reward-grant-id", "#debit-id"]) {
      await page.fill(selector, "not an id!");
      assert.equal(await valid(selector), false, `${selector} refuses a space`);
      await page.fill(selector, "outage_2026-01");
      assert.equal(await valid(selector), true, `${selector} takes letters, digits, _ and -`);
    }
    await page.fill("#reward-user", user.id);
    await page.fill("#reward-currencies", "gems=40");
    await page.fill("#reward-grant-id", unique("grant"));
    await page.click("#reward-submit");
    await page.locator("#reward-result", { hasText: "Granted gems 40" }).waitFor();
    await page.fill("#debit-user", user.id);
    await page.fill("#debit-currencies", "gems=15");
    await page.fill("#debit-id", unique("debit"));
    await page.fill("#debit-reason", "granted twice by mistake");
    await page.click("#debit-submit");
    await page.click("#confirm-ok");
    await page.locator("#debit-result", { hasText: "Took gems 15 back" }).waitFor();
    const wallet = await h.get("/api/economy/wallet", { authorization: `Bearer ${token}` });
    assert.deepEqual(wallet.body.data.balances, { gems: 25 }, "40 granted, 15 taken back");

    await page.click('nav button[data-screen="mail"]');
    await page.fill("#mail-id", "bad id");
    assert.equal(await valid("#mail-id"), false);

    await page.click('nav button[data-screen="audit"]');
    await page.fill("#audit-actor", admin.name);
    await page.fill("#audit-action", "reward.debit");
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#audit-list td", { hasText: "reward.debit" }).first().waitFor();
    // From tomorrow: nothing; until yesterday: nothing; from an hour ago: the debit again.
    const local = (offsetMs: number) => new Date(Date.now() + offsetMs - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.fill("#audit-since", local(86_400_000));
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#audit-list td", { hasText: "Nothing here" }).waitFor();
    await page.fill("#audit-since", local(-3_600_000));
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#audit-list td", { hasText: "reward.debit" }).first().waitFor();
    await page.fill("#audit-until", local(-86_400_000));
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("#audit-list td", { hasText: "Nothing here" }).waitFor();
    assert.match((await page.getAttribute("#audit-csv", "href")) ?? "", /since=.*until=/, "the CSV export takes the same range");
    await page.close();
  });

  it("a viewer cannot send mail: 403, audited as refused", async () => {
    const viewer = await addOperator(h.config, unique("reader"), "viewer");
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cr")}.1`);
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, viewer, "viewer");
    assert.equal(await page.locator('nav button[data-screen="mail"]').count(), 0, "no mail screen for a viewer");
    // What a hand-made request from the viewer's page gets: the session's CSRF token, yet 403.
    const answer = await page.evaluate(async (userId) => {
      const session = (await (await fetch("/console/api/session")).json()) as { data: { csrfToken: string } };
      const res = await fetch("/console/api/mail", { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": session.data.csrfToken }, body: JSON.stringify({ userId, title: "free gold", currencies: { gold: 1000 } }) });
      return { status: res.status, code: ((await res.json()) as { data?: { code?: string } }).data?.code };
    }, login.body.data.user.id);
    assert.deepEqual(answer, { status: 403, code: "console_role_forbidden" });
    await page.close();

    const auditor = new ConsoleClient(h.baseUrl);
    await auditor.signIn(await addOperator(h.config, unique("auditor"), "admin"), OPERATOR_PASSWORD);
    const audit = await auditor.call("GET", `/audit?action=mail.send&actor=${viewer.name}`);
    assert.deepEqual(audit.body.data.map((e: { outcome: string; detail: { code?: string } }) => [e.outcome, e.detail.code]), [["refused", "console_role_forbidden"]]);
    const mail = await h.request("GET", "/api/mail", undefined, { authorization: `Bearer ${login.body.data.token}` });
    assert.deepEqual(mail.body.data.mail, [], "nothing was sent");
  });

  it("a viewer sees the players screen but a change is refused in the page", async () => {
    const viewer = await addOperator(h.config, unique("intern"), "viewer");
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cv")}.1`);
    await browser.context.clearCookies(); // another operator on this browser
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, viewer, "viewer");
    assert.equal(await page.locator('nav button[data-screen="operators"]').count(), 0, "no operators screen for a viewer");
    await page.locator("#player-query").fill(login.body.data.user.id);
    await page.keyboard.press("Enter");
    await page.locator("#player-profile").waitFor();
    await page.click("#kick");
    await page.locator("main .result", { hasText: "Your role does not allow this (console_role_forbidden)" }).waitFor();
    await page.click("#signout");
    await page.locator("#signin-name").waitFor();
    await page.close();
  });

  it("loaded nothing from another host and raised no script errors", () => {
    assert.ok(requested.length > 5);
    assert.deepEqual(requested.filter((url) => !url.startsWith(h.baseUrl) && !url.startsWith("blob:")), []);
    assert.deepEqual(browser.pageErrors, []);
  });
});

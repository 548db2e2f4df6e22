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
    await page.locator("#status", { hasText: "Refund sword-1: done" }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nstatus: ${await page.textContent("#status")}`);
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

  it("admin: a mail the player claims once shows in the wallet; a catalog version and a restore; a ban from a board, lifted", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("cm")}.1`);
    const { token, user } = login.body.data;
    const admin = await addOperator(h.config, unique("mailer"), "admin");
    await browser.context.clearCookies();
    const page = await browser.open(h.baseUrl, "/console");
    await firstSignIn(page, admin, "admin");

    await page.click('nav button[data-screen="mail"]');
    await page.getByLabel("Player's user id").fill(user.id);
    await page.getByLabel("Title").fill("Sorry for the outage");
    await page.getByLabel(/^Currencies/).fill("gold=50");
    const mailId = unique("outage");
    await page.getByLabel(/^Mail id/).fill(mailId);
    await page.click("#mail-submit");
    await page.locator("#mail-result", { hasText: mailId }).waitFor();

    const claim = () => h.request("POST", `/api/mail/${mailId}/claim`, undefined, { authorization: `Bearer ${token}` });
    const first = await claim();
    assert.deepEqual([first.status, first.body.data.granted, first.body.data.balances], [200, true, { gold: 50 }]);
    const second = await claim();
    assert.deepEqual([second.status, second.body.data.granted, second.body.data.balances], [200, false, { gold: 50 }], "claimed once");

    await page.click('nav button[data-screen="players"]');
    await page.locator("#player-query").fill(user.id);
    await page.keyboard.press("Enter");
    await page.locator("#player-wallet tr", { hasText: "gold" }).locator("td", { hasText: /^50$/ }).waitFor();
    await page.screenshot({ path: path.join(RESULTS, "console-economy.png"), fullPage: true });
    await page.click('nav button[data-screen="audit"]');
    await page.locator("#audit-list td", { hasText: "mail.send" }).first().waitFor();

    // The catalog's next version from the JSON editor.
    await page.click('nav button[data-screen="economy"]');
    await page.locator("#catalog-version", { hasText: "version 0" }).waitFor();
    await page.fill("#catalog-editor", JSON.stringify({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "crown", name: "Crown", kind: "durable", prices: { gold: 9 } }] }));
    await page.getByRole("button", { name: "Save as next version" }).click();
    await page.locator("#catalog-version", { hasText: "version 1" }).waitFor();
    assert.match((await page.textContent("#catalog-json")) ?? "", /"crown"/);
    assert.equal((await h.get("/api/catalog", { authorization: `Bearer ${token}` })).body.data.version, 1);
    // The history: version 1 in use; version 0 (the settings' catalog) viewed, then restored as version 2.
    await page.locator("#catalog-history td", { hasText: "1 (in use)" }).waitFor();
    await page.getByRole("button", { name: "View version 1" }).click();
    await page.locator("#catalog-old", { hasText: '"crown"' }).waitFor();
    await page.getByRole("button", { name: "Restore version 0" }).click();
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
    await page.locator("#status", { hasText: "ban highscores: done" }).waitFor();
    await page.locator("#board-records td", { hasText: "Nothing here" }).waitFor();
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 80 }, { authorization: `Bearer ${token}` })).status, 403, "banned");
    await page.selectOption("#unban-board", "highscores");
    await page.getByRole("button", { name: "Unban" }).click();
    await page.locator("#status", { hasText: "unban highscores: done" }).waitFor();
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 81 }, { authorization: `Bearer ${token}` })).status, 200, "unbanned");
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
    await page.locator("#status", { hasText: "console_role_forbidden" }).waitFor();
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

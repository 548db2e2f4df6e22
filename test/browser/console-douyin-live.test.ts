/**
 * The console's Douyin live screen in a real headless Chromium, on a simulated stream: a streamer
 * launches, the game joins its `douyin_live` room and starts a round, the simulator pushes gifts
 * (with duplicates), comments and likes; a support person sees the live room with its game room and
 * viewers, the tasks running at Douyin, the round's counts, and the round's gift ledger — each gift
 * once, the same msg_ids the game received — in English and in Chinese with local times.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import type { Page } from "playwright-core";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { Conformance } from "../support/openapi-conformance";
import { leaveRooms } from "../support/rooms";
import { launchChromium, requireChromium, RESULTS, unique, type Browser, type BrowserLocale } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");

const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("console Douyin live screen in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let simulator: RunningSimulator;
  const browsers: Browser[] = [];
  const rooms: Room[] = [];
  let liveRoomId: string;
  let roundId: number;
  const gifts: Array<{ msgId: string; giftValue: number }> = [];
  let comments = 0;
  let likes = 0;
  const sim = (path: string, body: unknown) => fetch(`${h.simulator.url}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

  before(async function () {
    requireChromium(this);
    simulator = await startSimulator({ port: 0 });
    const env = { DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_API_BASE_URL: simulator.url, DOUYIN_LIVE_SECRET_COMMENT: SECRETS.live_comment, DOUYIN_LIVE_SECRET_GIFT: SECRETS.live_gift, DOUYIN_LIVE_SECRET_LIKE: SECRETS.live_like };
    h = await startHarness({ env, simulator });
    await sim("register", { url: `${h.baseUrl}/api/douyin-live/push`, secrets: SECRETS });
    const streamer = await sim("streamer", { name: unique("console-streamer") });
    liveRoomId = streamer.roomId;
    const launched = await h.request("POST", "/api/douyin-live/sessions", { token: streamer.token });
    assert.equal(launched.status, 200, JSON.stringify(launched.body));
    const room = await new Client(h.baseUrl).joinOrCreate("douyin_live", { liveRoomId, ticket: launched.body.data.ticket });
    rooms.push(room);
    room.onMessage("gift", (g: { msgId: string; giftValue: number }) => gifts.push(g));
    room.onMessage("comment", () => comments++);
    room.onMessage("like", () => likes++);
    room.onMessage("*", () => undefined);
    const started = new Promise<number>((resolve) => room.onMessage("round_started", (m: { roundId: number }) => resolve(m.roundId)));
    room.send("round_start");
    roundId = await started;
    const report = await sim("emit", { roomId: liveRoomId, gifts: 12, comments: 8, likes: 6, ratePerSec: 100, duplicateRate: 0.3 });
    assert.equal(report.failed, 0);
    for (let i = 0; i < 100 && (gifts.length < 12 || comments + likes < 14); i++) await sleep(100);
    await sleep(300);
    assert.equal(gifts.length, 12, "the game received each gift once");
  });
  after(async () => {
    for (const browser of browsers) await browser.close();
    await leaveRooms(rooms);
    await h?.close();
    await simulator?.close();
  });

  async function signedIn(locale: BrowserLocale): Promise<{ page: Page; browser: Browser }> {
    const browser = await launchChromium(locale);
    browsers.push(browser);
    const viewer = await addOperator(h.config, unique("support"), "viewer");
    const page = await browser.open(h.baseUrl, "/console");
    await page.fill("#signin-name", viewer.name);
    await page.fill("#signin-password", viewer.password);
    await page.click("#signin-submit");
    await page.fill("#current-password", viewer.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: viewer.name }).waitFor();
    await page.goto(`${h.baseUrl}/console/#/douyin-live`);
    await page.locator(`#live-rooms button[data-room="${liveRoomId}"]`).waitFor();
    return { page, browser };
  }

  const cells = (page: Page, selector: string) => page.locator(`${selector} tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")));

  it("shows the live room, its tasks, the round's counts and its gift ledger, each gift once", async () => {
    const { page, browser } = await signedIn({ locale: "en-US" });
    const row = (await cells(page, "#live-rooms")).find((c) => c[1] === liveRoomId)!;
    assert.equal(row[2], rooms[0].roomId, "the game room serving the live room");
    assert.ok(Number(row[3]) >= 1 && Number(row[3]) <= 20, `viewers: ${row[3]}`);
    assert.equal(row[4], `#${roundId} (running)`);

    await page.click(`#live-rooms button[data-room="${liveRoomId}"]`);
    await page.locator("#live-room table").first().waitFor();
    const tasks = await cells(page, "#live-room table:nth-of-type(1)");
    assert.deepEqual(tasks, [["comments", "running"], ["gifts", "running"], ["likes", "running"]]);
    const round = (await cells(page, "#live-room table:nth-of-type(2)")).find((c) => c[0] === `#${roundId} (running)`)!;
    const value = gifts.reduce((sum, g) => sum + g.giftValue, 0);
    assert.deepEqual(round.slice(1, 6), [String(gifts.length), `¥${(value / 100).toFixed(2)}`, String(comments), String(likes), "0"]);

    await page.click(`#live-room button[data-round="${roundId}"]`);
    await page.locator("#live-ledger table").first().waitFor();
    const ledger = await page.locator("#live-ledger table").first().locator("tbody tr").count();
    assert.equal(ledger, gifts.length, "one ledger row per gift, duplicates included once");
    const ledgerRows = await cells(page, "#live-ledger table:nth-of-type(1)");
    assert.ok(ledgerRows.every((c) => c[5] === "push" && c[6] === "yes"), JSON.stringify(ledgerRows));
    assert.equal(ledgerRows.reduce((sum, c) => sum + Math.round(Number(c[4].slice(1)) * 100), 0), value);
    assert.deepEqual(browser.pageErrors, []);
    await page.close();
  });

  it("in a Chinese browser: Chinese labels and times in the browser's zone", async () => {
    const { page, browser } = await signedIn({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
    assert.equal(await page.textContent('nav button[data-screen="douyin-live"]'), "抖音直播玩法");
    assert.deepEqual(await page.locator("#live-rooms thead th").allTextContents(), ["主播", "直播间 ID", "游戏房间", "观众数", "对局", "开始时间", ""]);
    await page.click(`#live-rooms button[data-room="${liveRoomId}"]`);
    await page.locator("#live-room table").first().waitFor();
    assert.deepEqual((await cells(page, "#live-room table:nth-of-type(1)")).map((c) => c[1]), ["运行中", "运行中", "运行中"]);
    await page.click(`#live-room button[data-round="${roundId}"]`);
    await page.locator("#live-ledger table").first().waitFor();
    const first = (await cells(page, "#live-ledger table:nth-of-type(1)"))[0];
    assert.equal(first[5], "推送");
    assert.match(first[0], /\d/);
    await page.screenshot({ path: path.join(RESULTS, "console-zh-douyin-live.png"), fullPage: true });
    if (process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-douyin-live.png"), fullPage: true });
    assert.deepEqual(browser.pageErrors, []);
    await page.close();
  });

  it("answers the screen's routes as the API description says, success and failure", async () => {
    const conformance = new Conformance((await h.get("/api-docs.json")).body);
    const viewer = new ConsoleClient(h.baseUrl);
    const anonymous = new ConsoleClient(h.baseUrl);
    assert.equal((await viewer.signIn(await addOperator(h.config, unique("doc-live"), "viewer"), OPERATOR_PASSWORD)).status, 200);
    const call = async (client: ConsoleClient, route: string, path = route) => conformance.check("GET", `/console/api${route}`, await client.call("GET", path));
    const rooms = await call(viewer, "/douyin-live/rooms");
    assert.ok(rooms.body.data.rooms.some((r: { liveRoomId: string }) => r.liveRoomId === liveRoomId));
    assert.equal((await call(anonymous, "/douyin-live/rooms")).status, 401);
    const room = await call(viewer, "/douyin-live/rooms/{liveRoomId}", `/douyin-live/rooms/${liveRoomId}`);
    assert.equal(room.status, 200);
    assert.equal((await call(viewer, "/douyin-live/rooms/{liveRoomId}", "/douyin-live/rooms/123")).status, 409, "a room not launched here");
    assert.equal((await call(viewer, "/douyin-live/rooms/{liveRoomId}", "/douyin-live/rooms/not-digits")).status, 400);
    const round = await call(viewer, "/douyin-live/rooms/{liveRoomId}/rounds/{roundId}/gifts", `/douyin-live/rooms/${liveRoomId}/rounds/${roundId}/gifts`);
    assert.equal(round.body.data.entries.length, gifts.length);
    assert.equal((await call(viewer, "/douyin-live/rooms/{liveRoomId}/rounds/{roundId}/gifts", `/douyin-live/rooms/${liveRoomId}/rounds/-1/gifts`)).status, 400);
  });
});

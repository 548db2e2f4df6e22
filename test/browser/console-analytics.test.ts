/**
 * The console's Analytics screen in a real headless Chromium: the scripted week (test/support/
 * analytics-week.ts), ending today in the studio's time zone, rolled up and shown — every day's
 * DAU, new and paying players and revenue in the daily table, the cohorts' retention, a chart per
 * metric drawn as inline SVG, and nothing loaded from another host — once in English and once in a
 * Chinese browser (zh-CN, Shanghai), whose screen is photographed (test-results/, and
 * docs/console-zh-analytics.png with UPDATE_CONSOLE_SCREENSHOTS=1).
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { ALL } from "../../src/core/ports/analytics-store";
import { addDays } from "../../src/services/analytics/zoned-days";
import { eventsIn, TODAY, truth } from "../support/analytics-week";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { launchChromium, requireChromium, RESULTS, unique, type Browser, type BrowserLocale } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");

describe("console Analytics screen in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  const browsers: Browser[] = [];
  const requested: string[] = [];
  let first: string;
  let today: string;
  let expected: ReturnType<typeof truth>;

  before(async function () {
    requireChromium(this);
    h = await startHarness({ env: { ANALYTICS_ROLLUP_MINUTES: "0" } });
    const { rollups, store } = h.services.analytics;
    today = rollups.today();
    first = addDays(today, -TODAY);
    await store.append(eventsIn(first, h.config.analytics.timeZone));
    await rollups.rollup(first, today);
    expected = truth(first, ALL, ALL);
  });
  after(async () => {
    for (const browser of browsers) await browser.close();
    await h?.close();
  });

  /** A viewer (a producer) signed in on a browser of that language, the week shown on the screen. */
  async function showWeek(locale: BrowserLocale): Promise<Page> {
    const browser = await launchChromium(locale);
    browsers.push(browser);
    browser.context.on("request", (req) => requested.push(req.url()));
    const viewer = await addOperator(h.config, unique("producer"), "viewer");
    const page = await browser.open(h.baseUrl, "/console");
    await page.fill("#signin-name", viewer.name);
    await page.fill("#signin-password", viewer.password);
    await page.click("#signin-submit");
    await page.fill("#current-password", viewer.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: viewer.name }).waitFor();

    await page.goto(`${h.baseUrl}/console/#/analytics`);
    await page.fill("#analytics-from", first);
    await page.fill("#analytics-to", today);
    await page.click("#analytics-filters button[type=submit]");
    await page.locator("#analytics-zone", { hasText: "Asia/Shanghai" }).waitFor();
    await page.locator("#analytics-daily tbody tr", { hasText: today }).waitFor();
    return page;
  }

  /** The scripted numbers, read from the tables (the same in either language). */
  async function assertScriptedNumbers(page: Page): Promise<void> {
    const dailyRows = await page.locator("#analytics-daily tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(
      dailyRows.map((cells) => [cells[0], Number(cells[1]), Number(cells[4]), Number(cells[5]), cells[6], cells[13], cells[14]]),
      expected.daily.map((d) => [d.date, d.dau, d.newPlayers, d.payingPlayers, ...[d.revenue, d.softSources, d.softSinks].map((sums) => Object.entries(sums).map(([unit, n]) => `${n} ${unit}`).join(", ") || "0")]),
    );
    const cohortRows = await page.locator("#analytics-retention tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(
      cohortRows.map((cells) => [cells[0], Number(cells[1]), ...cells.slice(2).map((c) => (c === "—" ? null : Number(c!.split(" ")[0])))]),
      expected.retention.map((c) => [c.date, c.size, c.retained.d1, c.retained.d3, c.retained.d7, c.retained.d14, c.retained.d30]),
    );
    assert.equal(await page.locator("#analytics-charts svg").count(), 4);
    assert.ok((await page.locator("#analytics-charts svg polyline").count()) >= 4);
    const shaded = await page.locator("#analytics-retention tbody td").evaluateAll((cells) => cells.filter((td) => (td as unknown as { style: { backgroundColor: string } }).style.backgroundColor !== "").length);
    assert.ok(shaded > 0, "retention cells are shaded by value");
  }

  const headers = (page: Page, id: string) => page.locator(`${id} thead th`).allTextContents();
  const charts = (page: Page) => page.locator("#analytics-charts svg").evaluateAll((svgs) => svgs.map((s) => s.getAttribute("aria-label")));

  it("shows the scripted week's daily numbers and retention, with charts", async () => {
    const page = await showWeek({ locale: "en-US" });
    await assertScriptedNumbers(page);
    assert.deepEqual((await headers(page, "#analytics-daily")).slice(0, 7), ["Day", "DAU", "WAU", "MAU", "New players", "Paying players", "Revenue"]);
    assert.deepEqual(await charts(page), ["Daily active players (DAU)", "New players", "Revenue", "Rewarded ad views"]);
    // The example experiment has not started: its variants, no players, and the plain warning.
    await page.fill("#experiment-id", "example-reward");
    await page.click("#experiment-form button[type=submit]");
    await page.locator("#experiment-verdict").waitFor();
    assert.match((await page.textContent("#experiment-verdict")) ?? "", /^Not enough data yet: each variant needs at least 100 players/);
    // Said as not started, not as a window from its start (2099) back to today.
    assert.match((await page.textContent("#experiment-window")) ?? "", /^The experiment has not started yet: it starts .*2099/);
    const variants = await page.locator("#analytics-experiment tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)));
    assert.deepEqual(variants, [["control", "0", "0"], ["double", "0", "0"]]);
    await page.close();
  });

  it("in a Chinese browser: every label in Chinese, the same numbers, photographed", async () => {
    const page = await showWeek({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
    assert.equal(await page.textContent('nav button[data-screen="analytics"]'), "数据分析");
    await assertScriptedNumbers(page);
    assert.deepEqual(await page.locator("main h2").allTextContents(), ["筛选", "每日数据", "留存队列（按首次登录日）", "实验结果"]);
    assert.deepEqual(await page.locator("#analytics-filters label").evaluateAll((labels) => labels.map((l) => l.firstChild?.textContent)), ["应用（留空为全部）", "平台", "开始日期", "结束日期"]);
    assert.equal(await page.textContent("#analytics-filters legend"), "日期范围");
    assert.equal(await page.textContent("#analytics-filters button[type=submit]"), "查询");
    assert.equal(await page.locator("#analytics-platform option:checked").textContent(), "全部平台");
    assert.deepEqual(await headers(page, "#analytics-daily"), [
      "日期", "日活跃 DAU", "周活跃 WAU", "月活跃 MAU", "新增玩家", "付费玩家", "收入", "人均收入 ARPDAU", "付费用户人均 ARPPU", "付费率", "广告观看", "游戏场次", "平均时长", "货币产出", "货币消耗",
    ]);
    assert.deepEqual(await headers(page, "#analytics-retention"), ["首次登录日", "新增人数", "次日留存 D1", "3日留存 D3", "7日留存 D7", "14日留存 D14", "30日留存 D30"]);
    assert.deepEqual(await charts(page), ["日活跃用户 DAU", "新增玩家", "收入", "激励广告观看次数"]);
    assert.deepEqual(await page.locator("#analytics-daily button, #analytics-retention button").allTextContents(), ["导出 CSV", "导出 CSV"]);
    await page.fill("#experiment-id", "example-reward");
    await page.click("#experiment-form button[type=submit]");
    await page.locator("#experiment-verdict").waitFor();
    assert.match((await page.textContent("#experiment-verdict")) ?? "", /^数据还不够/);
    assert.match((await page.textContent("#experiment-window")) ?? "", /^实验尚未开始：将于 .*2099/);
    assert.deepEqual(await headers(page, "#analytics-experiment"), ["实验组", "玩家数", "付费玩家", "付费率（区间）", "次日回访率（区间）", "第 7 日回访率（区间）", "人均收入（区间）"]);
    assert.match((await page.textContent("#analytics-zone")) ?? "", /^每天按 Asia\/Shanghai 时间/);
    // Durations read as minutes and seconds: day 5's two sessions of 300 s and 101 s average 201 s.
    const day5 = page.locator("#analytics-daily tbody tr", { hasText: addDays(first, 5) });
    assert.equal(await day5.locator("td").nth(12).textContent(), "3 分 21 秒");
    const day0 = page.locator("#analytics-daily tbody tr", { hasText: first });
    assert.equal(await day0.locator("td").nth(12).textContent(), "—", "no sessions: no average");
    const english = /Filters|Daily|Retention|Download|Revenue|Day\b/;
    assert.doesNotMatch((await page.textContent("main")) ?? "", english);
    await page.screenshot({ path: path.join(RESULTS, "console-zh-analytics.png"), fullPage: true });
    if (process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-analytics.png"), fullPage: true });
    await page.close();
  });

  it("loaded nothing from another host and raised no script errors", () => {
    assert.deepEqual(requested.filter((url) => !url.startsWith(h.baseUrl) && !url.startsWith("blob:") && !url.startsWith("data:")), []);
    assert.deepEqual(browsers.flatMap((b) => b.pageErrors), []);
  });
});

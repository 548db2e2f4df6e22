/**
 * The console's Analytics screen in a real headless Chromium: the scripted week (test/support/
 * analytics-week.ts), ending today in the studio's time zone, rolled up and shown — every day's
 * DAU, new and paying players and revenue in the daily table, the cohorts' retention, a chart per
 * metric drawn as inline SVG, and nothing loaded from another host.
 */
import assert from "node:assert/strict";
import { ALL } from "../../src/core/ports/analytics-store";
import { addDays } from "../../src/services/analytics/zoned-days";
import { eventsIn, TODAY, truth } from "../support/analytics-week";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { launchChromium, requireChromium, unique, type Browser } from "./chromium";

describe("console Analytics screen in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;
  const requested: string[] = [];

  before(async function () {
    requireChromium(this);
    h = await startHarness({ env: { ANALYTICS_ROLLUP_MINUTES: "0" } });
    browser = await launchChromium();
    browser.context.on("request", (req) => requested.push(req.url()));
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it("shows the scripted week's daily numbers and retention, with charts", async () => {
    const { rollups, store } = h.services.analytics;
    const today = rollups.today();
    const first = addDays(today, -TODAY);
    await store.append(eventsIn(first, h.config.analytics.timeZone));
    await rollups.rollup(first, today);
    const expected = truth(first, ALL, ALL);

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

    const dailyRows = await page.locator("#analytics-daily tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(
      dailyRows.map((cells) => [cells[0], Number(cells[1]), Number(cells[4]), Number(cells[5]), cells[6]]),
      expected.daily.map((d) => [d.date, d.dau, d.newPlayers, d.payingPlayers, Object.entries(d.revenue).map(([unit, n]) => `${n} ${unit}`).join(", ") || "0"]),
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
    assert.deepEqual(requested.filter((url) => !url.startsWith(h.baseUrl) && !url.startsWith("blob:") && !url.startsWith("data:")), []);
  });
});

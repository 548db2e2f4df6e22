/**
 * The console's LiveOps screen in a real headless Chromium: an admin sees the running example
 * definitions (the sale's window in the browser's time), a broken version is refused with every
 * problem listed at once and nothing published, a good one is published after a confirmation naming
 * what changes and is served by GET /api/config; an experiment is started with one button (the
 * player gets a variant) and an older version is rolled back to. Once in a Chinese browser
 * (zh-CN, Shanghai), photographed (test-results/, docs/console-zh-liveops.png with
 * UPDATE_CONSOLE_SCREENSHOTS=1).
 */
import assert from "node:assert/strict";
import path from "node:path";
import type { Page } from "playwright-core";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { launchChromium, requireChromium, RESULTS, unique, type Browser, type BrowserLocale } from "./chromium";

const DOCS = path.resolve(__dirname, "../../docs");

describe("console LiveOps screen in headless Chromium", function () {
  this.timeout(120_000);
  let h: Harness;
  const browsers: Browser[] = [];

  before(async function () {
    requireChromium(this);
    h = await startHarness();
  });
  after(async () => {
    for (const browser of browsers) await browser.close();
    await h?.close();
  });

  async function signedIn(locale: BrowserLocale): Promise<Page> {
    const browser = await launchChromium(locale);
    browsers.push(browser);
    const admin = await addOperator(h.config, unique("producer"), "admin");
    const page = await browser.open(h.baseUrl, "/console");
    await page.fill("#signin-name", admin.name);
    await page.fill("#signin-password", admin.password);
    await page.click("#signin-submit");
    await page.fill("#current-password", admin.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: admin.name }).waitFor();
    await page.goto(`${h.baseUrl}/console/#/liveops`);
    await page.locator("#liveops-events tbody tr", { hasText: "example-sale" }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nmain: ${await page.textContent("main")}\nstatus: ${await page.textContent("#status")}`);
    });
    return page;
  }

  async function playerConfig(): Promise<{ flags: Record<string, unknown>; experiments: Array<{ experimentId: string; variant: string }>; version: number }> {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("lo")}`);
    const res = await h.get("/api/config", { authorization: `Bearer ${login.body.data.token}` });
    assert.equal(res.status, 200);
    return res.body.data;
  }

  const editDefinitions = async (page: Page, change: (d: any) => void) => {
    const d = JSON.parse(await page.inputValue("#liveops-editor"));
    change(d);
    await page.fill("#liveops-editor", JSON.stringify(d, null, 2));
  };

  it("refuses a broken version with every problem listed, publishes a good one after a confirmation, and /api/config serves it", async () => {
    const page = await signedIn({ locale: "en-US", timezoneId: "Asia/Shanghai" });
    const before = h.services.liveops.current("default").version;
    // The example sale's fixed window, 2099-01-01T00:00Z, in the browser's (Shanghai) time.
    assert.match((await page.locator("#liveops-events tbody tr", { hasText: "example-sale" }).textContent()) ?? "", /2099-01-01 08:00:00 \(UTC\+08:00\).*upcoming/);

    await editDefinitions(page, (d) => {
      d.flags[0].default = 42;
      d.events[0].prices.nothing = { coins: 1 };
      d.experiments[0].audienceId = "nobody";
    });
    await page.click("#liveops-publish");
    await page.locator("#liveops-problems li").first().waitFor({ timeout: 10_000 }).catch(async (err) => {
      throw new Error(`${err.message}\ncheck: ${await page.textContent("#liveops-check-result")}\nstatus: ${await page.textContent("#status")}\nerrors: ${browsers.flatMap((b) => b.pageErrors)}\nhtml: ${await page.innerHTML("#liveops-publish")}`);
    });
    const problems = await page.locator("#liveops-problems li").allTextContents();
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.ok(problems.some((p) => p.includes("welcome_text") && p.includes("changes type")));
    assert.ok(problems.some((p) => p.includes("prices.nothing") && p.includes("unknown item")));
    assert.ok(problems.some((p) => p.includes('unknown audience "nobody"')));
    assert.match((await page.textContent("#liveops-check-result")) ?? "", /3 problem\(s\); nothing was published/);
    assert.equal(await page.locator("#confirm-dialog").count(), 0, "no confirmation for a refused version");
    assert.equal(h.services.liveops.current("default").version, before);

    await page.click("#liveops-pick button[type=submit]");
    await page.locator("#liveops-flags tbody tr", { hasText: "welcome_text" }).waitFor();
    await editDefinitions(page, (d) => (d.flags[0].default = "Spring is here!"));
    await page.click("#liveops-publish");
    const confirm = (await page.locator("#confirm-text").textContent()) ?? "";
    assert.match(confirm, new RegExp(`app default as version ${before + 1} \\(now ${before}\\)`));
    assert.match(confirm, /Flags changed: welcome_text\./);
    await page.click("#confirm-ok");
    await page.locator("#liveops-version", { hasText: `Version ${before + 1} in use` }).waitFor();
    assert.equal((await playerConfig()).flags.welcome_text, "Spring is here!");

    // Start the example experiment: a new player is given a variant.
    await page.click('button[data-experiment="example-reward"]');
    assert.match((await page.locator("#confirm-text").textContent()) ?? "", /Start experiment example-reward of app default now/);
    await page.click("#confirm-ok");
    await page.locator("#liveops-version", { hasText: `Version ${before + 2} in use` }).waitFor();
    assert.equal(await page.locator("#liveops-experiments .experiment-status").textContent(), "running");
    const inExperiment = await playerConfig();
    assert.deepEqual(inExperiment.experiments.map((e) => e.experimentId), ["example-reward"]);

    // Roll back to the version before the experiment: the experiment no longer runs.
    await page.click(`button[data-rollback="${before + 1}"]`);
    assert.match((await page.locator("#confirm-text").textContent()) ?? "", new RegExp(`version ${before + 1}'s definitions of app default again as version ${before + 3}`));
    await page.click("#confirm-ok");
    await page.locator("#liveops-version", { hasText: `Version ${before + 3} in use` }).waitFor();
    const after = await playerConfig();
    assert.deepEqual([after.version, after.flags.welcome_text, after.experiments], [before + 3, "Spring is here!", []]);
    await page.close();
  });

  it("in a Chinese browser: the screen's labels in Chinese, photographed", async () => {
    const page = await signedIn({ locale: "zh-CN", timezoneId: "Asia/Shanghai" });
    assert.equal(await page.textContent('nav button[data-screen="liveops"]'), "运营配置");
    assert.deepEqual(await page.locator("main h2").allTextContents(), ["功能开关", "受众", "实验", "限时活动", "发布新版本", "历史版本"]);
    assert.match((await page.textContent("#liveops-zone")) ?? "", /^排期按 Asia\/Shanghai 时间执行/);
    assert.doesNotMatch((await page.textContent("main")) ?? "", /Flags|Audiences|Experiments|Live events|History|upcoming/);
    await page.screenshot({ path: path.join(RESULTS, "console-zh-liveops.png"), fullPage: true });
    if (process.env.UPDATE_CONSOLE_SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, "console-zh-liveops.png"), fullPage: true });
    await page.close();
  });

  it("raised no script errors", () => {
    assert.deepEqual(browsers.flatMap((b) => b.pageErrors), []);
  });
});

/**
 * Operators in the console, in headless Chromium (issue 49): an admin adds an operator, the QR code
 * shown is read back from the page's pixels and holds the otpauth link, a code from it confirms the
 * enrolment, then the new operator signs in with a TOTP code computed here; a reset asks first,
 * naming its effect. Chinese texts on the same screen.
 */
import assert from "node:assert/strict";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { totpAt } from "../../src/services/console/totp";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, OPERATOR_PASSWORD } from "../support/console";
import { launchChromium, requireChromium, unique, type Browser } from "./chromium";

describe("operators added and enrolled in the console (Chromium)", function () {
  this.timeout(120_000);
  let h: Harness;
  let browser: Browser;

  before(async function () {
    requireChromium(this);
    const simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator });
    browser = await launchChromium();
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

  /** The text of the QR code the page shows, read from the image's pixels as a camera would. */
  async function readQr(page: Page): Promise<string | undefined> {
    // Browser objects, typed loosely: the tests compile without the DOM library.
    const image = await page.locator("img.totp-qr").evaluate(async (img: any) => {
      await img.decode();
      const canvas = (globalThis as any).document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(img, 0, 0);
      return { width: canvas.width, height: canvas.height, data: Array.from(ctx.getImageData(0, 0, canvas.width, canvas.height).data as ArrayLike<number>) };
    });
    return jsQR(Uint8ClampedArray.from(image.data as number[]), image.width as number, image.height as number)?.data;
  }

  it("adds an operator, shows its QR code, confirms a code and the operator signs in with TOTP", async () => {
    const admin = await addOperator(h.config, unique("boss"), "admin");
    const page = await browser.open(h.baseUrl, "/console");
    await signIn(page, admin.name, admin.password);
    await page.fill("#current-password", admin.password);
    await page.fill("#new-password", OPERATOR_PASSWORD);
    await page.fill("#repeat-password", OPERATOR_PASSWORD);
    await page.click("#password-form button[type=submit]");
    await page.locator("#operator", { hasText: `${admin.name} (admin)` }).waitFor();
    await page.click('nav button[data-screen="operators"]');

    const name = unique("fay");
    await page.fill("#operator-add input[name=name]", name);
    await page.selectOption("#operator-add select[name=role]", "support");
    await page.click("#operator-add button[type=submit]");
    await page.locator("#operator-credentials img.totp-qr").waitFor();
    const uri = (await page.textContent("#operator-credentials .totp-uri"))!;
    assert.match(uri, /^otpauth:\/\/totp\/.*secret=/);
    assert.equal(await readQr(page), uri, "the QR code on screen holds the otpauth link");
    const password = (await page.textContent("#operator-credentials .one-time-password"))!;
    const secret = new URL(uri).searchParams.get("secret")!;

    await page.fill("#operator-credentials input[name=code]", "000000" === totpAt(secret, Date.now()) ? "111111" : "000000");
    await page.click("#operator-credentials form button[type=submit]");
    await page.locator("#operator-credentials .result.error").waitFor();
    assert.equal(await page.locator("#operator-credentials .enrol-outcome").textContent(), "");
    await page.fill("#operator-credentials input[name=code]", totpAt(secret, Date.now()));
    await page.click("#operator-credentials form button[type=submit]");
    await page.locator("#operator-credentials .enrol-outcome", { hasText: "Confirmed" }).waitFor();

    await page.getByRole("button", { name: `Reset password ${admin.name}` }).waitFor();
    await page.getByRole("button", { name: `Reset password ${name}` }).click();
    assert.match((await page.textContent("#confirm-text"))!, new RegExp(`${name}.*sessions end`));
    await page.click("#confirm-cancel");

    // Another browser: the admin's cookie stays in the first.
    const other = await launchChromium();
    try {
      const fay = await other.open(h.baseUrl, "/console");
      // The confirming code is spent; the next step's code signs in.
      await signIn(fay, name, password, totpAt(secret, Date.now() + 30_000));
      await fay.fill("#current-password", password);
      await fay.fill("#new-password", OPERATOR_PASSWORD);
      await fay.fill("#repeat-password", OPERATOR_PASSWORD);
      await fay.click("#password-form button[type=submit]");
      await fay.locator("#operator", { hasText: `${name} (` }).waitFor();
      assert.equal(await fay.locator('nav button[data-screen="operators"]').count(), 0, "no operators screen for support");
    } finally {
      await other.close();
    }
  });

  it("speaks Chinese on the operators screen", async () => {
    const admin = await addOperator(h.config, unique("zhu"), "admin");
    const zh = await launchChromium({ locale: "zh-CN" });
    try {
      const page = await zh.open(h.baseUrl, "/console");
      await signIn(page, admin.name, admin.password);
      await page.fill("#current-password", admin.password);
      await page.fill("#new-password", OPERATOR_PASSWORD);
      await page.fill("#repeat-password", OPERATOR_PASSWORD);
      await page.click("#password-form button[type=submit]");
      await page.locator("#operator", { hasText: admin.name }).waitFor();
      await page.click('nav button[data-screen="operators"]');
      await page.locator("#operator-add", { hasText: "新增操作员" }).waitFor();
      await page.fill("#operator-add input[name=name]", unique("li"));
      await page.click("#operator-add button[type=submit]");
      await page.locator("#operator-credentials", { hasText: "一次性密码" }).waitFor();
      await page.locator("#operator-credentials", { hasText: "扫描此二维码" }).waitFor();
    } finally {
      await zh.close();
    }
  });
});

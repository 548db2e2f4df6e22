/**
 * Debian's Chromium for the browser suites (apt-get install -y chromium): each suite skips without it
 * (fails under CI), and gets a headless browser on a fresh profile and a page opener that collects
 * the pages' script errors.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { declareBackend } from "../support/backend-report";

export const CHROMIUM = "/usr/bin/chromium";
export const RESULTS = path.resolve(__dirname, "../../test-results");
declareBackend({
  name: "headless Chromium",
  titles: /headless Chromium/,
  skipReason: fs.existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install -y chromium)`,
});
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** In a `before`: skips the suite where Chromium is missing, except under CI, where that is a failure. */
export function requireChromium(context: Mocha.Context): void {
  if (fs.existsSync(CHROMIUM)) return;
  const message = `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping the browser suite: ${message}`);
  context.skip();
}

export interface Browser {
  context: BrowserContext;
  /** Script errors of every page opened, as "path: message". */
  pageErrors: string[];
  open(baseUrl: string, pathname: string): Promise<Page>;
  close(): Promise<void>;
}

/** The browser's language and time zone (a console operator in Shanghai: { locale: "zh-CN", timezoneId: "Asia/Shanghai" }). */
export interface BrowserLocale {
  locale?: string;
  timezoneId?: string;
}

export async function launchChromium({ locale = "en-US", timezoneId }: BrowserLocale = {}): Promise<Browser> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-chromium-"));
  // A persistent context is how Playwright takes a user-data-dir of our choosing (a fresh one).
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    locale,
    timezoneId,
  });
  const pageErrors: string[] = [];
  return {
    context,
    pageErrors,
    open: async (baseUrl, pathname) => {
      const page = await context.newPage();
      page.on("pageerror", (err) => pageErrors.push(`${pathname}: ${err.message}`));
      await page.goto(baseUrl + pathname);
      return page;
    },
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { checkSettings, formatCheck } from "../../src/ops/settings-check";
import { loadSimulatorConfig } from "../../src/config/simulator-config";

const STRONG = "k".repeat(20) + "Q9v!xZ2#mB7@pL4$wR";
const production = {
  NODE_ENV: "production",
  JWT_SECRET: STRONG,
  WECHAT_APP_ID: "wx123",
  WECHAT_APP_SECRET: "s3cr3t-wechat-value",
  DOUYIN_APP_ID: "tt123",
  DOUYIN_APP_SECRET: "s3cr3t-douyin-value",
  ACCESS_TOKEN_ROUTE_KEY: "0123456789abcdef0123",
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-config-"));
let files = 0;
/** Writes an APPS_FILE (text as given, or JSON) and returns its path. */
function appsFile(content: unknown): string {
  const file = path.join(dir, `apps-${files++}.json`);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail("expected a ConfigError");
}

const puzzle = { key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-wechat-secret-value" } };

describe("config: apps (APPS_FILE)", () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("without APPS_FILE serves one app, default, from the platform settings, linked by unionid", () => {
    const c = parseConfig(production);
    assert.deepEqual(c.apps.map((a) => a.key), ["default"]);
    assert.equal(c.apps[0].platforms, c.platforms, "the default app is exactly the platform settings");
    assert.equal(c.linkAppsByUnionid, true);
  });

  it("adds the file's apps after default, with the platform's base URL and extra settings unless the entry names a URL", () => {
    const file = appsFile({
      apps: [puzzle, { key: "racing", douyin: { appId: "tt_racing", appSecret: "racing-douyin-secret", apiBaseUrl: "https://douyin.proxy.example.com/" } }],
    });
    const c = parseConfig({ ...production, APPS_FILE: file, LINK_APPS_BY_UNIONID: "false" });
    assert.deepEqual(c.apps.map((a) => a.key), ["default", "puzzle", "racing"]);
    assert.deepEqual(c.apps[1].platforms.wechat, { appId: "wx_puzzle", appSecret: "puzzle-wechat-secret-value", apiBaseUrl: "https://api.weixin.qq.com", extra: { tokenApi: "stable", gameChatCheck: true } });
    assert.equal(c.apps[2].platforms.douyin.apiBaseUrl, "https://douyin.proxy.example.com");
    assert.deepEqual(Object.keys(c.apps[2].platforms), ["douyin"]);
    assert.equal(c.linkAppsByUnionid, false);
  });

  it("refuses production with a WeChat gift-push Token and no EncodingAESKey, for the default app and a file's app", () => {
    const aesKey = "A".repeat(43);
    assert.ok(problemsOf({ ...production, WECHAT_GIFT_PUSH_TOKEN: "gift-push-token-value" }).some((p) => p.startsWith("WECHAT_GIFT_PUSH_AES_KEY: ") && p.includes("safe mode")));
    assert.doesNotThrow(() => parseConfig({ ...production, WECHAT_GIFT_PUSH_TOKEN: "gift-push-token-value", WECHAT_GIFT_PUSH_AES_KEY: aesKey }));
    // The payment push's Token alone does not turn gift pushes on (they borrow its Token only with its EncodingAESKey).
    assert.doesNotThrow(() => parseConfig({ ...production, WECHAT_PUSH_TOKEN: "payment-push-token-value" }));
    const gifted = (payments: Record<string, string>) => appsFile({ apps: [{ ...puzzle, wechat: { ...puzzle.wechat, payments } }] });
    const problems = problemsOf({ ...production, APPS_FILE: gifted({ giftPushToken: "puzzle-gift-token" }) });
    assert.ok(problems.some((p) => p.startsWith("APPS_FILE: puzzle.wechat.payments.giftPushAesKey: required in production")), problems.join("\n"));
    assert.doesNotThrow(() => parseConfig({ ...production, APPS_FILE: gifted({ giftPushToken: "puzzle-gift-token", giftPushAesKey: aesKey }) }));
    // Outside production the server starts; every such gift push is refused (plain_mode).
    assert.doesNotThrow(() => parseConfig({ WECHAT_GIFT_PUSH_TOKEN: "gift-push-token-value" }));
  });

  it("names a missing file and malformed JSON", () => {
    assert.match(problemsOf({ ...production, APPS_FILE: path.join(dir, "nope.json") }).join("\n"), /^APPS_FILE: cannot read .*nope\.json: ENOENT/m);
    assert.match(problemsOf({ ...production, APPS_FILE: appsFile("{apps: [") }).join("\n"), /^APPS_FILE: .* is not valid JSON/m);
  });

  it("reports every problem of the file at once, each with where it is", () => {
    const file = appsFile({
      apps: [
        { key: "Bad Key!", wechat: { appId: "wx_a", appSecret: "a-secret" } },
        { key: "b", wechat: { appId: "", appSecret: "b-secret" }, tiktok: { appId: "x", appSecret: "y" } },
        { key: "c" },
        { key: "d", douyin: { appId: "tt_d", appSecret: "d-secret", extra: 1 } },
      ],
    });
    const problems = problemsOf({ ...production, APPS_FILE: file });
    assert.equal(problems.length, 1, "one line per setting");
    const [line] = problems;
    assert.match(line, /^APPS_FILE: /);
    // Every app and every field at once, not stage by stage: the bad key does not hide the others.
    assert.match(line, /apps\[0\]\.key: must be 1–32/);
    assert.match(line, /apps\[1\]\.wechat\.appId: is required/);
    assert.match(line, /apps\[1\]\.tiktok: unknown platform \(registered: wechat, douyin, qq, kuaishou\)/);
    assert.match(line, /apps\[2\]: names no platform/);
    assert.match(line, /apps\[3\]\.douyin: Unrecognized key: "extra"/);
  });

  it("refuses a duplicate key, the reserved key default, and an app id already served on that platform", () => {
    const file = appsFile({
      apps: [
        puzzle,
        { key: "puzzle", douyin: { appId: "tt_p", appSecret: "p-secret" } },
        { key: "default", douyin: { appId: "tt_x", appSecret: "x-secret" } },
        { key: "copy", wechat: { appId: "wx_puzzle", appSecret: "other-secret" } },
        { key: "clash", wechat: { appId: "wx123", appSecret: "other-secret" } },
      ],
    });
    const [line] = problemsOf({ ...production, APPS_FILE: file });
    assert.match(line, /app key "puzzle" is listed twice/);
    assert.match(line, /app key "default" is reserved/);
    assert.match(line, /copy\.wechat: app id wx_puzzle is already the app id of "puzzle"/);
    assert.match(line, /clash\.wechat: app id wx123 is already the app id of "default"/);
  });

  it("reports the file's problems and those that need the other settings in one message", () => {
    const file = appsFile({
      apps: [
        { key: "Bad Key!", wechat: { appId: "wx_a", appSecret: "a-secret" } },
        { key: "q", qq: { appId: "1101", appSecret: "qq-secret-value" } },
        { key: "clash", wechat: { appId: "wx123", appSecret: "other-secret" } },
      ],
    });
    const [line] = problemsOf({ ...production, APPS_FILE: file });
    assert.match(line, /apps\[0\]\.key: must be 1–32/);
    assert.match(line, /q\.qq: qq is not served \(PLATFORMS\)/);
    assert.match(line, /clash\.wechat: app id wx123 is already the app id of "default"/);
  });

  it("refuses an app on a platform this server does not serve", () => {
    const file = appsFile({ apps: [{ key: "q", qq: { appId: "1101", appSecret: "qq-secret-value" } }] });
    assert.match(problemsOf({ ...production, APPS_FILE: file }).join("\n"), /APPS_FILE: q\.qq: qq is not served \(PLATFORMS\)/);
  });

  it("refuses a placeholder app secret in production, and never shows a secret in a problem", () => {
    const file = appsFile({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "change-me" } }] });
    const problems = problemsOf({ ...production, APPS_FILE: file });
    assert.match(problems.join("\n"), /APPS_FILE: puzzle\.wechat: appSecret is still a placeholder/);
    assert.ok(!problems.join("\n").includes("change-me"));
    assert.doesNotThrow(() => parseConfig({ NODE_ENV: "development", APPS_FILE: file }), "development accepts it");
  });

  it("config:check lists the apps with their app ids, never their secrets", () => {
    const settingsDir = fs.mkdtempSync(path.join(dir, "settings-"));
    const file = appsFile({ apps: [puzzle] });
    const check = checkSettings({ ...production, INSTANCES: "1", APPS_FILE: file }, settingsDir);
    assert.ok(check.ok, check.ok ? "" : check.problems.join("; "));
    const text = formatCheck(check);
    assert.match(text, /apps: default \(wechat wx123, payments off; douyin tt123, payments off\) \| puzzle \(wechat wx_puzzle, payments off\)/);
    assert.ok(!text.includes("puzzle-wechat-secret-value"));
  });

  it("the standalone simulator accepts a studio's apps from SIMULATOR_APPS", () => {
    assert.deepEqual(loadSimulatorConfig({ SIMULATOR_APPS: "wechat:wx_a:secret-a, douyin:tt_b:secret-b" }).apps, [
      { platform: "wechat", appId: "wx_a", appSecret: "secret-a" },
      { platform: "douyin", appId: "tt_b", appSecret: "secret-b" },
    ]);
    assert.throws(() => loadSimulatorConfig({ SIMULATOR_APPS: "wechat:wx_a" }), /SIMULATOR_APPS.*platform:appId:secret/);
  });
});

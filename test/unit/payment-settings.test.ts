/** The payment settings: off until an app's keys are set, per app from APPS_FILE, and what production refuses. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { appPayments } from "../../src/config/settings/payments";

const base = { NODE_ENV: "test", PLATFORM_SIMULATOR: "off", PLATFORMS: "wechat,douyin", WECHAT_APP_ID: "wx1", WECHAT_APP_SECRET: "s1", DOUYIN_APP_ID: "tt1", DOUYIN_APP_SECRET: "s2" };

describe("payment settings", () => {
  it("leave payments off until the keys the env needs are set", () => {
    const config = parseConfig(base);
    assert.equal(appPayments("wechat", config.payments.defaultApp.wechat).wallet, undefined);
    assert.equal(appPayments("douyin", config.payments.defaultApp.douyin).wallet, undefined);
    const sandbox = parseConfig({ ...base, WECHAT_PAY_OFFER_ID: "offer", WECHAT_PAY_SANDBOX_APP_KEY: "sk" });
    assert.deepEqual(appPayments("wechat", sandbox.payments.defaultApp.wechat).wallet, { offerId: "offer", zoneId: "1", env: 1, appKey: "", sandboxAppKey: "sk" });
    const liveWithoutLiveKey = parseConfig({ ...base, WECHAT_PAY_ENV: "live", WECHAT_PAY_OFFER_ID: "offer", WECHAT_PAY_SANDBOX_APP_KEY: "sk" });
    assert.equal(appPayments("wechat", liveWithoutLiveKey.payments.defaultApp.wechat).wallet, undefined);
    assert.equal(appPayments("wechat", sandbox.payments.defaultApp.wechat).push, undefined, "no push without its Token");
  });

  it("read another app's keys from its APPS_FILE entry", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-")), "apps.json");
    fs.writeFileSync(file, JSON.stringify({ apps: [{ key: "puzzle", wechat: { appId: "wx2", appSecret: "s3", payments: { env: "live", offerId: "o2", appKey: "k2", pushToken: "t2" } } }] }));
    const config = parseConfig({ ...base, APPS_FILE: file });
    const puzzle = config.apps.find((a) => a.key === "puzzle")!;
    const wechat = appPayments("wechat", puzzle.payments!.wechat);
    assert.deepEqual(wechat.wallet, { offerId: "o2", zoneId: "1", env: 0, appKey: "k2", sandboxAppKey: "" });
    assert.deepEqual(wechat.push, { token: "t2", encodingAesKey: undefined });
  });

  it("refuse the test-only crash point and placeholder keys in production", () => {
    assert.throws(
      () => parseConfig({ ...base, NODE_ENV: "production", PAYMENT_CRASH_POINT: "after_paid", WECHAT_PAY_APP_KEY: "change-me-later" }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /PAYMENT_CRASH_POINT: is for fault tests only/);
        assert.match(err.message, /WECHAT_PAY_APP_KEY/);
        return true;
      },
    );
    assert.equal(parseConfig({ ...base, PAYMENT_CRASH_POINT: "after_paid" }).payments.crashPoint, "after_paid");
  });
});

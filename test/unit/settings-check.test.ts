/**
 * `npm run config:check` (and start:prod's first step) catches what would break or weaken a start:
 * a misspelt name in a settings file (with the name meant), the session key sent to clients in
 * production without a confirmation, and a summary that says per app which platforms and whether
 * payments are on.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { checkSettings, formatCheck } from "../../src/ops/settings-check";
import { nearestSettingName } from "../../src/ops/settings-vocabulary";

const STRONG = "k".repeat(20) + "Q9v!xZ2#mB7@pL4$wR";
const production = {
  NODE_ENV: "production",
  INSTANCES: "1",
  JWT_SECRET: STRONG,
  WECHAT_APP_ID: "wx123",
  WECHAT_APP_SECRET: "s3cr3t-wechat-value",
  DOUYIN_APP_ID: "tt123",
  DOUYIN_APP_SECRET: "s3cr3t-douyin-value",
  ACCESS_TOKEN_ROUTE_KEY: "0123456789abcdef0123",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
}

describe("config:check: what breaks or weakens a start", () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-settings-check-"));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("refuses an unknown name in a settings file, naming the one meant (REDIS_ULR → REDIS_URL)", () => {
    fs.writeFileSync(path.join(root, "arena.local.env"), "REDIS_ULR=redis://127.0.0.1:6379\nRATE_LIMT_IP_MAX=10\nSOMETHING_ELSE_ENTIRELY=1\nPORT=2567\n");
    const check = checkSettings(production, root);
    assert.equal(check.ok, false);
    const text = formatCheck(check);
    assert.match(text, /arena\.local\.env: REDIS_ULR is not a setting \(did you mean REDIS_URL\?\)/);
    assert.match(text, /arena\.local\.env: RATE_LIMT_IP_MAX is not a setting \(did you mean RATE_LIMIT_IP_MAX\?\)/);
    assert.match(text, /arena\.local\.env: SOMETHING_ELSE_ENTIRELY is not a setting \(see arena\.env for every setting\)/);
    assert.doesNotMatch(text, /PORT is not/);
  });

  it("the shipped arena.env has no unknown name", () => {
    const check = checkSettings(production, path.resolve(__dirname, "../.."));
    const unknown = check.ok ? [] : check.problems.filter((p) => p.includes("is not a setting"));
    assert.deepEqual(unknown, []);
    assert.equal(nearestSettingName("redis_url"), "REDIS_URL");
  });

  it("production leaves session_key out by default and refuses EXPOSE_SESSION_KEY=true unless confirmed", () => {
    assert.equal(parseConfig(production).exposeSessionKey, false, "production default");
    assert.equal(parseConfig({ NODE_ENV: "development" }).exposeSessionKey, true, "development default");
    assert.match(problemsOf({ ...production, EXPOSE_SESSION_KEY: "true" }).join("\n"), /^EXPOSE_SESSION_KEY: .*EXPOSE_SESSION_KEY_CONFIRMED=true/m);
    assert.equal(parseConfig({ ...production, EXPOSE_SESSION_KEY: "true", EXPOSE_SESSION_KEY_CONFIRMED: "true" }).exposeSessionKey, true);
    assert.equal(parseConfig({ ...production, EXPOSE_SESSION_KEY: "false" }).exposeSessionKey, false);
  });

  it("the summary says per app which platforms it is on and whether payments are on", () => {
    const check = checkSettings({ ...production, WECHAT_PAY_ENV: "live", WECHAT_PAY_OFFER_ID: "1450000001", WECHAT_PAY_APP_KEY: "a-real-looking-app-key-value" }, root);
    assert.ok(check.ok, check.ok ? "" : check.problems.join("; "));
    assert.match(check.summary, /apps: default \(wechat wx123, payments on; douyin tt123, payments off\)/);
  });
});

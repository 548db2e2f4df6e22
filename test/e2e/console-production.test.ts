/**
 * The console's switches and production rules: on by default outside production, off in production
 * unless CONSOLE_ENABLED=true, which then needs TRUST_PROXY (HTTPS behind the proxy) and an operator
 * who can sign in; over plain HTTP it refuses, admins need TOTP, and the cookie is Secure.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient } from "../support/console";

const STRONG = "a-very-strong-production-jwt-secret-0123456789";
const CONSOLE_KEY = "a-strong-console-key-for-totp-seeds-0123456789";
const production = {
  NODE_ENV: "production",
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

describe("console settings and production rules", function () {
  this.timeout(60_000);

  it("is on by default in development, off in production unless asked for, and then needs TRUST_PROXY", () => {
    assert.equal(parseConfig({}).console.enabled, true);
    assert.equal(parseConfig(production).console.enabled, false);
    assert.ok(problemsOf({ ...production, CONSOLE_ENABLED: "true" }).some((p) => p.startsWith("TRUST_PROXY")));
    assert.ok(problemsOf({ ...production, CONSOLE_ENABLED: "true", TRUST_PROXY: "loopback", CONSOLE_SESSION_TTL_SEC: "86400" }).some((p) => p.startsWith("CONSOLE_SESSION_TTL_SEC")));
    const enabled = { ...production, CONSOLE_ENABLED: "true", TRUST_PROXY: "loopback" };
    assert.ok(problemsOf(enabled).some((p) => p.startsWith("CONSOLE_SECRET_KEY")), "the TOTP seeds' key is required");
    for (const weak of ["short-key", "change-me-change-me-change-me-change-me", STRONG]) {
      assert.ok(problemsOf({ ...enabled, CONSOLE_SECRET_KEY: weak }).some((p) => p.startsWith("CONSOLE_SECRET_KEY")), weak);
    }
    assert.deepEqual(problemsOf({ ...production, CONSOLE_SECRET_KEY: "short-key" }), [], "only with the console on");
    const on = parseConfig({ ...enabled, CONSOLE_SECRET_KEY: CONSOLE_KEY });
    assert.equal(on.console.enabled, true);
    assert.equal(on.console.idleTimeoutSec, 1800);
  });

  it("CONSOLE_ENABLED=false serves no /console", async () => {
    const h = await startHarness({ env: { CONSOLE_ENABLED: "false" } });
    try {
      assert.equal((await h.get("/console")).status, 404);
      const api = await h.get("/console/api/session");
      assert.equal(api.status, 404);
      assert.equal(api.body.data.code, "route_not_found");
    } finally {
      await h.close();
    }
  });

  describe("in production", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-console-prod-"));
    const env = { NODE_ENV: "production", CONSOLE_ENABLED: "true", TRUST_PROXY: "loopback", ACCESS_TOKEN_ROUTE_KEY: "0123456789abcdef0123", CONSOLE_SECRET_KEY: CONSOLE_KEY, SQLITE_PATH: path.join(dir, "users.sqlite") };
    let h: Harness | undefined;
    after(async () => {
      await h?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("refuses to start without an operator, then signs in over HTTPS only with a Secure cookie and TOTP for admins", async () => {
      await assert.rejects(startHarness({ env }), /no operator can sign in/);
      // Written as the CLI would on the server's settings: the seeds under the same key.
      const seedKeys = parseConfig({ JWT_SECRET: TEST_JWT_SECRET, CONSOLE_SECRET_KEY: CONSOLE_KEY }).consoleSeedKeys;
      const store = { store: { kind: "sqlite" as const, path: env.SQLITE_PATH, synchronous: "FULL" as const }, consoleSeedKeys: seedKeys };
      const support = await addOperator(store, "prod-support", "support", { production: true });
      const admin = await addOperator(store, "prod-admin", "admin", { production: true });
      assert.ok(admin.totpSecret, "an admin gets a second factor in production");
      assert.equal(support.totpSecret, undefined);
      h = await startHarness({ env });
      const https = { "x-forwarded-proto": "https" };

      const plain = new ConsoleClient(h.baseUrl);
      const refused = await plain.call("POST", "/session", { name: support.name, password: support.password });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.data.code, "console_https_required");

      const client = new ConsoleClient(h.baseUrl);
      const signedIn = await client.call("POST", "/session", { name: support.name, password: support.password }, { headers: https });
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
      const cookie = signedIn.headers.get("set-cookie") ?? "";
      for (const flag of ["HttpOnly", "SameSite=Strict", "Secure"]) assert.ok(cookie.includes(flag), `${flag} in ${cookie}`);

      const adminClient = new ConsoleClient(h.baseUrl);
      const noCode = await adminClient.call("POST", "/session", { name: admin.name, password: admin.password }, { headers: https });
      assert.equal(noCode.body.data.code, "console_totp_required");
      const withCode = await adminClient.call("POST", "/session", { name: admin.name, password: admin.password, totp: admin.totp() }, { headers: https });
      assert.equal(withCode.status, 200);
    });
  });
});

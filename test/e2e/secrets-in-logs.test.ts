import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";

describe("logs", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { LOG_LEVEL: "trace" } });
  });
  after(() => h?.close());

  it("never contain session_key, tokens, login codes or app secrets", async () => {
    const code = `logcheck${Date.now()}`;
    const wx = await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
    const dy = await h.get(`/api/minigame/douyin/login?code=${code}dy&anonymous_code=${code}anon`);
    const failed = await h.get(`/api/minigame/wechat/login?jsCode=invalid${code}`);
    assert.equal(wx.status, 200);
    assert.equal(dy.status, 200);
    assert.equal(failed.status, 401);
    const logText = h.logs.join("");
    assert.ok(h.logs.length >= 3, "the login produced log lines");
    assert.ok(logText.includes(wx.body.data.user.id), "logs do identify the user");
    const secrets = [
      wx.body.data.session_key,
      wx.body.data.token,
      wx.body.data.refreshToken,
      dy.body.data.session_key,
      dy.body.data.token,
      code,
      h.config.platforms.wechat.appSecret,
      h.config.platforms.douyin.appSecret,
      h.config.jwt.secret,
    ];
    for (const secret of secrets) assert.ok(!logText.includes(secret), `log leaked ${secret.slice(0, 6)}…`);
  });

  it("logs an expected platform failure once, with the platform's errcode and no stack", async () => {
    const failures = [
      { path: `/api/minigame/wechat/login?jsCode=busy${Date.now()}`, status: 502, code: "platform_unavailable", errcode: -1 },
      { path: `/api/minigame/wechat/login?jsCode=noid${Date.now()}`, status: 502, code: "platform_identity_missing", errcode: undefined },
      { path: `/api/minigame/wechat/login?jsCode=invalid${Date.now()}`, status: 401, code: "platform_code_invalid", errcode: 40029 },
    ];
    for (const failure of failures) {
      const before = h.logs.length;
      const res = await h.get(failure.path);
      assert.deepEqual([res.status, res.body.data.code], [failure.status, failure.code]);
      const requestId = res.headers.get("x-request-id");
      const lines = h.logs.slice(before).filter((line) => line.includes(failure.code));
      assert.equal(lines.length, 1, `one line for ${failure.code}:\n${lines.join("")}`);
      const entry = JSON.parse(lines[0]);
      assert.equal(entry.requestId, requestId);
      assert.equal(entry.platform, "wechat");
      if (failure.errcode !== undefined) assert.equal(entry.errcode, failure.errcode);
      assert.equal(lines[0].includes("[redacted]"), false, lines[0]);
      assert.equal(/"stack"|\n\s+at /.test(lines[0]), false, `no stack: ${lines[0]}`);
    }
  });

  it("omits session_key from the response when EXPOSE_SESSION_KEY=false", async () => {
    const hidden = await startHarness({ env: { EXPOSE_SESSION_KEY: "false" }, simulator: h.simulator });
    try {
      const res = await hidden.get(`/api/minigame/wechat/login?jsCode=hidden${Date.now()}`);
      assert.equal(res.status, 200);
      assert.ok(!("session_key" in res.body.data));
      assert.ok(res.body.data.token);
    } finally {
      await hidden.close();
    }
  });
});

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

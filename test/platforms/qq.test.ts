/** QQ's wire details (platform-apis-2.md §6), beside the registry-driven suites every platform runs. */
import assert from "node:assert/strict";
import { simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { freshPlayer } from "../support/platforms";

const APP = { appid: "qq_simulator_app", secret: "simulator-qq-secret" };

describe("QQ mini-games", () => {
  let sim: RunningSimulator;
  let h: Harness;
  let qqBase: string;
  const qqGet = async (path: string, query: Record<string, string>) => {
    const res = await fetch(`${qqBase}${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: JSON.parse(await res.text()) };
  };

  before(async () => {
    sim = await startSimulator({ port: 0 });
    qqBase = simulatorBaseUrl(sim.url, "qq");
    h = await startHarness({ simulator: sim });
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it("is served under /qq in the simulator, since WeChat owns /sns/jscode2session", async () => {
    assert.equal(qqBase, `${sim.url}/qq`);
    const res = await qqGet("/sns/jscode2session", { ...APP, js_code: `${freshPlayer("wire")}.1`, grant_type: "authorization_code" });
    assert.equal(res.status, 200);
    assert.equal(res.body.errcode, 0);
    assert.match(res.body.openid, /^[0-9A-F]{32}$/);
    assert.match(res.body.unionid, /^UID_[0-9A-F]{32}$/);
    assert.equal(Buffer.from(res.body.session_key, "base64").length, 16);
  });

  it("answers code2Session's errors with QQ's numbers", async () => {
    const login = (js_code: string, app = APP) => qqGet("/sns/jscode2session", { ...app, js_code, grant_type: "authorization_code" });
    assert.equal((await login(`invalid${freshPlayer("x")}`)).body.errcode, 40029);
    assert.equal((await login(`busy${freshPlayer("x")}`)).body.errcode, -1);
    assert.equal((await login(`ratelimited${freshPlayer("x")}`)).body.errcode, 45011);
    assert.equal((await login(freshPlayer("x"), { ...APP, secret: "wrong" })).body.errcode, -101222100);
  });

  it("hands out tokens at /api/getToken with client_credential, rejecting a wrong secret with 40001", async () => {
    const ok = await qqGet("/api/getToken", { ...APP, grant_type: "client_credential" });
    assert.ok(ok.body.access_token);
    assert.equal(ok.body.expires_in, 7200);
    assert.equal((await qqGet("/api/getToken", { ...APP, secret: "wrong", grant_type: "client_credential" })).body.errcode, 40001);
    assert.equal((await qqGet("/api/getToken", { ...APP, grant_type: "authorization_code" })).body.errcode, 40002);
  });

  it("logs in at /api/minigame/qq/login?code=…, answering QQ's fields, and keeps errcode/errmsg on failure", async () => {
    const ok = await h.get(`/api/minigame/qq/login?code=${freshPlayer("alice")}.1`);
    assert.equal(ok.status, 200);
    assert.match(ok.body.data.openid, /^[0-9A-F]{32}$/);
    assert.match(ok.body.data.unionid, /^UID_/);
    assert.equal(ok.body.data.errcode, 0);
    assert.match(ok.body.data.user.username, /^mg_qq_[a-z0-9]+$/);
    assert.equal(ok.body.data.user.openid, ok.body.data.openid);

    const refused = await h.get(`/api/minigame/qq/login?code=invalid${freshPlayer("x")}`);
    assert.deepEqual([refused.status, refused.body.data.code, refused.body.data.errcode], [401, "platform_code_invalid", 40029]);
    const limited = await h.get(`/api/minigame/qq/login?code=ratelimited${freshPlayer("x")}`);
    assert.deepEqual([limited.status, limited.body.data.errcode], [429, 45011]);
  });
});

/** Kuaishou's wire details (platform-apis-2.md §7), beside the registry-driven suites every platform runs. */
import assert from "node:assert/strict";
import { kuaishouPlatform } from "../../src/platforms/kuaishou/kuaishou-platform";
import { KUAISHOU_RESULTS } from "../../src/platforms/kuaishou/kuaishou-results";
import { simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { TokenBook } from "../../src/simulator/tokens";
import { startHarness, type Harness } from "../support/app-harness";
import { freshPlayer } from "../support/platforms";

const APP = { app_id: "ks_simulator_app", app_secret: "simulator-kuaishou-secret" };

describe("Kuaishou mini-games", () => {
  let sim: RunningSimulator;
  let h: Harness;
  let base: string;
  const ksGet = async (path: string, query: Record<string, string>) => {
    const res = await fetch(`${base}${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
  const login = (js_code: string, app: Record<string, string> = APP) =>
    ksGet("/game/minigame/jscode2session", { ...app, js_code, grant_type: "authorization_code" });

  before(async () => {
    sim = await startSimulator({ port: 0 });
    base = simulatorBaseUrl(sim.url, "kuaishou");
    h = await startHarness({ simulator: sim });
  });
  after(async () => {
    await h?.close();
    await sim?.close();
  });

  it("answers code2Session at its own path with result 1, open_id, union_id and session_key", async () => {
    assert.equal(base, sim.url, "no path collides, so no prefix");
    const res = await login(`${freshPlayer("wire")}.1`);
    assert.equal(res.body.result, 1);
    assert.match(res.body.open_id, /^[0-9a-f]{32}$/);
    assert.match(res.body.union_id, /^[0-9a-f]{32}$/);
    assert.equal(Buffer.from(res.body.session_key, "base64").length, 16);
  });

  it("answers failures with another result and an error_msg", async () => {
    const invalid = await login(`invalid${freshPlayer("x")}`);
    assert.deepEqual([invalid.body.result, typeof invalid.body.error_msg], [KUAISHOU_RESULTS.invalidCode, "string"]);
    assert.equal((await login(`busy${freshPlayer("x")}`)).body.result, KUAISHOU_RESULTS.busy);
    assert.equal((await login(freshPlayer("x"), { ...APP, app_secret: "wrong" })).body.result, KUAISHOU_RESULTS.badApp);
    const code = `${freshPlayer("once")}.1`;
    assert.equal((await login(code)).body.result, 1);
    assert.equal((await login(code)).body.result, KUAISHOU_RESULTS.invalidCode, "each code works once");
  });

  it("hands out tokens only for grant_type=client_credentials (plural)", async () => {
    const token = await ksGet("/oauth2/access_token", { ...APP, grant_type: "client_credentials" });
    assert.equal(token.body.result, 1);
    assert.equal(token.body.expires_in, 48 * 3600);
    assert.equal(token.body.token_type, "bearer");
    const singular = await ksGet("/oauth2/access_token", { ...APP, grant_type: "client_credential" });
    assert.equal(singular.body.result, KUAISHOU_RESULTS.badParams);
  });

  it("keeps earlier tokens valid after a refetch, for their whole 48 h", () => {
    let clock = 0;
    const book = new TokenBook(kuaishouPlatform.simulator.tokenPolicy, () => clock);
    const first = book.issueOrdinary().accessToken;
    clock = 3600_000;
    const second = book.issueOrdinary().accessToken;
    clock = 47 * 3600_000;
    assert.ok(book.isValid(first) && book.isValid(second));
    clock = 48 * 3600_000;
    assert.ok(!book.isValid(first));
    assert.ok(book.isValid(second));
  });

  it("logs in at /api/minigame/kuaishou/login?code=…, answering Kuaishou's fields, and keeps result/error_msg on failure", async () => {
    const ok = await h.get(`/api/minigame/kuaishou/login?code=${freshPlayer("alice")}.1`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.result, 1);
    assert.match(ok.body.data.open_id, /^[0-9a-f]{32}$/);
    assert.equal(ok.body.data.user.openid, ok.body.data.open_id);
    assert.match(ok.body.data.user.username, /^mg_kuaishou_[a-z0-9]+$/);

    const noOpenId = await h.get(`/api/minigame/kuaishou/login?code=noopenid${freshPlayer("x")}.1`);
    assert.equal(noOpenId.status, 200);
    assert.equal(noOpenId.body.data.user.openid, noOpenId.body.data.union_id, "keyed by union_id when there is no open_id");

    const refused = await h.get(`/api/minigame/kuaishou/login?code=invalid${freshPlayer("x")}`);
    assert.deepEqual([refused.status, refused.body.data.code, refused.body.data.result], [401, "platform_code_invalid", KUAISHOU_RESULTS.invalidCode]);
    assert.equal(typeof refused.body.data.error_msg, "string");
    const blocked = await h.get(`/api/minigame/kuaishou/login?code=blocked${freshPlayer("x")}`);
    assert.deepEqual([blocked.status, blocked.body.data.result], [403, KUAISHOU_RESULTS.blocked]);
  });

  it("serves the access token through /api/minigame/kuaishou/access_token", async () => {
    const res = await h.get("/api/minigame/kuaishou/access_token");
    assert.equal(res.status, 200);
    assert.ok(res.body.data.access_token);
    assert.ok(res.body.data.expires_in > 47 * 3600);
  });
});

/**
 * The simulator's content-security checks over real HTTP, with the shapes and errors of
 * platform-apis-2.md §1, §4.1, §6.3 and §9, and the platform clients reading them.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { douyinPlatform } from "../../src/platforms/douyin/douyin-platform";
import { PlatformTokenRejectedError, type PlatformClient, type PlatformDefinition, type TextCheck } from "../../src/platforms/platform";
import { qqPlatform } from "../../src/platforms/qq/qq-platform";
import { wechatPlatform } from "../../src/platforms/wechat/wechat-platform";
import { defaultSimulatorApps, simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";

const app = (platform: string) => defaultSimulatorApps().find((a) => a.platform === platform)!;
const WX = app("wechat");
const DY = app("douyin");
const QQ = app("qq");
const RID = / rid: [0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/;
let seq = 0;
const fresh = (label: string) => `${label}${Date.now().toString(36)}c${seq++}`;

describe("simulator content security", () => {
  let sim: RunningSimulator;
  let clock = 1_700_000_000_000;
  const qqBase = () => simulatorBaseUrl(sim.url, "qq");
  const request = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
    return { status: res.status, contentType: res.headers.get("content-type"), body: (await res.json()) as any };
  };
  const getJson = async (url: string) => (await fetch(url)).json() as Promise<any>;
  const wxToken = async () =>
    (await request(`${sim.url}/cgi-bin/stable_token`, { grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret })).body.access_token as string;
  const wxLogin = async (player: string) =>
    (await getJson(`${sim.url}/sns/jscode2session?appid=${WX.appId}&secret=${WX.appSecret}&js_code=${player}&grant_type=authorization_code`)).openid as string;
  const wxCheck = (token: string, body: unknown) => request(`${sim.url}/wxa/msg_sec_check?access_token=${token}`, body);
  const dyToken = async () =>
    (await request(`${sim.url}/mgplatform/api/apps/stable_token`, { grant_type: "client_credential", appid: DY.appId, secret: DY.appSecret })).body.data
      .access_token as string;
  const antidirt = (body: unknown, headers: Record<string, string>) => request(`${sim.url}/api/v2/tags/text/antidirt`, body, headers);
  const qqToken = async () => (await getJson(`${qqBase()}/api/getToken?grant_type=client_credential&appid=${QQ.appId}&secret=${QQ.appSecret}`)).access_token as string;
  const qqCheck = (token: string, body: unknown) => request(`${qqBase()}/api/json/security/MsgSecCheck?access_token=${token}`, body);

  beforeEach(async () => {
    sim = await startSimulator({ port: 0, now: () => clock });
  });
  afterEach(() => sim?.close());

  describe("WeChat msg_sec_check", () => {
    it("v2: errcode 0 with result.suggest pass, review or risky, detail[] and a trace_id", async () => {
      const token = await wxToken();
      const openid = await wxLogin(fresh("v2"));
      const v2 = (content: string, scene = 2) => wxCheck(token, { content, version: 2, scene, openid });
      const pass = await v2("hello there");
      assert.equal(pass.body.errcode, 0);
      assert.equal(pass.body.errmsg, "ok");
      assert.deepEqual(pass.body.result, { suggest: "pass", label: 100 });
      assert.match(pass.body.trace_id, /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/);
      assert.deepEqual(pass.body.detail[1], { strategy: "keyword", errcode: 0 }, "a keyword entry without a hit has no suggest or label");
      assert.equal(pass.body.detail[0].strategy, "content_model");

      const risky = await v2("buy simulator-risky now", 1);
      assert.equal(risky.body.errcode, 0, "risky text is not an error in v2");
      assert.equal(risky.body.result.suggest, "risky");
      assert.equal(typeof risky.body.result.label, "number");
      assert.equal((await v2("simulator-review please")).body.result.suggest, "review");
      assert.equal((await wxCheck(token, { content: "x", version: "2", scene: 2, openid })).body.result.suggest, "pass", '"2" works as well as 2');
      assert.equal(sim.stats().contentCheck.wechat, 4);
    });

    it("v1 (no version): 87014 risky content for the marker and the doc's test strings, errcode 0 otherwise", async () => {
      const token = await wxToken();
      assert.deepEqual((await wxCheck(token, { content: "hello" })).body, { errcode: 0, errmsg: "ok" });
      for (const content of ["simulator-risky", "特3456书yuuo莞6543李zxcz蒜7782法fgnv级"]) {
        const risky = await wxCheck(token, { content });
        assert.equal(risky.body.errcode, 87014);
        assert.match(risky.body.errmsg, /^risky content rid: /);
        assert.equal(risky.body.result, undefined);
      }
    });

    it("47001 when access_token is in the body, 41001 without one, 40129 for a bad scene, 47001 without an openid", async () => {
      const token = await wxToken();
      const openid = await wxLogin(fresh("errs"));
      const inBody = await request(`${sim.url}/wxa/msg_sec_check`, { access_token: token, content: "hi", version: 2, scene: 2, openid });
      assert.equal(inBody.body.errcode, 47001);
      assert.match(inBody.body.errmsg, /^data format error rid: /);
      assert.equal((await request(`${sim.url}/wxa/msg_sec_check`, { content: "hi", version: 2, scene: 2, openid })).body.errcode, 41001);
      assert.equal((await wxCheck(token, { content: "hi", version: 2, scene: 7, openid })).body.errcode, 40129);
      assert.equal((await wxCheck(token, { content: "hi", version: 2, scene: 2 })).body.errcode, 47001);
      assert.equal((await wxCheck("ab".repeat(48), { content: "hi", version: 2, scene: 2, openid })).body.errcode, 40001);
    });

    it("61010 code is expired for an openid without a login in the recent-login window (30 min by default)", async () => {
      const token = await wxToken();
      const openid = await wxLogin(fresh("recent"));
      const v2 = (id: string) => wxCheck(token, { content: "hi", version: 2, scene: 2, openid: id });
      assert.equal((await v2(openid)).body.errcode, 0);
      const never = await v2("oNeverLoggedInAnywhere000000");
      assert.equal(never.body.errcode, 61010);
      assert.match(never.body.errmsg, RID);
      assert.match(never.body.errmsg, /^code is expired/);
      clock += 31 * 60_000;
      const token2 = await wxToken();
      assert.equal((await wxCheck(token2, { content: "hi", version: 2, scene: 2, openid })).body.errcode, 61010);
      sim.setContentCheck({ recentLoginMs: 120 * 60_000 });
      assert.equal((await wxCheck(token2, { content: "hi", version: 2, scene: 2, openid })).body.errcode, 0, "the window is configurable (2 h per the doc)");
    });

    it("45009 past the app's per-minute limit, until the next minute", async () => {
      sim.setContentCheck({ perMinute: 2 });
      clock = Math.ceil(clock / 60_000) * 60_000;
      const token = await wxToken();
      const openid = await wxLogin(fresh("quota"));
      const v2 = () => wxCheck(token, { content: "hi", version: 2, scene: 2, openid });
      assert.equal((await v2()).body.errcode, 0);
      assert.equal((await v2()).body.errcode, 0);
      const over = await v2();
      assert.equal(over.body.errcode, 45009);
      assert.match(over.body.errmsg, /^reach max api daily quota limit rid: /);
      clock += 60_000;
      assert.equal((await v2()).body.errcode, 0);
    });
  });

  describe("Douyin antidirt", () => {
    it("reads the token from X-Token only and answers data[] in task order with hit and prob", async () => {
      const token = await dyToken();
      const res = await antidirt({ tasks: [{ content: "hello" }, { content: "simulator-risky" }, { content: "simulator-review" }] }, { "X-Token": token });
      assert.equal(res.status, 200);
      assert.match(res.body.log_id, /^\d{14}[0-9A-F]{24}$/);
      assert.deepEqual(
        res.body.data.map((d: any) => [d.code, d.predicts[0].hit, d.predicts[0].model_name]),
        [
          [0, false, "short_content_antidirt"],
          [0, true, "short_content_antidirt"],
          [0, false, "short_content_antidirt"],
        ],
        "Douyin has no review verdict",
      );
      assert.equal(res.body.data[1].predicts[0].prob, 1);
      assert.equal(sim.stats().contentCheck.douyin, 1);
    });

    it("answers the documented 401 body for a missing, foreign or replaced token, and 400 for bad tasks", async () => {
      const token = await dyToken();
      for (const headers of [{}, { "X-Token": "garbage" }, { "X-Token": await wxToken() }] as Array<Record<string, string>>) {
        const res = await antidirt({ tasks: [{ content: "hi" }] }, headers);
        assert.equal(res.body.code, 401);
        assert.equal(res.body.message, "[app token sign fail] bad token");
        assert.equal(res.body.exception, "[app token sign fail] bad token");
        assert.match(res.body.error_id, /^[0-9a-f]{32}$/);
      }
      const inQuery = await request(`${sim.url}/api/v2/tags/text/antidirt?access_token=${token}`, { tasks: [{ content: "hi" }] });
      assert.equal(inQuery.body.code, 401, "not a query parameter");
      for (const body of [{}, { tasks: [] }, { tasks: [{}] }, { tasks: Array.from({ length: 11 }, () => ({ content: "x" })) }, "{nope"]) {
        assert.equal((await antidirt(body, { "X-Token": token })).body.code, 400);
      }
      clock += 31_000;
      await request(`${sim.url}/mgplatform/api/apps/stable_token`, { grant_type: "client_credential", appid: DY.appId, secret: DY.appSecret, force_refresh: true });
      assert.equal((await antidirt({ tasks: [{ content: "hi" }] }, { "X-Token": token })).body.code, 401, "a token forced out is refused at once");
    });
  });

  describe("QQ MsgSecCheck", () => {
    it("answers camelCase errCode/errMsg: 0 ok, 87014 risky content; review text passes", async () => {
      const token = await qqToken();
      const ok = await qqCheck(token, { appid: QQ.appId, content: "hello" });
      assert.deepEqual(ok.body, { errCode: 0, errMsg: "ok" });
      assert.deepEqual((await qqCheck(token, { appid: QQ.appId, content: "so simulator-risky" })).body, { errCode: 87014, errMsg: "risky content" });
      assert.equal((await qqCheck(token, { appid: QQ.appId, content: "simulator-review" })).body.errCode, 0);
      assert.equal(sim.stats().contentCheck.qq, 3);
    });

    it("needs appid in the body (its own app's), a working token and stays within the app's limit", async () => {
      const token = await qqToken();
      assert.equal((await qqCheck(token, { content: "hi" })).body.errCode, 41002);
      assert.equal((await qqCheck(token, { appid: "someone_else", content: "hi" })).body.errCode, 40013);
      const bad = await qqCheck("ab".repeat(48), { appid: QQ.appId, content: "hi" });
      assert.equal(bad.body.errCode, 40001);
      assert.equal(bad.body.errcode, undefined, "camelCase only");
      sim.setContentCheck({ perMinute: 0 });
      assert.equal((await qqCheck(token, { appid: QQ.appId, content: "hi" })).body.errCode, 45009);
    });
  });

  it("POST /__simulator/content-check switches the limits from another process and refuses anything else", async () => {
    const set = await request(`${sim.url}/__simulator/content-check`, { perMinute: 0 });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body, { perMinute: 0, perDay: 2_000_000, recentLoginMs: 30 * 60_000 });
    const token = await qqToken();
    assert.equal((await qqCheck(token, { appid: QQ.appId, content: "hi" })).body.errCode, 45009);
    for (const body of [{ perMinute: -1 }, { other: 1 }, { perDay: "5" }, "{nope"]) {
      assert.equal((await request(`${sim.url}/__simulator/content-check`, body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await request(`${sim.url}/__simulator/content-check`, { perMinute: 4000 })).body.perMinute, 4000);
    assert.equal((await qqCheck(token, { appid: QQ.appId, content: "hi" })).body.errCode, 0);
  });

  describe("the platform clients read these answers", () => {
    const logger = createLogger({ level: "silent" });
    const clientOf = (definition: PlatformDefinition): PlatformClient =>
      definition.createClient({
        // WeChat chat would go to the mini-game check (its answers: simulator-social.test.ts); these are msgSecCheck's.
        settings: { ...definition.simulatorApp, apiBaseUrl: simulatorBaseUrl(sim.url, definition.name), extra: definition.name === "wechat" ? { gameChatCheck: false } : {} },
        timeoutMs: 2000,
        busyRetries: 0,
        logger,
      });
    const check = (client: PlatformClient, call: Omit<TextCheck, "scene"> & { scene?: TextCheck["scene"] }) => client.checkText!({ scene: "chat", ...call });
    const rejectsWith = async (promise: Promise<unknown>, test: (err: AppError) => boolean) =>
      assert.rejects(promise, (err: unknown) => err instanceof AppError && test(err));

    it("WeChat: pass, review and risky from result.suggest; 61010 and a missing openid as player_not_checkable/openid_missing; 45009 rate-limited; a bad token rejected", async () => {
      const client = clientOf(wechatPlatform);
      const { accessToken } = await client.fetchAccessToken();
      const openid = await wxLogin(fresh("client"));
      assert.equal(await check(client, { accessToken, openid, text: "hi" }), "pass");
      assert.equal(await check(client, { accessToken, openid, text: "simulator-review" }), "review");
      assert.equal(await check(client, { accessToken, openid, text: "simulator-risky", scene: "profile" }), "risky");
      await rejectsWith(check(client, { accessToken, openid: "oStrangerNeverSeen0000000000", text: "hi" }), (e) => e.data.reason === "player_not_checkable" && e.data.errcode === 61010);
      await rejectsWith(check(client, { accessToken, openid: "", text: "hi" }), (e) => e.data.reason === "openid_missing");
      await assert.rejects(check(client, { accessToken: "ab".repeat(48), openid, text: "hi" }), PlatformTokenRejectedError);
      sim.setContentCheck({ perMinute: 0 });
      await rejectsWith(check(client, { accessToken, openid, text: "hi" }), (e) => e.code === "platform_rate_limited");
    });

    it("Douyin: hit decides; the 401 body is a rejected token; another host when configured", async () => {
      const client = clientOf(douyinPlatform);
      const { accessToken } = await client.fetchAccessToken();
      assert.equal(await check(client, { accessToken, openid: "", text: "hi" }), "pass");
      assert.equal(await check(client, { accessToken, openid: "", text: "simulator-risky" }), "risky");
      await assert.rejects(check(client, { accessToken: "garbage", openid: "", text: "hi" }), PlatformTokenRejectedError);
      const elsewhere = douyinPlatform.createClient({
        settings: { ...DY, apiBaseUrl: sim.url, extra: { contentApiBaseUrl: "http://127.0.0.1:9" } },
        timeoutMs: 2000,
        busyRetries: 0,
        logger,
      });
      await rejectsWith(check(elsewhere, { accessToken, openid: "", text: "hi" }), (e) => e.code === "platform_unavailable" && e.data.reason === "network_error");
    });

    it("QQ: errCode 0 pass, 87014 risky, a bad token rejected, 45009 rate-limited", async () => {
      const client = clientOf(qqPlatform);
      const { accessToken } = await client.fetchAccessToken();
      assert.equal(await check(client, { accessToken, openid: "", text: "hi" }), "pass");
      assert.equal(await check(client, { accessToken, openid: "", text: "simulator-risky" }), "risky");
      await assert.rejects(check(client, { accessToken: "ab".repeat(48), openid: "", text: "hi" }), PlatformTokenRejectedError);
      sim.setContentCheck({ perMinute: 0 });
      await rejectsWith(check(client, { accessToken, openid: "", text: "hi" }), (e) => e.code === "platform_rate_limited");
    });
  });
});

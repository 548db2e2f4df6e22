/**
 * The simulator's business APIs (checksession, check_session_key, getuserphonenumber), its token
 * validity answers and force limits, and its encrypt helper, over real HTTP (part 2 §9).
 */
import assert from "node:assert/strict";
import { decryptOpenData, loginStateSignature, parseEncryptedInput } from "../../src/core/open-data-crypto";
import { douyinPlatform } from "../../src/platforms/douyin/douyin-platform";
import { defaultSimulatorApps, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { TokenBook } from "../../src/simulator/tokens";

const WX = defaultSimulatorApps().find((a) => a.platform === "wechat")!;
const DY = defaultSimulatorApps().find((a) => a.platform === "douyin")!;
const RID = / rid: [0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/;
let seq = 0;
const fresh = (label: string) => `${label}${Date.now().toString(36)}b${seq++}`;

describe("simulator business APIs", () => {
  let sim: RunningSimulator;
  let clock = 1_700_000_000_000;
  const get = async (path: string, query: Record<string, string>) => (await fetch(`${sim.url}${path}?${new URLSearchParams(query)}`)).json() as Promise<any>;
  const post = async (path: string, body: unknown, query: Record<string, string> = {}) => {
    const res = await fetch(`${sim.url}${path}?${new URLSearchParams(query)}`, { method: "POST", body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const wxLogin = (code: string) => get("/sns/jscode2session", { appid: WX.appId, secret: WX.appSecret, js_code: code, grant_type: "authorization_code" });
  const dyLogin = (code: string) => get("/mgplatform/api/apps/jscode2session", { appid: DY.appId, secret: DY.appSecret, code });
  const wxStable = async (force = false) =>
    (await post("/cgi-bin/stable_token", { grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret, force_refresh: force })).body
      .access_token as string;
  const wxOrdinary = async () => (await get("/cgi-bin/token", { grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret })).access_token as string;
  const dyStable = async () =>
    (await post("/mgplatform/api/apps/stable_token", { appid: DY.appId, secret: DY.appSecret, grant_type: "client_credential" })).body.data
      .access_token as string;
  const checkSession = (token: string, openid: string, sessionKey: string) =>
    get("/wxa/checksession", { access_token: token, openid, signature: loginStateSignature(sessionKey), sig_method: "hmac_sha256" });

  before(async () => {
    sim = await startSimulator({ port: 0, now: () => clock });
  });
  after(() => sim?.close());

  describe("WeChat checksession and token errors", () => {
    it("accepts the current session key and refuses the key a new login replaced (87009)", async () => {
      const player = fresh("check");
      const first = await wxLogin(`${player}.1`);
      const token = await wxStable();
      assert.deepEqual(await checkSession(token, first.openid, first.session_key), { errcode: 0, errmsg: "ok" });
      const second = await wxLogin(`${player}.2`);
      assert.equal(second.openid, first.openid);
      const stale = await checkSession(token, first.openid, first.session_key);
      assert.equal(stale.errcode, 87009);
      assert.match(stale.errmsg, RID);
      assert.equal((await checkSession(token, first.openid, second.session_key)).errcode, 0);
    });

    it("answers 41001 missing, 40014 malformed, 40001 replaced or unknown, 42001 expired", async () => {
      const login = await wxLogin(fresh("tokens"));
      const check = (token: string) => checkSession(token, login.openid, login.session_key);
      assert.equal((await get("/wxa/checksession", { openid: login.openid })).errcode, 41001);
      assert.equal((await check("2")).errcode, 40014);
      assert.equal((await check("ab".repeat(48))).errcode, 40001, "a well-formed token nobody issued");
      assert.equal((await check(await dyStable())).errcode, 40014, "a Douyin token is not a WeChat token");

      const ordinary = await wxOrdinary();
      assert.equal((await check(ordinary)).errcode, 0);
      clock += 1000;
      const replacement = await wxOrdinary();
      clock += 299_000;
      assert.equal((await check(ordinary)).errcode, 0, "an ordinary token keeps working 5 minutes after its replacement");
      clock += 1000;
      const late = await check(ordinary);
      assert.equal(late.errcode, 40001);
      assert.match(late.errmsg, /^invalid credential, access_token is invalid or not latest rid: /);
      clock += 7200_000;
      const expired = await check(replacement);
      assert.equal(expired.errcode, 42001);
      assert.match(expired.errmsg, /^access_token expired rid: /);
    });

    it("a forced stable refresh kills the previous stable token at once, and limits forces to 30 s apart and 20 a day", async () => {
      const login = await wxLogin(fresh("force"));
      const check = (token: string) => checkSession(token, login.openid, login.session_key);
      clock += 86_400_000; // a fresh day for the force counter
      const before = await wxStable();
      const forced = await wxStable(true);
      assert.notEqual(forced, before);
      assert.equal((await check(before)).errcode, 40001);
      assert.equal((await check(forced)).errcode, 0);
      clock += 29_000;
      assert.equal(await wxStable(true), forced, "a force within 30 s does not refresh");
      let forces = 1;
      for (let i = 0; i < 30; i++) {
        clock += 31_000;
        const current = await wxStable(false);
        if ((await wxStable(true)) !== current) forces++;
      }
      assert.equal(forces, 20, "only 20 forces per day refresh");
    });
  });

  describe("WeChat getuserphonenumber", () => {
    it("exchanges a phone code once, with countryCode as a string and the app's watermark", async () => {
      const token = await wxStable();
      const code = `13800138000.${fresh("p")}`;
      const ok = await post("/wxa/business/getuserphonenumber", { code }, { access_token: token });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.errcode, 0);
      assert.deepEqual(ok.body.phone_info, {
        phoneNumber: "13800138000",
        purePhoneNumber: "13800138000",
        countryCode: "86",
        watermark: { timestamp: Math.floor(clock / 1000), appid: WX.appId },
      });
      const reused = await post("/wxa/business/getuserphonenumber", { code }, { access_token: token });
      assert.equal(reused.body.errcode, 40029);
      assert.match(reused.body.errmsg, /^invalid code hint: \[[0-9a-f]+\] rid: /);
      const loginCode = await post("/wxa/business/getuserphonenumber", { code: "alice.1" }, { access_token: token });
      assert.equal(loginCode.body.errcode, 40029, "a wx.login code is not a phone code");
      const abroad = await post("/wxa/business/getuserphonenumber", { code: `1-5551234567.${fresh("p")}` }, { access_token: token });
      assert.deepEqual([abroad.body.phone_info.phoneNumber, abroad.body.phone_info.countryCode], ["+15551234567", "1"]);
      assert.equal((await post("/wxa/business/getuserphonenumber", { code })).body.errcode, 41001);
    });
  });

  describe("Douyin check_session_key", () => {
    it("answers 0, 28001039 bad signature, 28001004 unknown openid, 28001003 bad token, 28001038 bad params", async () => {
      const login = await dyLogin(fresh("dy"));
      const token = await dyStable();
      const check = (query: Record<string, string>) =>
        get("/mgplatform/api/apps/check_session_key", {
          access_token: token,
          openid: login.openid,
          sig_method: "hmac_sha256",
          signature: loginStateSignature(login.session_key),
          ...query,
        });
      const ok = await check({});
      assert.equal(ok.err_no, 0);
      assert.equal(ok.err_msg, "");
      assert.ok(ok.log_id);
      assert.equal((await check({ signature: loginStateSignature("c29tZSBvdGhlciBrZXk=") })).err_no, 28001039);
      assert.equal((await check({ openid: "_000unknown" })).err_no, 28001004);
      assert.equal((await check({ access_token: "0801121" + "0".repeat(64) })).err_no, 28001003);
      assert.equal((await check({ access_token: await wxStable() })).err_no, 28001003);
      assert.equal((await check({ signature: "" })).err_no, 28001038);
    });
  });

  describe("encrypt helper", () => {
    it("encrypts a JSON object under an issued session key, with the key's app as watermark", async () => {
      const login = await wxLogin(fresh("enc"));
      const sealed = await post("/__simulator/encrypt", { session_key: login.session_key, data: { score: 42 } });
      assert.equal(sealed.status, 200);
      const input = parseEncryptedInput(sealed.body.encryptedData, sealed.body.iv);
      assert.ok(!("problems" in input));
      assert.deepEqual(decryptOpenData(input, login.session_key), { score: 42, watermark: { timestamp: Math.floor(clock / 1000), appid: WX.appId } });

      const foreign = await post("/__simulator/encrypt", { session_key: login.session_key, data: {}, watermark_appid: "wx_other" });
      const foreignInput = parseEncryptedInput(foreign.body.encryptedData, foreign.body.iv);
      assert.ok(!("problems" in foreignInput));
      assert.equal((decryptOpenData(foreignInput, login.session_key)!.watermark as any).appid, "wx_other");

      assert.equal((await post("/__simulator/encrypt", { session_key: "AAAAAAAAAAAAAAAAAAAAAA==", data: {} })).status, 404);
      assert.equal((await post("/__simulator/encrypt", { session_key: login.session_key, data: [1] })).status, 400);
    });
  });
});

describe("simulator token book statuses", () => {
  it("tells a replaced token from an expired one and forgets both after a day", () => {
    let clock = 0;
    const book = new TokenBook(douyinPlatform.simulator.tokenPolicy, () => clock);
    const old = book.issueOrdinary().accessToken;
    book.issueOrdinary();
    clock = 300_000;
    assert.equal(book.status(old), "superseded");
    const current = book.stableToken(false).accessToken;
    clock += 7200_000;
    assert.equal(book.status(current), "expired");
    clock += 24 * 3600_000;
    book.issueOrdinary();
    assert.equal(book.status(current), "unknown");
  });
});

/**
 * The platform simulator over real HTTP: the login service's tests trust it to behave like WeChat
 * and Douyin, so its wire shapes, error numbers and code/token rules are pinned here.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { platformDefinitions } from "../../src/platforms/registry";
import { opaqueTokenPolicy, TokenBook } from "../../src/simulator/tokens";
import {
  defaultSimulatorApps,
  startSimulator,
  type RunningSimulator,
  type SimulatorApp,
} from "../../src/simulator/simulator-server";

interface Reply {
  status: number;
  contentType: string;
  body: any;
}

function client(sim: RunningSimulator) {
  async function toReply(res: Response): Promise<Reply> {
    // Parsed from text on purpose: WeChat errors arrive as text/plain.
    return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: JSON.parse(await res.text()) };
  }
  return {
    async get(path: string, query: Record<string, string> = {}): Promise<Reply> {
      return toReply(await fetch(`${sim.url}${path}?${new URLSearchParams(query)}`));
    },
    async post(path: string, body: unknown): Promise<Reply> {
      const payload = typeof body === "string" ? body : JSON.stringify(body);
      return toReply(await fetch(`${sim.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: payload }));
    },
  };
}

const WX = defaultSimulatorApps().find((a) => a.platform === "wechat")!;
const DY = defaultSimulatorApps().find((a) => a.platform === "douyin")!;
const WX_SECOND: SimulatorApp = { platform: "wechat", appId: "wx_second_app", appSecret: "second-secret" };
const RID = /, rid: [0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/;
const MINUTE = 60_000;
/** One counter per registered platform: the stats grow with the registry. */
const everyPlatform = (n: number) => Object.fromEntries(platformDefinitions.map((p) => [p.name, n]));

let seq = 0;
/** A fresh player name per use, so tests never share codes. */
const fresh = (label: string) => `${label}${Date.now().toString(36)}z${seq++}`;

describe("platform simulator", () => {
  let sim: RunningSimulator;
  let clock = 1_700_000_000_000;
  let http: ReturnType<typeof client>;

  before(async () => {
    sim = await startSimulator({ port: 0, apps: [...defaultSimulatorApps(), WX_SECOND], now: () => clock });
    http = client(sim);
  });
  after(() => sim?.close());

  const wxLogin = (jsCode: string, overrides: Record<string, string> = {}) =>
    http.get("/sns/jscode2session", {
      appid: WX.appId,
      secret: WX.appSecret,
      js_code: jsCode,
      grant_type: "authorization_code",
      ...overrides,
    });
  const dyLogin = (codes: { code?: string; anonymous_code?: string }, overrides: Record<string, string> = {}) =>
    http.get("/mgplatform/api/apps/jscode2session", { appid: DY.appId, secret: DY.appSecret, ...codes, ...overrides });

  function assertWechatError(reply: Reply, errcode: number, text: string) {
    assert.equal(reply.status, 200);
    assert.equal(reply.contentType, "text/plain");
    assert.deepEqual(Object.keys(reply.body), ["errcode", "errmsg"]);
    assert.equal(reply.body.errcode, errcode);
    assert.ok(reply.body.errmsg.startsWith(`${text}, rid: `), reply.body.errmsg);
    assert.match(reply.body.errmsg, RID);
  }

  describe("WeChat jscode2session", () => {
    it("gives one player the same openid for every code, and other players other openids", async () => {
      const alice = fresh("alice");
      const first = await wxLogin(`${alice}.1`);
      const second = await wxLogin(`${alice}.2`);
      const bob = await wxLogin(`${fresh("bob")}.1`);
      assert.match(first.body.openid, /^o[A-Za-z0-9_-]{27}$/);
      assert.equal(second.body.openid, first.body.openid);
      assert.equal(second.body.unionid, first.body.unionid);
      assert.notEqual(bob.body.openid, first.body.openid);
      assert.notEqual(bob.body.unionid, first.body.unionid);
    });

    it("answers success as JSON without any errcode key, with a fresh 16-byte session key", async () => {
      const name = fresh("shape");
      const first = await wxLogin(`${name}.1`);
      const second = await wxLogin(`${name}.2`);
      assert.equal(first.status, 200);
      assert.equal(first.contentType, "application/json");
      assert.deepEqual(Object.keys(first.body), ["session_key", "openid", "unionid"]);
      assert.equal(Buffer.from(first.body.session_key, "base64").length, 16);
      assert.notEqual(second.body.session_key, first.body.session_key);
    });

    it("gives another app another openid but the same unionid for the same player", async () => {
      const name = fresh("twoapps");
      const one = await wxLogin(`${name}.1`);
      const two = await wxLogin(`${name}.2`, { appid: WX_SECOND.appId, secret: WX_SECOND.appSecret });
      assert.notEqual(two.body.openid, one.body.openid);
      assert.equal(two.body.unionid, one.body.unionid);
    });

    it("accepts a code once and answers 40163 code been used afterwards", async () => {
      const code = fresh("once");
      assert.ok((await wxLogin(code)).body.openid);
      assertWechatError(await wxLogin(code), 40163, "code been used");
    });

    it("forgets consumed codes after five minutes on the injected clock", async () => {
      const code = fresh("memory");
      assert.ok((await wxLogin(code)).body.openid);
      clock += 5 * MINUTE - 1;
      assertWechatError(await wxLogin(code), 40163, "code been used");
      clock += 1;
      assert.ok((await wxLogin(code)).body.openid, "the purged code is accepted again, as documented");
    });

    it("rejects invalid codes and malformed ones with 40029 invalid code", async () => {
      for (const code of [`invalid${fresh("x")}`, "has space", "a".repeat(129), ".1", "ünicode"]) {
        assertWechatError(await wxLogin(code), 40029, "invalid code");
      }
      assert.ok((await wxLogin(fresh("x").padEnd(128, "9"))).body.openid, "128 characters is still a code");
    });

    it("answers busy codes with -1 system error every time, without consuming them", async () => {
      const code = fresh("busy");
      assertWechatError(await wxLogin(code), -1, "system error");
      assertWechatError(await wxLogin(code), -1, "system error");
    });

    it("answers blocked codes with 40226 and rate-limited ones with 45011", async () => {
      assertWechatError(await wxLogin(fresh("blocked")), 40226, "code blocked");
      assertWechatError(
        await wxLogin(fresh("ratelimited")),
        45011,
        "api minute-quota reach limit mustslower retry next minute",
      );
    });

    it("omits openid for noopenid codes and both ids for noid codes", async () => {
      const noOpenid = await wxLogin(fresh("noopenid"));
      assert.deepEqual(Object.keys(noOpenid.body), ["session_key", "unionid"]);
      const noId = await wxLogin(fresh("noid"));
      assert.deepEqual(Object.keys(noId.body), ["session_key"]);
    });

    it("reports missing parameters, a wrong grant type and bad credentials with WeChat's numbers", async () => {
      assertWechatError(await wxLogin(fresh("p"), { appid: "" }), 41002, "appid missing");
      assertWechatError(await wxLogin(fresh("p"), { secret: "" }), 41004, "appsecret missing");
      assertWechatError(await wxLogin(""), 41008, "missing code");
      assertWechatError(await wxLogin(fresh("p"), { grant_type: "client_credential" }), 40002, "invalid grant_type");
      assertWechatError(await wxLogin(fresh("p"), { appid: "wx_unknown" }), 40013, "invalid appid");
      assertWechatError(await wxLogin(fresh("p"), { secret: "wrong" }), 40125, "invalid appsecret");
    });

    it("does not let a refused login consume the code", async () => {
      const code = fresh("kept");
      assertWechatError(await wxLogin(code, { secret: "wrong" }), 40125, "invalid appsecret");
      assert.ok((await wxLogin(code)).body.openid);
    });
  });

  describe("Douyin jscode2session", () => {
    const badCode = { errcode: 40018, errmsg: "bad code", error: 3, message: "bad code" };

    it("logs in with a code: flat success, stable openid per player, empty anonymous_openid", async () => {
      const name = fresh("dy");
      const first = await dyLogin({ code: `${name}.1` });
      const second = await dyLogin({ code: `${name}.2` });
      const other = await dyLogin({ code: fresh("other") });
      assert.equal(first.contentType, "application/json");
      assert.deepEqual(Object.keys(first.body), ["error", "session_key", "openid", "anonymous_openid", "unionid"]);
      assert.equal(first.body.error, 0);
      assert.match(first.body.openid, /^_000[A-Za-z0-9_-]{32}$/);
      assert.equal(first.body.anonymous_openid, "");
      assert.ok(first.body.unionid);
      assert.equal(Buffer.from(first.body.session_key, "base64").length, 16);
      assert.equal(second.body.openid, first.body.openid);
      assert.notEqual(other.body.openid, first.body.openid);
    });

    it("logs in anonymously with only an anonymous_openid, distinct from the same name's openid", async () => {
      const name = fresh("device");
      const anon = await dyLogin({ anonymous_code: `${name}.1` });
      const again = await dyLogin({ anonymous_code: `${name}.2`, code: "" });
      const named = await dyLogin({ code: `${name}.3` });
      assert.deepEqual(anon.body, { error: 0, session_key: "", openid: "", anonymous_openid: anon.body.anonymous_openid, unionid: "" });
      assert.match(anon.body.anonymous_openid, /^_000[A-Za-z0-9_-]{32}$/);
      assert.equal(again.body.anonymous_openid, anon.body.anonymous_openid);
      assert.notEqual(named.body.openid, anon.body.anonymous_openid);
    });

    it("accepts both codes together and consumes both", async () => {
      const code = fresh("person");
      const anonymousCode = fresh("device");
      const both = await dyLogin({ code, anonymous_code: anonymousCode });
      assert.equal(both.body.error, 0);
      assert.ok(both.body.openid && both.body.anonymous_openid && both.body.unionid && both.body.session_key);
      assert.deepEqual((await dyLogin({ code })).body, badCode);
      assert.deepEqual((await dyLogin({ anonymous_code: anonymousCode })).body, {
        errcode: 40019,
        errmsg: "bad anonymous_code",
        error: 3,
        message: "bad anonymous_code",
      });
    });

    it("consumes neither code when one of the pair is refused", async () => {
      const code = fresh("person");
      const refused = await dyLogin({ code, anonymous_code: fresh("invalid") });
      assert.equal(refused.body.errcode, 40019);
      assert.equal((await dyLogin({ code })).body.error, 0);
    });

    it("answers a reused code with 40018 bad code, error 3", async () => {
      const code = fresh("reuse");
      assert.equal((await dyLogin({ code })).body.error, 0);
      assert.deepEqual((await dyLogin({ code })).body, badCode);
    });

    it("treats invalid, blocked and malformed codes as bad codes", async () => {
      for (const code of [fresh("invalid"), fresh("blocked"), "bad/code", "b".repeat(129)]) {
        assert.deepEqual((await dyLogin({ code })).body, badCode, code);
      }
    });

    it("answers busy and rate-limited codes with a -1 system error, leaving busy codes usable for retries", async () => {
      const busy = fresh("busy");
      const systemError = { errcode: -1, errmsg: "system error", error: 1, message: "system error" };
      assert.deepEqual((await dyLogin({ code: busy })).body, systemError);
      assert.deepEqual((await dyLogin({ code: busy })).body, systemError);
      assert.deepEqual((await dyLogin({ code: fresh("ratelimited") })).body, systemError);
    });

    it("returns an empty openid for noopenid, and only the anonymous id for noid", async () => {
      const noOpenid = await dyLogin({ code: fresh("noopenid") });
      assert.equal(noOpenid.body.error, 0);
      assert.equal(noOpenid.body.openid, "");
      assert.ok(noOpenid.body.unionid);
      const noId = await dyLogin({ code: fresh("noid"), anonymous_code: fresh("device") });
      assert.equal(noId.body.openid, "");
      assert.equal(noId.body.unionid, "");
      assert.ok(noId.body.anonymous_openid);
      const nothing = await dyLogin({ code: fresh("noid") });
      assert.deepEqual([nothing.body.openid, nothing.body.anonymous_openid, nothing.body.unionid], ["", "", ""]);
    });

    it("reports missing parameters and bad credentials with the observed wire text", async () => {
      const badParams = { errcode: 40014, errmsg: "bad params", error: 1, message: "bad parameters" };
      assert.deepEqual((await dyLogin({})).body, badParams);
      assert.deepEqual((await dyLogin({ code: "", anonymous_code: "" })).body, badParams);
      assert.deepEqual((await dyLogin({ code: fresh("p") }, { secret: "" })).body, badParams);
      assert.deepEqual((await dyLogin({ code: fresh("p") }, { appid: "tt_unknown" })).body, {
        errcode: 40015,
        errmsg: "bad appid",
        error: 1,
        message: "bad appid",
      });
      assert.deepEqual((await dyLogin({ code: fresh("p") }, { secret: "wrong" })).body, {
        errcode: 40017,
        errmsg: "bad secret",
        error: 1,
        message: "bad secret",
      });
    });

    it("keeps WeChat and Douyin players apart even with the same code", async () => {
      const code = fresh("shared");
      const wx = await wxLogin(code);
      const dy = await dyLogin({ code });
      assert.ok(wx.body.openid && dy.body.openid, "a code consumed on one platform is still fresh on the other");
      assert.notEqual(wx.body.unionid, dy.body.unionid);
    });
  });

  describe("routing and counters", () => {
    it("counts every upstream call, errors included, and serves the counters over HTTP", async () => {
      sim.resetStats();
      await wxLogin(fresh("count"));
      await wxLogin(fresh("busy"));
      await dyLogin({ code: fresh("count") });
      await http.get("/cgi-bin/token", { grant_type: "client_credential", appid: WX.appId, secret: "wrong" });
      await http.post("/mgplatform/api/apps/v2/token", "{not json");
      await http.post("/mgplatform/api/apps/stable_token", { appid: DY.appId, secret: DY.appSecret, grant_type: "client_credential" });
      await http.get("/wxa/checksession", { access_token: "junk" });
      await http.get("/no/such/path");
      const expected = {
        code2session: { ...everyPlatform(0), wechat: 2, douyin: 1 },
        accessToken: { ...everyPlatform(0), wechat: 1, douyin: 2 },
        business: { ...everyPlatform(0), wechat: 1 },
        contentCheck: everyPlatform(0),
        gameContentCheck: everyPlatform(0),
      };
      assert.deepEqual(sim.stats(), expected);
      assert.deepEqual((await http.get("/__simulator/stats")).body, expected);

      const reset = await http.post("/__simulator/reset", "");
      assert.equal(reset.status, 200);
      const zero = { code2session: everyPlatform(0), accessToken: everyPlatform(0), business: everyPlatform(0), contentCheck: everyPlatform(0), gameContentCheck: everyPlatform(0) };
      assert.deepEqual(sim.stats(), zero);
      assert.deepEqual((await http.get("/__simulator/stats")).body, zero);
    });

    it("answers unknown paths and wrong methods with a 404 JSON body", async () => {
      const unknown = await http.get("/sns/nothing");
      assert.equal(unknown.status, 404);
      assert.equal(unknown.contentType, "application/json");
      assert.equal(typeof unknown.body.errmsg, "string");
      assert.equal((await http.get("/cgi-bin/stable_token")).status, 404);
    });

    it("lets close() finish while a client holds a connection open mid-request", async () => {
      const other = await startSimulator({ port: 0 });
      const { hostname, port } = new URL(other.url);
      const socket = net.connect(Number(port), hostname);
      await once(socket, "connect");
      // Half a request keeps the connection busy, which server.close() alone would wait out.
      socket.write("GET /__simulator/stats HTTP/1.1\r\nHost: x\r\n");
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await other.close();
      assert.ok(Date.now() - started < 1000, "close waited for the open connection");
      await once(socket, "close");
      await assert.rejects(fetch(`${other.url}/__simulator/stats`));
    });

    it("refuses an app list that names one app twice", async () => {
      await assert.rejects(startSimulator({ apps: [WX, { ...WX, appSecret: "other" }] }), /listed twice/);
    });
  });
});

describe("platform simulator access tokens", () => {
  let sim: RunningSimulator;
  let clock: number;
  let http: ReturnType<typeof client>;

  beforeEach(async () => {
    clock = 1_700_000_000_000;
    sim = await startSimulator({ port: 0, now: () => clock });
    http = client(sim);
  });
  afterEach(() => sim?.close());

  const wxCredentials = { grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret };
  const dyCredentials = { grant_type: "client_credential", appid: DY.appId, secret: DY.appSecret };
  const wxStable = (force = false) => http.post("/cgi-bin/stable_token", { ...wxCredentials, force_refresh: force });
  const dyStable = (force = false) => http.post("/mgplatform/api/apps/stable_token", { ...dyCredentials, force_refresh: force });

  describe("WeChat", () => {
    it("issues a new 7200 s token on every cgi-bin/token call", async () => {
      const first = await http.get("/cgi-bin/token", wxCredentials);
      const second = await http.get("/cgi-bin/token", wxCredentials);
      assert.equal(first.contentType, "application/json");
      assert.deepEqual(Object.keys(first.body), ["access_token", "expires_in"]);
      assert.equal(first.body.expires_in, 7200);
      assert.match(first.body.access_token, /^[0-9a-f]+$/);
      assert.notEqual(second.body.access_token, first.body.access_token);
    });

    it("refuses a wrong grant type or secret on cgi-bin/token", async () => {
      const wrongGrant = await http.get("/cgi-bin/token", { ...wxCredentials, grant_type: "authorization_code" });
      assert.equal(wrongGrant.body.errcode, 40002);
      assert.match(wrongGrant.body.errmsg, RID);
      const wrongSecret = await http.get("/cgi-bin/token", { ...wxCredentials, secret: "wrong" });
      assert.equal(wrongSecret.body.errcode, 40125);
      assert.equal(wrongSecret.contentType, "text/plain");
    });

    it("returns the same stable token with the remaining seconds, then a new one under 300 s left", async () => {
      const first = await wxStable();
      assert.equal(first.body.expires_in, 7200);
      clock += MINUTE;
      const repeat = await wxStable();
      assert.equal(repeat.body.access_token, first.body.access_token);
      assert.equal(repeat.body.expires_in, 7140);
      clock += (6900 - 60) * 1000; // exactly 300 s left: still the same token
      assert.equal((await wxStable()).body.access_token, first.body.access_token);
      clock += 1000;
      const rotated = await wxStable();
      assert.notEqual(rotated.body.access_token, first.body.access_token);
      assert.equal(rotated.body.expires_in, 7200);
    });

    it("replaces the stable token at once on force_refresh, leaving ordinary tokens out of it", async () => {
      const first = await wxStable();
      await http.get("/cgi-bin/token", wxCredentials);
      assert.equal((await wxStable()).body.access_token, first.body.access_token);
      const forced = await wxStable(true);
      assert.notEqual(forced.body.access_token, first.body.access_token);
      assert.equal(forced.body.expires_in, 7200);
      assert.equal((await wxStable()).body.access_token, forced.body.access_token);
    });

    it("answers a malformed stable_token body with an error and keeps serving", async () => {
      for (const body of ["{not json", "[1,2]", "null", ""]) {
        const reply = await http.post("/cgi-bin/stable_token", body);
        assert.equal(reply.status, 200);
        assert.equal(reply.body.errcode, 47001, body);
      }
      assert.equal((await http.post("/cgi-bin/stable_token", { ...wxCredentials, appid: "" })).body.errcode, 41002);
      assert.ok((await wxStable()).body.access_token);
    });
  });

  describe("Douyin", () => {
    it("issues a new token in the err_no envelope on every v2/token call", async () => {
      const first = await http.post("/mgplatform/api/apps/v2/token", dyCredentials);
      const second = await http.post("/mgplatform/api/apps/v2/token", dyCredentials);
      assert.equal(first.body.err_no, 0);
      assert.equal(first.body.err_tips, "success");
      assert.match(first.body.data.access_token, /^0801121[0-9a-f]+$/);
      assert.equal(first.body.data.expires_in, 7200);
      assert.notEqual(second.body.data.access_token, first.body.data.access_token);
    });

    it("reports token errors in the same envelope with an empty token", async () => {
      const post = (body: unknown) => http.post("/mgplatform/api/apps/v2/token", body);
      const empty = { access_token: "", expires_in: 0 };
      assert.deepEqual((await post({ ...dyCredentials, secret: "wrong" })).body, { err_no: 40017, err_tips: "bad secret", data: empty });
      assert.deepEqual((await post({ ...dyCredentials, appid: "tt_unknown" })).body, { err_no: 40015, err_tips: "bad appid", data: empty });
      assert.equal((await post({ ...dyCredentials, grant_type: "authorization_code" })).body.err_no, 40020);
      assert.equal((await post({ appid: DY.appId })).body.err_no, 40014);
      assert.equal((await post("{oops")).body.err_no, 40014);
      assert.equal((await http.post("/mgplatform/api/apps/stable_token", "]")).body.err_no, 40014);
    });

    it("keeps the stable token until under 300 s remain, and replaces it on force_refresh", async () => {
      const first = await dyStable();
      clock += 6900 * 1000;
      const same = await dyStable();
      assert.equal(same.body.data.access_token, first.body.data.access_token);
      assert.equal(same.body.data.expires_in, 300);
      clock += 1000;
      const rotated = await dyStable();
      assert.notEqual(rotated.body.data.access_token, first.body.data.access_token);
      const forced = await dyStable(true);
      assert.notEqual(forced.body.data.access_token, rotated.body.data.access_token);
      assert.equal(forced.body.data.expires_in, 7200);
    });
  });
});

describe("simulator token book", () => {
  let clock = 0;
  const book = () => new TokenBook(opaqueTokenPolicy, () => clock);

  it("keeps the previous ordinary token valid for 300 s after a new one is issued", () => {
    clock = 0;
    const b = book();
    const old = b.issueOrdinary().accessToken;
    clock = 1000;
    const current = b.issueOrdinary().accessToken;
    clock = 1000 + 300_000 - 1;
    assert.ok(b.isValid(old));
    clock = 1000 + 300_000;
    assert.ok(!b.isValid(old));
    assert.ok(b.isValid(current));
    clock = 1000 + 7200_000;
    assert.ok(!b.isValid(current), "tokens expire after 7200 s");
  });

  it("lets a pre-rotated stable token live out its time, but kills it on forced refresh", () => {
    clock = 0;
    const b = book();
    const first = b.stableToken(false).accessToken;
    clock = 6901_000;
    const second = b.stableToken(false).accessToken;
    assert.ok(b.isValid(first) && b.isValid(second));
    const third = b.stableToken(true).accessToken;
    assert.ok(!b.isValid(second));
    assert.ok(b.isValid(third));
  });
});

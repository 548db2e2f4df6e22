/**
 * The API description against the real server: the document is valid OpenAPI, and every response
 * the booted app gives (success and failure) matches what the document says for that route and
 * status. An undocumented status, field or error code fails.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { freePort, startHarness, type Harness } from "../support/app-harness";
import { expectedClass, loginPath, platformDefinitions } from "../support/platforms";
import { ensureClientBuilt } from "../support/client-build";
import { simulatorPaymentEnv } from "../support/payments";
import { pushSignature } from "../../src/platforms/wechat/wechat-push";
import { callbackSignature, signCallback } from "../../src/platforms/douyin/douyin-push";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { adSignature, encryptAdReward } from "../../src/platforms/wechat/wechat-ad-reward";
import { signDouyinPush } from "../../src/platforms/douyin/douyin-gift";
import { signFeedPull } from "../../src/platforms/douyin/douyin-feed";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { simulatorRewardEnv } from "../support/rewards";
import { sealedGiftPush } from "../support/wechat-gift-pushes";

interface Res {
  status: number;
  body: any;
  headers: Headers;
}

const INTERNAL_KEY = "internal-key-for-openapi-tests";
const FEED_SECRET = "feed-secret-for-openapi-tests";
const DOC_ID = "https://openapi.test/doc.json";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

/** Validates real responses against the document; remembers which route+status pairs were seen. */
class Conformance {
  readonly seen = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: any) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
  }

  check(method: string, route: string, res: Res): Res {
    const operation = this.doc.paths[route]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${route} is not documented`);
    const response = operation.responses[String(res.status)];
    assert.ok(response, `${method} ${route} answered ${res.status}, which is not documented: ${JSON.stringify(res.body)}`);
    const pointer = ["paths", route, method.toLowerCase(), "responses", String(res.status), "content", "application/json", "schema"]
      .map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1"))
      .join("/");
    const key = `${DOC_ID}#/${pointer}`;
    let validate = this.compiled.get(key);
    if (!validate) this.compiled.set(key, (validate = this.ajv.compile({ $ref: key })));
    const valid = validate(res.body); // a boolean first: the type guard would narrow body to unknown
    assert.ok(valid, `${method} ${route} ${res.status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
    if (res.status === 429 && res.body.data.code === "rate_limited") assert.ok(res.headers.get("retry-after"), "429 carries Retry-After");
    this.seen.add(`${method.toUpperCase()} ${route} ${res.status}`);
    return res;
  }
}

describe("OpenAPI description", () => {
  let h: Harness;
  let doc: any;
  let conformance: Conformance;
  let clock = Date.now();

  /** A request to a concrete path, checked against the documented route template. */
  async function call(method: string, route: string, options: { path?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await h.request(method, options.path ?? route, options.body, options.headers);
    return conformance.check(method, route, res);
  }
  const wechatLogin = (code = unique("alice")) => call("GET", "/api/minigame/wechat/login", { path: `/api/minigame/wechat/login?jsCode=${code}` });

  before(async () => {
    // From when the suite starts, not when mocha loaded the file: the platforms' callbacks are checked
    // against the real clock (10 minutes of skew at most), and a full run reaches this file later.
    clock = Date.now();
    h = await startHarness({
      // Payments with the simulator's keys (WeChat's wallet at the harness's simulator; Douyin's is not called here).
      env: { ACCESS_TOKEN_ROUTE_KEY: INTERNAL_KEY, REFRESH_GRACE_SEC: "1", ...simulatorPaymentEnv("http://127.0.0.1:9"), ...simulatorRewardEnv(), DOUYIN_FEED_SECRETS: `tt_simulator_app:${FEED_SECRET}` },
      overrides: { now: () => clock },
    });
    const res = await h.get("/api-docs.json");
    assert.equal(res.status, 200);
    doc = res.body;
    conformance = new Conformance(doc);
  });
  after(async () => {
    await h?.close();
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(doc.servers, [{ url: "/", description: "This server" }]);
  });

  it("gives every integer realistic bounds and an example, and the package's version", () => {
    const text = JSON.stringify(doc);
    assert.equal(text.includes("9007199254740991"), false, "no ±2^53 bounds from zod's defaults");
    const integers: Array<{ at: string; schema: any }> = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      if ((node as any).type === "integer") integers.push({ at, schema: node });
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(doc, "");
    assert.ok(integers.length >= 10, `found ${integers.length} integer schemas`);
    for (const { at, schema } of integers) {
      if (at.includes("/headers/")) continue; // Retry-After: a header, documented in words
      const low = schema.minimum ?? schema.exclusiveMinimum;
      assert.ok(Number.isInteger(low) && Number.isInteger(schema.maximum), `${at} has both bounds`);
      assert.ok(Math.abs(low) <= 2 ** 31 && Math.abs(schema.maximum) <= 2 ** 31, `${at}: ${low}..${schema.maximum}`);
      if (at.startsWith("/components/")) assert.ok(Number.isInteger(schema.example), `${at} has an example`);
    }
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8"));
    assert.equal(doc.info.version, manifest.version);
  });

  it("documents every route under /api, with a security scheme where one applies", () => {
    // The console's routes (/console/api) have their own suite: console-openapi.test.ts.
    const routes = Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/")).flatMap(([p, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${p}`));
    const platformRoutes = platformDefinitions.flatMap((p) => [
      `GET /api/minigame/${p.name}/access_token`,
      `GET /api/minigame/${p.name}/login`,
      `POST /api/minigame/${p.name}/access_token/invalidate`,
      ...(p.playerData?.openData ? [`POST /api/minigame/${p.name}/decrypt`, `POST /api/minigame/${p.name}/signature/verify`] : []),
      ...(p.playerData?.sessionCheck ? [`GET /api/minigame/${p.name}/session_key/check`] : []),
      ...(p.playerData?.phoneNumber ? [`POST /api/minigame/${p.name}/phone_number`] : []),
      ...(p.social?.subscribeMessages ? [`POST /api/minigame/${p.name}/subscribe_message`] : []),
    ]);
    // The Contract's platforms: WeChat and Douyin have the player-data routes, only WeChat phone numbers.
    assert.ok(platformRoutes.includes("POST /api/minigame/douyin/decrypt") && platformRoutes.includes("POST /api/minigame/wechat/phone_number"));
    assert.ok(!platformRoutes.includes("POST /api/minigame/douyin/phone_number"));
    assert.deepEqual(routes.sort(), [
      ...platformRoutes,
      "DELETE /api/users/me",
      "DELETE /api/players/me/storage",
      "PUT /api/players/me/storage",
      "GET /api/users/me",
      "PATCH /api/users/me",
      "POST /api/auth/login",
      "POST /api/auth/logout",
      "POST /api/auth/refresh",
      "POST /api/auth/register",
      "PUT /api/users/me/password",
      "GET /api/payments/balance",
      "POST /api/payments/orders",
      "GET /api/payments/orders",
      "GET /api/payments/orders/{orderId}",
      "GET /api/minigame/wechat/push",
      "POST /api/minigame/wechat/push",
      "GET /api/minigame/douyin/feed",
      "GET /api/minigame/douyin/push",
      "POST /api/minigame/douyin/push",
      "GET /api/catalog",
      "GET /api/config",
      "GET /api/economy/wallet",
      "GET /api/economy/inventory",
      "POST /api/economy/purchases",
      "POST /api/events",
      "GET /api/leaderboards",
      "GET /api/leaderboards/{boardId}/records",
      "GET /api/leaderboards/{boardId}/records/around-me",
      "GET /api/leaderboards/{boardId}/me",
      "POST /api/leaderboards/{boardId}/scores",
      "POST /api/leaderboards/{boardId}/join",
      "GET /api/saves/{collection}",
      "GET /api/saves/{collection}/{key}",
      "PUT /api/saves/{collection}/{key}",
      "DELETE /api/saves/{collection}/{key}",
      "POST /api/saves/batch",
      "GET /api/mail",
      "POST /api/mail/{mailId}/claim",
      "GET /api/ads/views/{watchId}",
      "POST /api/rewards/gift-codes",
      // Growth (docs/growth.md).
      "POST /api/growth/sidebar",
      "POST /api/growth/risk-check",
      "POST /api/growth/wechat/group-enter-info",
      "POST /api/growth/wechat/game-club",
      "POST /api/growth/shares",
      "POST /api/growth/shares/{activityId}/join",
      "GET /api/minigame/wechat/ad-reward",
      "POST /api/minigame/wechat/ad-reward",
      "GET /api/minigame/wechat/gift-push",
      "POST /api/minigame/wechat/gift-push",
      "POST /api/minigame/douyin/gift-push",
    ].sort());
    assert.deepEqual(doc.paths["/api/minigame/wechat/access_token/invalidate"].post.security, [{ internalKey: [] }, {}]);
    assert.deepEqual(doc.paths["/api/minigame/douyin/decrypt"].post.security, [{ bearerAuth: [] }]);
    assert.deepEqual(doc.paths["/api/users/me"].get.security, [{ bearerAuth: [] }]);
    assert.deepEqual(doc.paths["/api/minigame/wechat/access_token"].get.security, [{ internalKey: [] }, {}]);
    assert.equal(doc.paths["/api/minigame/wechat/login"].get.security, undefined);
    const jsCode = doc.paths["/api/minigame/wechat/login"].get.parameters[0];
    assert.deepEqual({ name: jsCode.name, required: jsCode.required, max: jsCode.schema.maxLength, example: jsCode.example }, {
      name: "jsCode",
      required: true,
      max: 256,
      example: "alice.1",
    });
  });

  it("mini-game logins: success and every failure class match the document", async () => {
    const ok = await wechatLogin();
    assert.equal(ok.status, 200);
    for (const [code, status] of [["invalid", 401], ["blocked", 403], ["ratelimited", 429], ["noid", 502], ["busy", 502]] as const) {
      assert.equal((await wechatLogin(unique(code))).status, status, code);
    }
    assert.equal((await call("GET", "/api/minigame/wechat/login")).status, 400);
    assert.equal((await call("GET", "/api/minigame/wechat/login", { path: "/api/minigame/wechat/login?jsCode=" })).status, 400);

    const douyin = (query: string) => call("GET", "/api/minigame/douyin/login", { path: `/api/minigame/douyin/login?${query}` });
    assert.equal((await douyin(`code=${unique("bob")}&anonymous_code=${unique("device")}`)).status, 200);
    assert.equal((await douyin(`anonymous_code=${unique("device")}`)).status, 200);
    assert.equal((await douyin("")).status, 400);
    assert.equal((await douyin(`code=${unique("invalid")}`)).status, 401);
    assert.equal((await douyin(`code=${unique("noid")}`)).status, 502);

    for (const platform of platformDefinitions) {
      const route = `/api/minigame/${platform.name}/login`;
      const login = (code: string) => call("GET", route, { path: loginPath(platform, code) });
      assert.equal((await login(unique("player"))).status, 200, platform.name);
      for (const outcome of ["invalid", "blocked", "ratelimited", "busy"] as const) {
        assert.equal((await login(unique(outcome))).status, expectedClass(platform, outcome).status, `${platform.name} ${outcome}`);
      }
      assert.equal((await login(unique("noid"))).status, 502, platform.name);
      assert.equal((await call("GET", route)).status, 400, platform.name);
    }
  });

  it("access-token routes, with and without the internal key", async () => {
    for (const platform of platformDefinitions.map((p) => p.name)) {
      const route = `/api/minigame/${platform}/access_token`;
      assert.equal((await call("GET", route, { headers: { "x-internal-key": INTERNAL_KEY } })).status, 200);
      assert.equal((await call("GET", route)).status, 401);
    }
  });

  it("token reports, with and without the internal key", async () => {
    for (const platform of platformDefinitions.map((p) => p.name)) {
      const route = `/api/minigame/${platform}/access_token/invalidate`;
      const key = { "x-internal-key": INTERNAL_KEY };
      assert.equal((await call("POST", route, { body: { access_token: "no-longer-cached" }, headers: key })).status, 200);
      assert.equal((await call("POST", route, { body: { access_token: "x" } })).status, 401);
      assert.equal((await call("POST", route, { body: {}, headers: key })).status, 400);
    }
  });

  it("player-data routes: success and every failure class match the document", async () => {
    const name = unique("keyless");
    const account = await h.request("POST", "/api/auth/register", { username: name, email: `${name}@example.com`, password: "correct horse" });
    const keyless = bearer(account.body.data.token);
    const seal = async (sessionKey: string, watermarkAppId?: string) =>
      (await fetch(`${h.simulator.url}/__simulator/encrypt`, {
        method: "POST",
        body: JSON.stringify({ session_key: sessionKey, data: { n: 1 }, watermark_appid: watermarkAppId }),
      })).json();
    for (const definition of platformDefinitions.filter((p) => p.playerData?.openData)) {
      const platform = definition.name;
      const login = await h.get(loginPath(definition, unique("pd")));
      const auth = bearer(login.body.data.token);
      const decrypt = `/api/minigame/${platform}/decrypt`;
      assert.equal((await call("POST", decrypt, { body: await seal(login.body.data.session_key), headers: auth })).status, 200);
      assert.equal((await call("POST", decrypt, { body: { encryptedData: "!!", iv: "??" }, headers: auth })).status, 400);
      assert.equal((await call("POST", decrypt, { body: await seal(login.body.data.session_key, "wx_foreign"), headers: auth })).status, 422);
      assert.equal((await call("POST", decrypt, { body: await seal(login.body.data.session_key), headers: keyless })).status, 409);
      assert.equal((await call("POST", decrypt, { body: {} })).status, 401);

      const verify = `/api/minigame/${platform}/signature/verify`;
      assert.equal((await call("POST", verify, { body: { rawData: "{}", signature: "00" }, headers: auth })).status, 200);
      assert.equal((await call("POST", verify, { body: { rawData: "{}", signature: "00" }, headers: keyless })).status, 409);
      assert.equal((await call("POST", verify, { body: { rawData: 1 }, headers: auth })).status, 400);

      if (!definition.playerData?.sessionCheck) continue;
      const check = `/api/minigame/${platform}/session_key/check`;
      assert.equal((await call("GET", check, { headers: auth })).status, 200);
      assert.equal((await call("GET", check, { headers: keyless })).status, 409);
      assert.equal((await call("GET", check)).status, 401);
    }
    const login = (await wechatLogin()).body.data;
    const phone = (body: unknown, headers = bearer(login.token)) => call("POST", "/api/minigame/wechat/phone_number", { body, headers });
    const code = `13800138000.${unique("p")}`;
    assert.equal((await phone({ code })).status, 200);
    assert.equal((await phone({ code })).status, 401);
    assert.equal((await phone({})).status, 400);
  });

  it("payment routes and the push: success and failures match the document", async () => {
    const login = (await wechatLogin()).body.data;
    const auth = bearer(login.token);
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: login.openid, balance: 50 }) });
    assert.equal((await call("GET", "/api/payments/balance", { headers: auth })).status, 200);
    assert.equal((await call("GET", "/api/payments/balance")).status, 401);
    const orderId = unique("ord");
    assert.equal((await call("POST", "/api/payments/orders", { body: { orderId, itemId: "sword", coins: 30 }, headers: auth })).status, 201);
    assert.equal((await call("POST", "/api/payments/orders", { body: { orderId, itemId: "sword", coins: 30 }, headers: auth })).status, 200);
    assert.equal((await call("POST", "/api/payments/orders", { body: { orderId, itemId: "sword", coins: 31 }, headers: auth })).status, 409);
    assert.equal((await call("POST", "/api/payments/orders", { body: { orderId: unique("ord"), itemId: "sword", coins: 30 }, headers: auth })).status, 402);
    assert.equal((await call("POST", "/api/payments/orders", { body: { orderId: "no spaces", itemId: "sword", coins: 1 }, headers: auth })).status, 400);
    assert.equal((await call("GET", "/api/payments/orders", { path: "/api/payments/orders?state=delivered", headers: auth })).status, 200);
    assert.equal((await call("GET", "/api/payments/orders")).status, 401);
    const one = "/api/payments/orders/{orderId}";
    assert.equal((await call("GET", one, { path: `/api/payments/orders/${orderId}`, headers: auth })).status, 200);
    assert.equal((await call("GET", one, { path: `/api/payments/orders/${unique("none")}`, headers: auth })).status, 404);

    const keys = simulatorPaymentKeys("wechat", platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const verify = (token: string) => `/api/minigame/wechat/push?${new URLSearchParams({ signature: pushSignature(token, timestamp, "n"), timestamp, nonce: "n", echostr: "e1" })}`;
    assert.equal((await call("GET", "/api/minigame/wechat/push", { path: verify(keys.pushToken) })).status, 200);
    assert.equal((await call("GET", "/api/minigame/wechat/push", { path: verify("forged") })).status, 401);
    const refused = await call("POST", "/api/minigame/wechat/push", { path: verify(keys.pushToken), body: { MsgType: "event" } });
    assert.notEqual(refused.body.ErrCode, 0);
    // Every push reply is WeChat's HTTP 200, a body over 64 KiB too; only a URL that is not valid percent-encoding is refused at the edge.
    const tooLarge = await call("POST", "/api/minigame/wechat/push", { path: verify(keys.pushToken), body: "x".repeat(70_000) });
    assert.deepEqual([tooLarge.status, tooLarge.body.ErrCode], [200, 40007]);
    assert.equal((await call("POST", "/api/minigame/wechat/push", { path: "/api/minigame/wechat/push?signature=%ZZ" })).status, 400);

    const douyinApp = platformDefinitions.find((p) => p.name === "douyin")!.simulatorApp.appId;
    const douyinToken = simulatorPaymentKeys("douyin", douyinApp).pushToken;
    const dyPush = "/api/minigame/douyin/push";
    const dyVerify = (token: string) => `${dyPush}?${new URLSearchParams({ signature: callbackSignature(token, timestamp, "n", ""), timestamp, nonce: "n", echostr: "e2" })}`;
    assert.equal((await call("GET", dyPush, { path: dyVerify(douyinToken) })).status, 200);
    assert.equal((await call("GET", dyPush, { path: dyVerify("forged") })).status, 401);
    const dyBuyer = (await call("GET", "/api/minigame/douyin/login", { path: `/api/minigame/douyin/login?code=${unique("dybuyer")}` })).body.data;
    const msg = { appid: douyinApp, cp_orderno: unique("dy"), cp_extra: JSON.stringify({ openid: dyBuyer.openid, itemId: "gem" }), amount_cent: 100 };
    assert.equal((await call("POST", dyPush, { body: signCallback(douyinToken, msg, timestamp, "1") })).status, 200);
    assert.equal((await call("POST", dyPush, { body: signCallback("forged", msg, timestamp, "1") })).status, 401);
    assert.equal((await call("POST", dyPush, { body: signCallback(douyinToken, { ...msg, appid: "tt_other" }, timestamp, "1") })).status, 400);
    const nobody = { ...msg, cp_orderno: unique("dy"), cp_extra: JSON.stringify({ openid: unique("nobody"), itemId: "gem" }) };
    assert.equal((await call("POST", dyPush, { body: signCallback(douyinToken, nobody, timestamp, "1") })).status, 500);

    // Douyin's feed direct-play call: answered signed, refused in Douyin's shape.
    const feed = "/api/minigame/douyin/feed";
    const pull = signFeedPull(douyinApp, dyBuyer.openid, FEED_SECRET, Math.floor(Date.now() / 1000));
    assert.equal((await call("GET", feed, { path: `${feed}?${pull.search}`, headers: { "x-signature": pull.signature } })).status, 200);
    assert.equal((await call("GET", feed, { path: `${feed}?${pull.search}`, headers: { "x-signature": "forged" } })).status, 401);
    assert.equal((await call("GET", feed, { path: `${feed}?appid=${douyinApp}` })).status, 400);
  });

  it("economy routes: catalog, wallet, inventory and soft purchases, success and failures match the document", async () => {
    const login = (await wechatLogin()).body.data;
    const auth = bearer(login.token);
    for (const route of ["/api/catalog", "/api/config", "/api/economy/wallet", "/api/economy/inventory"]) {
      assert.equal((await call("GET", route, { headers: auth })).status, 200);
      assert.equal((await call("GET", route)).status, 401);
    }
    await h.services.economy.rewards.grant({ appId: "default", userId: login.user.id, source: "operator", sourceId: unique("seed"), currencies: { gems: 10 } });
    const buy = (body: unknown) => call("POST", "/api/economy/purchases", { body, headers: auth });
    const purchaseId = unique("buy");
    assert.equal((await buy({ purchaseId, itemId: "potion" })).status, 201);
    assert.equal((await buy({ purchaseId, itemId: "potion" })).status, 200);
    assert.equal((await buy({ purchaseId: unique("buy"), itemId: "potion" })).status, 402);
    assert.equal((await buy({ purchaseId: unique("buy"), itemId: "nope" })).status, 404);
    assert.equal((await buy({ purchaseId: "bad id", itemId: "potion" })).status, 400);
    const mismatch = await call("POST", "/api/payments/orders", { body: { orderId: unique("ord"), itemId: "sword", coins: 1 }, headers: auth });
    assert.deepEqual([mismatch.status, mismatch.body.data.code], [409, "price_mismatch"]);
  });

  it("analytics: client events, accepted and refused one by one, match the document", async () => {
    const auth = bearer((await wechatLogin()).body.data.token);
    const sent = await call("POST", "/api/events", { body: { events: [{ name: "level_up", props: { level: 2 } }, { name: "Bad Name" }] }, headers: auth });
    assert.deepEqual([sent.status, sent.body.data], [202, { accepted: 1, refused: 1 }]);
    assert.equal((await call("POST", "/api/events", { body: { events: [] }, headers: auth })).status, 400);
    assert.equal((await call("POST", "/api/events", { body: { events: [{ name: "x" }] } })).status, 401);
  });

  it("reward routes: mail, ad views and the platforms' reward callbacks match the document", async () => {
    const login = (await wechatLogin()).body.data;
    const auth = bearer(login.token);
    const { mail } = await h.services.rewardSources.mail.send({ app: "default", userId: null, title: "Sorry", attachments: { currencies: { gems: 5 } }, sender: "ops" });
    assert.equal((await call("GET", "/api/mail", { headers: auth })).status, 200);
    assert.equal((await call("GET", "/api/mail")).status, 401);
    const claim = "/api/mail/{mailId}/claim";
    assert.equal((await call("POST", claim, { path: `/api/mail/${mail.mailId}/claim`, headers: auth })).body.data.granted, true);
    assert.equal((await call("POST", claim, { path: `/api/mail/${mail.mailId}/claim`, headers: auth })).body.data.granted, false);
    assert.equal((await call("POST", claim, { path: "/api/mail/no-such-mail/claim", headers: auth })).status, 404);

    const wechatApp = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;
    const ad = simulatorRewardKeys("wechat", wechatApp);
    const adRoute = "/api/minigame/wechat/ad-reward";
    const ts = String(clock);
    const encrypt = encryptAdReward(ad.adAesKey, { transaction_id: unique("tx"), user_id: login.openid, reward_item: "x", reward_amount: 1, custom_data: JSON.stringify({ adUnitId: "adunit-example", watchId: "w-doc" }) });
    const adCheck = (token: string) => `${adRoute}?${new URLSearchParams({ signature: adSignature(token, ts, "1"), timestamp: ts, nonce: "1", echostr: "e3" })}`;
    assert.equal((await call("GET", adRoute, { path: adCheck(ad.adToken) })).body.echostr, "e3");
    assert.equal((await call("GET", adRoute, { path: adCheck("forged") })).status, 401);
    const views = "/api/ads/views/{watchId}";
    assert.equal((await call("GET", views, { path: "/api/ads/views/w-doc", headers: auth })).status, 404);
    assert.equal((await call("POST", adRoute, { body: { signature: adSignature(ad.adToken, ts, "1", encrypt), timestamp: ts, nonce: "1", encrypt } })).body.is_valid, true);
    assert.equal((await call("POST", adRoute, { body: { signature: "0".repeat(64), timestamp: ts, nonce: "1", encrypt } })).body.is_valid, false);
    assert.equal((await call("POST", adRoute, { path: adCheck("forged") })).status, 401);
    assert.equal((await call("GET", views, { path: "/api/ads/views/w-doc", headers: auth })).body.data.granted, true);

    const gift = simulatorRewardKeys("wechat", wechatApp);
    const giftRoute = "/api/minigame/wechat/gift-push";
    const seconds = String(Math.floor(Date.now() / 1000));
    const giftCheck = (token: string) => `${giftRoute}?${new URLSearchParams({ signature: pushSignature(token, seconds, "n"), timestamp: seconds, nonce: "n", echostr: "e4" })}`;
    assert.equal((await call("GET", giftRoute, { path: giftCheck(gift.giftPushToken) })).status, 200);
    assert.equal((await call("GET", giftRoute, { path: giftCheck("forged") })).status, 401);
    const sealed = sealedGiftPush(wechatApp, { orderId: unique("gift"), openid: login.openid, giftId: "gift-example" });
    assert.equal((await call("POST", giftRoute, { path: `${giftRoute}?${sealed.query}`, body: JSON.parse(sealed.body) })).body.ErrCode, 0);
    const plain = { MsgType: "event", Event: "minigame_deliver_goods", MiniGame: { OrderId: unique("gift"), IsPreview: 0, ToUserOpenid: login.openid, GiftId: "gift-example", GoodsList: [] } };
    assert.equal((await call("POST", giftRoute, { path: giftCheck(gift.giftPushToken), body: plain })).body.ErrCode, 40011);
    assert.equal((await call("POST", giftRoute, { path: giftCheck(gift.giftPushToken), body: "x".repeat(70_000) })).status, 413);

    const douyinApp = platformDefinitions.find((p) => p.name === "douyin")!.simulatorApp.appId;
    const dy = simulatorRewardKeys("douyin", douyinApp);
    const dyRoute = "/api/minigame/douyin/gift-push";
    const dyPlayer = (await call("GET", "/api/minigame/douyin/login", { path: `/api/minigame/douyin/login?code=${unique("dygift")}` })).body.data;
    const text = JSON.stringify({ gift_id: "gift-example", gift_code: unique("cdk"), open_id: dyPlayer.openid, prop_list: [], env_type: "production", send_time: 1 });
    const dyCall = async (token: string, body: string) => conformance.check("POST", dyRoute, await h.request("POST", dyRoute, body, signDouyinPush(token, douyinApp, "gift_delivery", body, Date.now())));
    assert.equal((await dyCall(dy.giftPushToken, text)).body.success, true);
    assert.equal((await dyCall("forged", text)).status, 401);

    const codes = "/api/rewards/gift-codes";
    const dyAuth = bearer(dyPlayer.token);
    const issue = async (giftId: string) => {
      const res = await fetch(`${h.simulator.url}/__simulator/gift`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid: dyPlayer.openid, giftId, delivery: "code" }) });
      return ((await res.json()) as { giftCode: string }).giftCode;
    };
    const code = await issue("gift-example");
    assert.equal((await call("POST", codes, { body: { code }, headers: dyAuth })).body.data.granted, true);
    assert.equal((await call("POST", codes, { body: { code }, headers: dyAuth })).body.data.granted, false);
    assert.equal((await call("POST", codes, { body: { code }, headers: auth })).body.data.code, "gift_code_used");
    assert.equal((await call("POST", codes, { body: { code: unique("forged") }, headers: dyAuth })).body.data.code, "gift_code_invalid");
    assert.equal((await call("POST", codes, { body: { code: await issue("no-such-pack") }, headers: dyAuth })).body.data.code, "gift_pack_unknown");
    assert.equal((await call("POST", codes, { body: { code: unique("cdk") }, headers: auth })).body.data.code, "gift_codes_unsupported");
    assert.equal((await call("POST", codes, { body: { code: "bad code" }, headers: dyAuth })).status, 400);
    assert.equal((await call("POST", codes, { body: { code } })).status, 401);
  });

  it("social routes: player storage and subscribe messages, success and failures match the document", async () => {
    const login = (await wechatLogin()).body.data;
    const auth = bearer(login.token);
    const storage = "/api/players/me/storage";
    assert.equal((await call("PUT", storage, { body: { kvList: [{ key: "score", value: "1" }] }, headers: auth })).status, 200);
    assert.equal((await call("PUT", storage, { body: { kvList: [{ key: "k", value: "v".repeat(1100) }] }, headers: auth })).status, 400);
    assert.equal((await call("PUT", storage, { body: { kvList: [] } })).status, 401);
    assert.equal((await call("DELETE", storage, { body: { keys: ["score"] }, headers: auth })).status, 200);
    assert.equal((await call("DELETE", storage, { body: { keys: ["score"] }, headers: auth })).status, 400);
    const name = unique("nokey");
    const account = await h.request("POST", "/api/auth/register", { username: name, email: `${name}@example.com`, password: "correct horse" });
    assert.equal((await call("DELETE", storage, { body: { keys: ["x"] }, headers: bearer(account.body.data.token) })).status, 409);

    const key = { "x-internal-key": INTERNAL_KEY };
    for (const definition of platformDefinitions.filter((p) => p.social?.subscribeMessages)) {
      const platform = definition.name;
      const player = (await h.get(loginPath(definition, unique("sub")))).body.data;
      const route = `/api/minigame/${platform}/subscribe_message`;
      const body = (templateId: string) => ({ userId: player.user.id, templateId, data: { thing1: "ready" } });
      assert.equal((await call("POST", route, { body: body("tpl"), headers: key })).status, 409);
      await fetch(`${h.simulator.url}/__simulator/subscribe-grant`, { method: "POST", body: JSON.stringify({ platform, openid: player.openid, templateId: "tpl" }) });
      assert.equal((await call("POST", route, { body: body("tpl"), headers: key })).status, 200);
      assert.equal((await call("POST", route, { body: body("invalid-tpl"), headers: key })).status, 422);
      assert.equal((await call("POST", route, { body: body("tpl") })).status, 401);
      assert.equal((await call("POST", route, { body: { ...body("tpl"), userId: "no-such-user" }, headers: key })).status, 403);
    }
  });

  it("leaderboard routes: success and failures match the document", async () => {
    const auth = bearer((await wechatLogin()).body.data.token);
    const board = (suffix: string, id = "highscores") => ({ route: `/api/leaderboards/{boardId}${suffix}`, path: `/api/leaderboards/${id}${suffix}` });
    assert.equal((await call("GET", "/api/leaderboards", { headers: auth })).status, 200);
    assert.equal((await call("GET", "/api/leaderboards")).status, 401);
    const me = board("/me");
    assert.equal((await call("GET", me.route, { path: me.path, headers: auth })).status, 404);
    const around = board("/records/around-me");
    assert.equal((await call("GET", around.route, { path: around.path, headers: auth })).status, 404);
    const scores = board("/scores");
    assert.equal((await call("POST", scores.route, { path: scores.path, body: { score: 2_000_000 }, headers: auth })).status, 400);
    assert.equal((await call("POST", scores.route, { path: scores.path, body: { score: 1200, metadata: { level: 3 } }, headers: auth })).status, 200);
    const weekly = board("/scores", "weekly");
    assert.equal((await call("POST", weekly.route, { path: weekly.path, body: { score: 1 }, headers: auth })).status, 403);
    assert.equal((await call("GET", me.route, { path: me.path, headers: auth })).status, 200);
    assert.equal((await call("GET", around.route, { path: around.path, headers: auth })).status, 200);
    const records = board("/records");
    assert.equal((await call("GET", records.route, { path: `${records.path}?limit=5`, headers: auth })).status, 200);
    assert.equal((await call("GET", records.route, { path: `${records.path}?cursor=x`, headers: auth })).status, 400);
    assert.equal((await call("GET", records.route, { path: `/api/leaderboards/nope/records`, headers: auth })).status, 404);
    const join = board("/join", "weekly");
    assert.equal((await call("POST", join.route, { path: join.path, body: {}, headers: auth })).status, 200);
    assert.equal((await call("POST", join.route, { path: "/api/leaderboards/highscores/join", body: {}, headers: auth })).status, 400);
  });

  it("cloud saves routes: success and failures match the document", async () => {
    const auth = bearer((await wechatLogin()).body.data.token);
    const object = "/api/saves/{collection}/{key}";
    const created = await call("PUT", object, { path: "/api/saves/slots/one", body: { value: { level: 1 } }, headers: auth });
    assert.equal(created.status, 201);
    const v1 = created.body.data.version;
    assert.equal((await call("PUT", object, { path: "/api/saves/slots/one", body: { value: { level: 2 }, version: v1 }, headers: auth })).status, 200);
    const stale = await call("PUT", object, { path: "/api/saves/slots/one", body: { value: { level: 3 }, version: v1 }, headers: auth });
    assert.deepEqual([stale.status, stale.body.data.version], [409, v1 + 1]);
    assert.equal((await call("PUT", object, { path: "/api/saves/slots/one", body: { value: { $set: 1 } }, headers: auth })).status, 400);
    assert.equal((await call("GET", object, { path: "/api/saves/slots/one", headers: auth })).status, 200);
    assert.equal((await call("GET", object, { path: "/api/saves/slots/none", headers: auth })).status, 404);
    assert.equal((await call("GET", "/api/saves/{collection}", { path: "/api/saves/slots?limit=1", headers: auth })).status, 200);
    assert.equal((await call("GET", "/api/saves/{collection}", { path: "/api/saves/%24bad", headers: auth })).status, 400);
    const batch = await call("POST", "/api/saves/batch", { body: { writes: [{ collection: "slots", key: "two", value: {} }] }, headers: auth });
    assert.equal(batch.status, 200);
    assert.equal((await call("POST", "/api/saves/batch", { body: { reads: [{ collection: "slots", key: "two" }, { collection: "slots", key: "x" }] }, headers: auth })).status, 200);
    assert.equal((await call("POST", "/api/saves/batch", { body: { writes: [{ collection: "slots", key: "two", value: {} }] }, headers: auth })).status, 409);
    assert.equal((await call("DELETE", object, { path: `/api/saves/slots/two?version=${batch.body.data.written[0].version}`, headers: auth })).status, 200);
    assert.equal((await call("DELETE", object, { path: "/api/saves/slots/two?version=1", headers: auth })).status, 404);
  });

  it("account routes: register, login, refresh, logout", async () => {
    const name = unique("carol");
    const account = { username: name, email: `${name}@example.com`, password: "correct horse" };
    assert.equal((await call("POST", "/api/auth/register", { body: account })).status, 201);
    assert.equal((await call("POST", "/api/auth/register", { body: account })).status, 409);
    assert.equal((await call("POST", "/api/auth/register", { body: { ...account, username: "mg_reserved" } })).status, 400);
    assert.equal((await call("POST", "/api/auth/register", { body: "{not json" })).status, 400);
    assert.equal((await call("POST", "/api/auth/register", { body: { pad: "x".repeat(20_000) } })).status, 413);
    const latin1 = { "content-type": "application/json; charset=iso-8859-1" };
    assert.equal((await call("POST", "/api/auth/register", { body: account, headers: latin1 })).status, 415);

    const login = await call("POST", "/api/auth/login", { body: { email: account.email, password: account.password } });
    assert.equal(login.status, 200);
    assert.equal((await call("POST", "/api/auth/login", { body: { username: name, password: "wrong password" } })).status, 401);
    assert.equal((await call("POST", "/api/auth/login", { body: { username: name, email: account.email, password: "x" } })).status, 400);

    const { refreshToken } = login.body.data;
    const refreshed = await call("POST", "/api/auth/refresh", { body: { refreshToken } });
    assert.equal(refreshed.status, 200);
    assert.equal((await call("POST", "/api/auth/refresh", { body: { refreshToken: "not-a-token" } })).status, 401);
    assert.equal((await call("POST", "/api/auth/refresh", { body: {} })).status, 400);
    await new Promise((r) => setTimeout(r, 1_100)); // past the 1 s grace window: a replay is theft
    const replay = await call("POST", "/api/auth/refresh", { body: { refreshToken } });
    assert.deepEqual([replay.status, replay.body.data.code], [401, "refresh_token_reused"]);

    const again = await call("POST", "/api/auth/login", { body: { username: name, password: account.password } });
    assert.equal((await call("POST", "/api/auth/logout", { headers: bearer(again.body.data.token) })).status, 200);
    assert.equal((await call("POST", "/api/auth/logout", { headers: bearer(again.body.data.token) })).status, 401);
    assert.equal((await call("POST", "/api/auth/logout")).status, 401);
  });

  it("user routes: me, profile update, password", async () => {
    const { token, user } = (await wechatLogin()).body.data;
    assert.equal((await call("GET", "/api/users/me", { headers: bearer(token) })).status, 200);
    assert.equal((await call("GET", "/api/users/me")).status, 401);
    assert.equal((await call("GET", "/api/users/me", { headers: bearer("garbage") })).status, 401);

    const patch = (body: unknown) => call("PATCH", "/api/users/me", { body, headers: bearer(token) });
    assert.equal((await patch({ nickname: "Ace", avatar: "https://cdn.example.com/a.png", version: user.version })).status, 200);
    assert.equal((await patch({ nickname: "Late", version: user.version })).status, 409);
    const moderated = await patch({ nickname: "simulator-risky", version: user.version + 1 });
    assert.deepEqual([moderated.status, moderated.body.data.code], [422, "content_moderated"]);
    assert.equal((await patch({ avatar: "http://insecure.example.com/a.png", version: 2 })).status, 400);

    const put = (body: unknown, t: string) => call("PUT", "/api/users/me/password", { body, headers: bearer(t) });
    const first = await put({ newPassword: "my new password" }, token);
    assert.equal(first.status, 200);
    const next = first.body.data.token;
    assert.equal((await put({ newPassword: "another password" }, next)).status, 400);
    assert.equal((await put({ currentPassword: "wrong password", newPassword: "another password" }, next)).status, 401);
    assert.equal((await put({ newPassword: "short" }, next)).status, 400);

    const stale = (await wechatLogin()).body.data.token;
    clock += 11 * 60_000;
    assert.equal((await put({ newPassword: "my new password" }, stale)).status, 403);

    const disabledCode = unique("banned");
    const disabled = (await wechatLogin(`${disabledCode}.1`)).body.data;
    await h.services.store.setStatus(disabled.user.id, 2);
    assert.equal((await call("GET", "/api/users/me", { headers: bearer(disabled.token) })).status, 403);
    await h.services.accounts.disableUser(disabled.user.id, { reason: "test", until: new Date(clock + 3600_000).toISOString() });
    const banned = await wechatLogin(`${disabledCode}.2`);
    assert.deepEqual([banned.status, banned.body.data.code], [403, "user_disabled"]);
    assert.ok(banned.body.data.disabledUntil);

    const leaving = (await wechatLogin()).body.data.token;
    const deleted = await call("DELETE", "/api/users/me", { headers: bearer(leaving) });
    assert.equal(deleted.status, 200);
    assert.equal((await call("DELETE", "/api/users/me", { headers: bearer(leaving) })).status, 403);
    assert.equal((await call("DELETE", "/api/users/me")).status, 401);

    const expiring = (await wechatLogin()).body.data.token;
    clock += 3 * 3600_000;
    const expired = await call("GET", "/api/users/me", { headers: bearer(expiring) });
    assert.deepEqual([expired.status, expired.body.data.code], [401, "token_expired"]);
  });

  it("platform failures and our own rate limit match the document", async () => {
    const dead = await freePort();
    const broken = await startHarness({
      env: { RATE_LIMIT_IP_MAX: "2", WECHAT_APP_SECRET: "wrong-secret", DOUYIN_API_BASE_URL: `http://127.0.0.1:${dead}`, PLATFORM_TIMEOUT_MS: "500" },
    });
    try {
      const check = async (route: string, path = route) => conformance.check("GET", route, await broken.get(path));
      const misconfigured = await check("/api/minigame/wechat/access_token");
      assert.deepEqual([misconfigured.status, misconfigured.body.data.code], [502, "platform_misconfigured"]);
      const unreachable = await check("/api/minigame/douyin/access_token");
      assert.deepEqual([unreachable.status, unreachable.body.data.code], [502, "platform_unavailable"]);
      assert.equal((await check("/api/minigame/douyin/login", "/api/minigame/douyin/login?code=bob.1")).status, 502);
      assert.equal((await check("/api/minigame/wechat/login", "/api/minigame/wechat/login?jsCode=alice.1")).status, 502);
      const limited = await check("/api/minigame/wechat/login", "/api/minigame/wechat/login?jsCode=alice.2");
      assert.deepEqual([limited.status, limited.body.data.code], [429, "rate_limited"]);
    } finally {
      await broken.close();
    }
  });

  it("the check itself refuses an undocumented status, field or error code", async () => {
    const me = await wechatLogin();
    const fake = (status: number, body: unknown): Res => ({ status, body, headers: new Headers() });
    const route = "/api/minigame/wechat/login";
    assert.throws(() => conformance.check("GET", route, fake(418, me.body)), /not documented/);
    assert.throws(() => conformance.check("GET", route, fake(200, { ...me.body, data: { ...me.body.data, extra: 1 } })), /additional/);
    const user = { ...me.body.data.user, password: "hash" };
    assert.throws(() => conformance.check("GET", route, fake(200, { ...me.body, data: { ...me.body.data, user } })), /additional/);
    const wrongCode = { success: false, message: "x", data: { code: "version_conflict" } };
    assert.throws(() => conformance.check("GET", route, fake(401, wrongCode)), /allowed values/);
  });

  it("answers the growth routes as documented", async () => {
    // Earlier tests moved the server's clock hours ahead; sealed data is checked against it.
    clock = Date.now();
    const dy = (await call("GET", "/api/minigame/douyin/login", { path: `/api/minigame/douyin/login?code=${unique("growth")}` })).body.data;
    const sidebar = "/api/growth/sidebar";
    assert.equal((await call("POST", sidebar, { body: { launchFrom: "homepage", location: "sidebar_card" }, headers: bearer(dy.token) })).body.data.granted, true);
    assert.equal((await call("POST", sidebar, { body: { launchFrom: "homepage", location: "feed" }, headers: bearer(dy.token) })).status, 422);
    assert.equal((await call("POST", sidebar, { body: { launchFrom: 1 }, headers: bearer(dy.token) })).status, 400);
    assert.equal((await call("POST", "/api/growth/risk-check", { headers: bearer(dy.token) })).body.data.checked, false);
    assert.equal((await call("POST", "/api/growth/risk-check")).status, 401);
    const wx = (await wechatLogin()).body.data;
    const sealFor = async (data: Record<string, unknown>) =>
      (await fetch(`${h.simulator.url}/__simulator/encrypt`, { method: "POST", body: JSON.stringify({ session_key: wx.session_key, data }) })).json();
    const groupInfo = "/api/growth/wechat/group-enter-info";
    assert.equal((await call("POST", groupInfo, { body: await sealFor({ opengid: "tG-1", chat_type: 3 }), headers: bearer(wx.token) })).body.data.opengid, "tG-1");
    assert.equal((await call("POST", groupInfo, { body: await sealFor({ chat_type: 3 }), headers: bearer(wx.token) })).status, 422);
    const gameClub = "/api/growth/wechat/game-club";
    const active = await sealFor({ dataList: [{ dataType: 6, value: 1 }] });
    assert.equal((await call("POST", gameClub, { body: active, headers: bearer(wx.token) })).body.data.reward.granted, true);
    assert.equal((await call("POST", gameClub, { body: { encryptedData: "%%" , iv: "x" }, headers: bearer(wx.token) })).status, 400);
    const share = (await call("POST", "/api/growth/shares", { body: { subject: "room", subjectId: "room-1", limit: 2 }, headers: bearer(wx.token) })).body.data;
    assert.equal((await call("POST", "/api/growth/shares", { body: { subject: "room" }, headers: bearer(wx.token) })).status, 400);
    const joinRoute = "/api/growth/shares/{activityId}/join";
    assert.equal((await call("POST", joinRoute, { path: `/api/growth/shares/${share.activityId}/join`, headers: bearer(dy.token) })).body.data.subjectId, "room-1");
    assert.equal((await call("POST", joinRoute, { path: "/api/growth/shares/nope/join", headers: bearer(dy.token) })).status, 404);
  });

  it("exercised every documented route, with a success and a failure each", () => {
    for (const [route, operations] of Object.entries(doc.paths)) {
      if (!route.startsWith("/api/")) continue; // the console's: console-openapi.test.ts
      for (const [method, operation] of Object.entries(operations as Record<string, any>)) {
        const statuses = Object.keys(operation.responses).filter((s) => conformance.seen.has(`${method.toUpperCase()} ${route} ${s}`));
        assert.ok(statuses.some((s) => s < "300"), `${method} ${route}: no success exercised`);
        assert.ok(statuses.some((s) => s >= "400"), `${method} ${route}: no failure exercised`);
      }
    }
  });
});

describe("documentation routes", () => {
  it("serve Swagger UI as HTML and the document as JSON", async () => {
    const h = await startHarness();
    try {
      const ui = await fetch(`${h.baseUrl}/api-docs`);
      assert.equal(ui.status, 200);
      assert.match(ui.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await ui.text(), /swagger-ui/);
      const json = await h.get("/api-docs.json");
      assert.match(json.headers.get("content-type") ?? "", /application\/json/);
      assert.equal(json.body.info.title, "Mini-game login and room server");
      assert.equal((await h.get("/")).status, 404, "no playground without the simulator unless asked for");
    } finally {
      await h.close();
    }
  });

  it("do not exist with API_DOCS_ENABLED=false; the playground exists with PLAYGROUND_ENABLED=true", async () => {
    const h = await startHarness({ env: { API_DOCS_ENABLED: "false", PLAYGROUND_ENABLED: "true" } });
    try {
      assert.equal((await fetch(`${h.baseUrl}/api-docs`)).status, 404);
      assert.equal((await fetch(`${h.baseUrl}/api-docs.json`)).status, 404);
      const page = await fetch(`${h.baseUrl}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /playground\.js/);
      ensureClientBuilt();
      const client = await fetch(`${h.baseUrl}/vendor/minigame-client.js`);
      assert.equal(client.status, 200);
      assert.match(client.headers.get("content-type") ?? "", /javascript/);
    } finally {
      await h.close();
    }
  });
});

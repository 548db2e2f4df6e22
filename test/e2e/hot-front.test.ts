/**
 * The hot routes (logins on every platform, access token, /users/me, refresh) answered by the node:http
 * front (src/server/hot-front.ts) and through Express (HTTP_HOT_FRONT=false) give the same answers:
 * each request below goes to one server of each kind, and the two answers are compared whole (status,
 * headers but the date and request id, the envelope with what differs per server masked), then the
 * two servers' request metrics. The other suites run through the front (its default); any of them
 * runs through Express with TEST_HTTP_HOT_FRONT=false (test/support/app-harness.ts).
 */
import assert from "node:assert/strict";
import type http from "node:http";
import { startHarness, type Harness } from "../support/app-harness";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";
import { rawRequest, type RawRequest } from "../support/raw-http";

const METRICS_TOKEN = "metrics-token-0123456789";
/** Values that differ per server by nature (ids, tokens, times; a cached token's remaining seconds): compared by type only. */
const PER_SERVER = /(id|_key|token|At|username|email|expires_in)$/i;

function masked(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return PER_SERVER.test(key) ? `<${typeof value}>` : value;
}

function comparable(res: { status: number; headers: http.IncomingHttpHeaders; text: string; json: unknown }) {
  const { date: _date, "x-request-id": requestId, ...headers } = res.headers;
  return { status: res.status, requestId: typeof requestId, headers, body: res.json === undefined ? res.text : masked(res.json) };
}

/** Both servers' answers to one request; `build` is called once per server (a login code is used once). */
async function both(servers: Harness[], build: (h: Harness) => RawRequest) {
  const answers = [];
  for (const h of servers) answers.push(comparable(await rawRequest(h.baseUrl, build(h))));
  assert.deepEqual(answers[0], answers[1], `front and Express differ on ${build(servers[0]!).method} ${build(servers[0]!).path}`);
  return answers[0]!;
}

async function httpSeries(h: Harness): Promise<string[]> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const lines = (await res.text()).split("\n");
  return lines.filter((l) => l.startsWith("http_requests_total{") && l.includes('route="/api/')).sort();
}

/** Counts the requests the Express app's handler sees, per path, while `servers` run. */
function countExpressEntries(): { seen: Map<string, number>; restore(): void } {
  // express() copies the application's methods onto each app it makes: wrapped before the servers boot.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const application = require("express/lib/application") as { handle: (req: http.IncomingMessage, ...rest: unknown[]) => void };
  const original = application.handle;
  const seen = new Map<string, number>();
  application.handle = function (this: unknown, req: http.IncomingMessage, ...rest: unknown[]) {
    const path = (req.url ?? "").split("?")[0]!;
    seen.set(path, (seen.get(path) ?? 0) + 1);
    return original.call(this, req, ...rest);
  };
  return { seen, restore: () => void (application.handle = original) };
}

describe("hot routes: the node:http front answers as Express does", () => {
  let front: Harness;
  let express: Harness;
  let entries: ReturnType<typeof countExpressEntries>;
  const env = { METRICS_TOKEN, TRUST_PROXY: "loopback", RATE_LIMIT_IP_MAX: "3", CORS_ORIGINS: "https://game.example.com" };

  before(async () => {
    entries = countExpressEntries();
    front = await startHarness({ env: { ...env, HTTP_HOT_FRONT: "true" } });
    express = await startHarness({ env: { ...env, HTTP_HOT_FRONT: "false" }, simulator: front.simulator });
  });
  after(async () => {
    entries?.restore();
    await express?.close();
    await front?.close();
  });

  // Each test spends the rate-limit budget of its own client addresses (X-Forwarded-For, trusted from loopback).
  let client = 0;
  const from = () => ({ "x-forwarded-for": `203.0.113.${++client}` });

  it("logs in on every platform, and refuses a bad or missing code, as Express does, without entering Express", async () => {
    for (const platform of platformDefinitions) {
      const headers = from();
      const player = freshPlayer(`front${platform.name}`);
      const ok = await both([front, express], (h) => ({ method: "GET", path: loginPath(platform, `${player}${h === front ? "f" : "e"}.1`), headers }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const bad = await both([front, express], () => ({ method: "GET", path: `/api/minigame/${platform.name}/login?appId=%20`, headers }));
      assert.equal(bad.status, 400);
    }
    // The Express server's two requests per platform went through the app's handler; the front's never did.
    for (const platform of platformDefinitions) assert.equal(entries.seen.get(`/api/minigame/${platform.name}/login`), 2, platform.name);
  });

  it("applies the edge rules: CORS, malformed URLs, HEAD, OPTIONS and preflights, the request id", async () => {
    const path = "/api/minigame/wechat/access_token";
    const allowed = await both([front, express], () => ({ method: "GET", path, headers: { origin: "https://game.example.com" } }));
    assert.equal(allowed.headers["access-control-allow-origin"], "https://game.example.com");
    const other = await both([front, express], () => ({ method: "GET", path, headers: { origin: "https://evil.example.com" } }));
    assert.equal(other.headers["access-control-allow-origin"], undefined);
    assert.equal((await both([front, express], () => ({ method: "GET", path: `${path}?appId=%ZZ` }))).status, 400);
    assert.equal((await both([front, express], () => ({ method: "HEAD", path }))).status, 405);
    assert.equal((await both([front, express], () => ({ method: "OPTIONS", path }))).status, 405);
    const preflight = { origin: "https://game.example.com", "access-control-request-method": "POST" };
    assert.equal((await both([front, express], () => ({ method: "OPTIONS", path: "/api/auth/refresh", headers: preflight }))).status, 204);
    assert.equal((await both([front, express], () => ({ method: "GET", path: "/api/users/me/" }))).status, 401);
    for (const h of [front, express]) {
      const echoed = await rawRequest(h.baseUrl, { method: "GET", path, headers: { "x-request-id": "req-from-client.1" } });
      assert.equal(echoed.headers["x-request-id"], "req-from-client.1");
    }
  });

  it("answers /users/me with a token, and refuses a missing or bad one", async () => {
    const tokens = new Map<Harness, string>();
    for (const h of [front, express]) {
      const login = await h.get(loginPath(platformDefinitions[0]!, `${freshPlayer("frontme")}.1`), from());
      tokens.set(h, login.body.data.token);
    }
    const me = await both([front, express], (h) => ({ method: "GET", path: "/api/users/me", headers: { authorization: `Bearer ${tokens.get(h)}` } }));
    assert.equal(me.status, 200);
    assert.equal((await both([front, express], () => ({ method: "GET", path: "/api/users/me" }))).status, 401);
    assert.equal((await both([front, express], () => ({ method: "GET", path: "/api/users/me", headers: { authorization: "Bearer nope" } }))).status, 401);
  });

  it("answers /api/config (its ETag and 304, a bad appVersion, no token) on both paths, the front's without entering Express", async () => {
    const before = entries.seen.get("/api/config") ?? 0;
    const answers = [];
    for (const h of [front, express]) {
      const headers = from();
      const login = await h.get(loginPath(platformDefinitions[0]!, `${freshPlayer("frontconfig")}.1`), headers);
      const auth = { ...headers, authorization: `Bearer ${login.body.data.token}` };
      const config = await rawRequest(h.baseUrl, { method: "GET", path: "/api/config", headers: auth });
      const again = await rawRequest(h.baseUrl, { method: "GET", path: "/api/config", headers: { ...auth, "if-none-match": String(config.headers.etag) } });
      const badVersion = await rawRequest(h.baseUrl, { method: "GET", path: "/api/config?appVersion=one", headers: auth });
      const anonymous = await rawRequest(h.baseUrl, { method: "GET", path: "/api/config", headers });
      answers.push([config.status, again.status, badVersion.status, anonymous.status, Object.keys(config.json.data.flags).sort()]);
    }
    assert.deepEqual(answers[0], [200, 304, 400, 401, answers[1]![4]]);
    assert.deepEqual(answers[0], answers[1]);
    assert.equal((entries.seen.get("/api/config") ?? 0) - before, 4, "only the Express server's four requests entered Express");
  });

  it("refreshes, and refuses bodies by the same rules: type, size, JSON, fields", async () => {
    const refresh = new Map<Harness, string>();
    for (const h of [front, express]) {
      const login = await h.get(loginPath(platformDefinitions[0]!, `${freshPlayer("frontrefresh")}.1`), from());
      refresh.set(h, login.body.data.refreshToken);
    }
    const json = { "content-type": "application/json" };
    const post = (headers: Record<string, string>, body?: RawRequest["body"]) => () => ({ method: "POST", path: "/api/auth/refresh", headers: { ...from(), ...headers }, body });
    const ok = await both([front, express], (h) => ({ method: "POST", path: "/api/auth/refresh", headers: { ...json, ...from() }, body: JSON.stringify({ refreshToken: refresh.get(h) }) }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await both([front, express], post(json, JSON.stringify({ refreshToken: "nope" })))).status, 401);
    assert.equal((await both([front, express], post(json, "{not json"))).status, 400);
    assert.equal((await both([front, express], post(json, JSON.stringify({ refreshToken: "x".repeat(20_000) })))).status, 413);
    assert.equal((await both([front, express], post({ "content-type": "text/plain" }, "refreshToken=x"))).status, 415);
    assert.equal((await both([front, express], post({ "content-type": "text/plain" }, [Buffer.from("x")]))).status, 415);
    assert.equal((await both([front, express], post({}, undefined))).status, 400);
    assert.equal((await both([front, express], post({ ...json, "content-encoding": "gzip" }, "not compressed"))).status, 400);
    assert.equal((await both([front, express], post(json, JSON.stringify({ refreshToken: "a\u0000b" })))).status, 400);
  });

  it("limits logins per client address (trusted proxies) the same way", async () => {
    const headers = from();
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await both([front, express], (h) => ({ method: "GET", path: loginPath(platformDefinitions[0]!, `${freshPlayer("frontlimit")}${h === front ? "f" : "e"}.1`), headers }))).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const another = await both([front, express], (h) => ({ method: "GET", path: loginPath(platformDefinitions[0]!, `${freshPlayer("frontlimit2")}${h === front ? "f" : "e"}.1`), headers: from() }));
    assert.equal(another.status, 200);
  });

  it("labels the requests' metrics alike", async () => {
    const [a, b] = [await httpSeries(front), await httpSeries(express)];
    assert.ok(a.some((l) => l.includes('route="/api/auth/refresh"')) && a.some((l) => l.includes('route="/api/users/me"')), a.join("\n"));
    assert.deepEqual(a, b);
  });
});

describe("hot routes: the drain on SIGTERM takes the front's requests as Express's", () => {
  for (const hotFront of ["true", "false"]) {
    it(`answers a hot route during the drain with Connection: close (HTTP_HOT_FRONT=${hotFront})`, async () => {
      const h = await startHarness({ env: { HTTP_HOT_FRONT: hotFront, SHUTDOWN_ACCEPT_WINDOW_MS: "1500" } });
      const keepAlive = { connection: "keep-alive" };
      const before = await rawRequest(h.baseUrl, { method: "GET", path: "/api/minigame/wechat/access_token", headers: keepAlive });
      assert.equal(before.headers.connection, "keep-alive");
      // What SIGTERM starts (Colyseus's graceful shutdown, whose first step is the drain); the listener stays open a while.
      const closing = h.close();
      await new Promise((r) => setTimeout(r, 200));
      const during = await rawRequest(h.baseUrl, { method: "GET", path: "/api/minigame/wechat/access_token", headers: keepAlive });
      await closing;
      assert.equal(during.status, 200, during.text);
      assert.equal(during.headers.connection, "close");
    });
  }
});

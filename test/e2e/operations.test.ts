import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";

describe("operational routes", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { METRICS_TOKEN: "metrics-token-0123456789" } });
  });
  after(() => h?.close());

  it("answers /healthz and /readyz outside the /api prefix", async () => {
    const health = await h.get("/healthz");
    assert.equal(health.status, 200);
    assert.equal(health.body.data.status, "ok");
    const ready = await h.get("/readyz");
    assert.equal(ready.status, 200);
    assert.deepEqual({ store: ready.body.data.store, cache: ready.body.data.cache }, { store: "ok", cache: "ok" });
  });

  it("exposes Prometheus metrics by route template, never by raw URL, behind the metrics token", async () => {
    const code = `metricscode${Date.now()}`;
    await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
    await h.get(`/api/minigame/wechat/login?jsCode=invalid${code}`);
    await h.get("/api/minigame/douyin/access_token");
    await h.get("/api/minigame/douyin/access_token");

    assert.equal((await h.get("/metrics")).status, 401);
    const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789" } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/minigame\/wechat\/login",status="200"\} 1/);
    assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/minigame\/wechat\/login",status="200"\} 1/);
    assert.match(text, /logins_total\{platform="wechat",app="default",outcome="ok"\} 1/);
    assert.match(text, /logins_total\{platform="wechat",app="default",outcome="platform_code_invalid"\} 1/);
    assert.match(text, /platform_call_duration_seconds_count\{platform="wechat",app="default",call="code2session",outcome="ok"\} 1/);
    assert.match(text, /platform_access_token_requests_total\{platform="douyin",app="default",result="fetch"\} 1/);
    assert.match(text, /platform_access_token_requests_total\{platform="douyin",app="default",result="hit"\} 1/);
    assert.match(text, /colyseus_rooms \d+/);
    assert.ok(!text.includes(code), "login codes never appear in metrics");
  });

  it("labels failed requests by their route template too, including 401s from the auth middleware", async () => {
    const failedLogin = await h.get(`/api/minigame/wechat/login?jsCode=invalid${Date.now()}`);
    assert.equal(failedLogin.status >= 400, true);
    const badPassword = await h.request("POST", "/api/auth/login", { identifier: "nobody-here", password: "wrong-password-123" });
    assert.equal(badPassword.status >= 400, true);
    assert.equal((await h.get("/api/users/me")).status, 401);
    assert.equal((await h.request("PATCH", "/api/users/me", { version: 1 }, { authorization: "Bearer not-a-token" })).status, 401);
    assert.equal((await h.request("POST", "/api/auth/logout")).status, 401);
    assert.equal((await h.get("/api/no-such-route")).status, 404);

    const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789" } });
    const series = (await res.text()).split("\n").filter((l) => l.startsWith("http_requests_total{"));
    const count = (method: string, route: string, status: number) =>
      series.filter((l) => l.startsWith(`http_requests_total{method="${method}",route="${route}",status="${status}"}`)).length;
    assert.equal(count("GET", "/api/minigame/wechat/login", failedLogin.status), 1, series.join("\n"));
    assert.equal(count("POST", "/api/auth/login", badPassword.status), 1, series.join("\n"));
    assert.equal(count("GET", "/api/users/me", 401), 1, series.join("\n"));
    assert.equal(count("PATCH", "/api/users/me", 401), 1, series.join("\n"));
    assert.equal(count("POST", "/api/auth/logout", 401), 1, series.join("\n"));
    assert.equal(count("GET", "unmatched", 404), 1, series.join("\n"));
    // Every label is a route this server declares, or "unmatched".
    const routes = new Set(series.map((l) => /route="([^"]*)"/.exec(l)![1]));
    for (const route of routes) assert.match(route, /^(unmatched|\/api\/(minigame\/(wechat|douyin)\/(login|access_token)|auth\/(register|login|refresh|logout)|users\/me(\/password)?))$/);
  });

  it("answers 503 from /readyz and fails fast when the store is gone", async () => {
    const broken = await startHarness({ simulator: h.simulator });
    try {
      await broken.services.store.close();
      const ready = await broken.get("/readyz");
      assert.equal(ready.status, 503);
      assert.equal(ready.body.data.store, "unavailable");
      assert.equal(ready.body.data.cache, "ok");
    } finally {
      await broken.close();
    }
  });
});

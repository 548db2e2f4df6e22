import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { freePort, startHarness, type Harness } from "../support/app-harness";

let seq = 0;
const fresh = (label: string) => `${label}${Date.now().toString(36)}y${seq++}`;

/** A fake upstream that misbehaves in a chosen way, for the failures the simulator cannot show. */
async function startRogueUpstream(behaviour: "garbage" | "hang" | "http500"): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((_req, res) => {
    if (behaviour === "garbage") res.end("<html>not json</html>");
    else if (behaviour === "http500") res.writeHead(500).end("{}");
    // "hang": never answer
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function assertFailure(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(typeof res.body.message, "string");
  assert.ok(res.body.message.length > 0);
  assert.equal(res.body.data.code, code);
  assert.doesNotMatch(JSON.stringify(res.body), /\bat \S+ \(|\.[jt]s:\d+:\d+/, "no stack trace");
}

describe("mini-game login failures", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h?.close());

  describe("invalid input → 400 invalid_request", () => {
    const cases: Array<[string, string]> = [
      ["missing jsCode", "/api/minigame/wechat/login"],
      ["empty jsCode", "/api/minigame/wechat/login?jsCode="],
      ["jsCode over 256 characters", `/api/minigame/wechat/login?jsCode=${"a".repeat(257)}`],
      ["a control character", "/api/minigame/wechat/login?jsCode=abc%00def"],
      ["a repeated parameter", "/api/minigame/wechat/login?jsCode=a&jsCode=b"],
      ["an object parameter", "/api/minigame/wechat/login?jsCode[x]=1"],
      ["a Douyin code over 256 characters", `/api/minigame/douyin/login?code=${"b".repeat(257)}`],
      ["a Douyin anonymous_code with a newline", "/api/minigame/douyin/login?anonymous_code=a%0Ab"],
    ];
    for (const [label, path] of cases) {
      it(`rejects ${label}`, async () => {
        const res = await h.get(path);
        assertFailure(res, 400, "invalid_request");
        assert.ok(Array.isArray(res.body.data.fields));
      });
    }
    it("accepts a code of exactly 256 characters (the platform then judges it)", async () => {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=${"c".repeat(256)}`);
      assertFailure(res, 401, "platform_code_invalid"); // the simulator's own format caps codes at 128
    });
  });

  describe("platform rejections", () => {
    it("maps an invalid WeChat code to 401 platform_code_invalid, keeping errcode and errmsg", async () => {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=invalid${fresh("x")}`);
      assertFailure(res, 401, "platform_code_invalid");
      assert.equal(res.body.data.errcode, 40029);
      assert.match(res.body.data.errmsg, /^invalid code, rid: /);
      assert.equal(res.body.data.token, "");
      assert.equal(res.body.data.user, null);
    });

    it("maps a reused WeChat code to 401 with errcode 40163", async () => {
      const code = fresh("once");
      assert.equal((await h.get(`/api/minigame/wechat/login?jsCode=${code}`)).status, 200);
      const res = await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
      assertFailure(res, 401, "platform_code_invalid");
      assert.equal(res.body.data.errcode, 40163);
    });

    it("maps a blocked user to 403 platform_user_blocked", async () => {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=blocked${fresh("b")}`);
      assertFailure(res, 403, "platform_user_blocked");
      assert.equal(res.body.data.errcode, 40226);
    });

    it("maps the platform's minute quota to 429 platform_rate_limited", async () => {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=ratelimited${fresh("r")}`);
      assertFailure(res, 429, "platform_rate_limited");
      assert.equal(res.body.data.errcode, 45011);
    });

    it("retries a busy platform a bounded number of times, then answers 502 platform_unavailable", async () => {
      h.simulator.resetStats();
      const res = await h.get(`/api/minigame/wechat/login?jsCode=busy${fresh("b")}`);
      assertFailure(res, 502, "platform_unavailable");
      assert.equal(res.body.data.errcode, -1);
      assert.equal(h.simulator.stats().code2session.wechat, h.config.platformBusyRetries + 1);
    });

    it("retries a busy Douyin platform too", async () => {
      h.simulator.resetStats();
      const res = await h.get(`/api/minigame/douyin/login?code=busy${fresh("b")}`);
      assertFailure(res, 502, "platform_unavailable");
      assert.equal(h.simulator.stats().code2session.douyin, h.config.platformBusyRetries + 1);
    });
  });

  describe("our own misconfiguration and unreachable platforms", () => {
    it("maps rejected app credentials to 502 platform_misconfigured and logs it as an error", async () => {
      const bad = await startHarness({ env: { WECHAT_APP_SECRET: "wrong-secret", DOUYIN_APP_ID: "tt_unknown" }, simulator: h.simulator });
      try {
        const wx = await bad.get(`/api/minigame/wechat/login?jsCode=${fresh("m")}`);
        assertFailure(wx, 502, "platform_misconfigured");
        assert.equal(wx.body.data.errcode, 40125);
        const dy = await bad.get(`/api/minigame/douyin/login?code=${fresh("m")}`);
        assertFailure(dy, 502, "platform_misconfigured");
        assert.equal(dy.body.data.errcode, 40015);
        const errors = bad.logs.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);
        assert.ok(errors.some((l) => l.event === "request_failed" && l.errorCode === "platform_misconfigured" && l.errcode === 40125));
      } finally {
        await bad.close();
      }
    });

    it("answers 502 platform_unavailable when the platform is unreachable", async () => {
      const port = await freePort(); // nothing listens there
      const down = await startHarness({ env: { WECHAT_API_BASE_URL: `http://127.0.0.1:${port}` }, simulator: h.simulator });
      try {
        assertFailure(await down.get(`/api/minigame/wechat/login?jsCode=${fresh("d")}`), 502, "platform_unavailable");
      } finally {
        await down.close();
      }
    });

    for (const behaviour of ["garbage", "http500", "hang"] as const) {
      it(`answers 502 platform_unavailable when the platform answers ${behaviour}`, async () => {
        const rogue = await startRogueUpstream(behaviour);
        const app = await startHarness({
          env: { WECHAT_API_BASE_URL: rogue.url, PLATFORM_TIMEOUT_MS: "300" },
          simulator: h.simulator,
        });
        try {
          const started = Date.now();
          assertFailure(await app.get(`/api/minigame/wechat/login?jsCode=${fresh("g")}`), 502, "platform_unavailable");
          assert.ok(Date.now() - started < 5000, "bounded by the timeout");
        } finally {
          await app.close();
          await rogue.close();
        }
      });
    }
  });

  it("answers unknown /api routes with a 404 envelope", async () => {
    assertFailure(await h.get("/api/nope"), 404, "route_not_found");
    assertFailure(await h.get("/api/minigame/myspace/login?code=x"), 404, "route_not_found");
  });

  it("answers a malformed JSON body with 400, not 500", async () => {
    const res = await h.request("POST", "/api/minigame/wechat/login", "{not json", { "content-type": "application/json" });
    assertFailure(res, 400, "invalid_request");
  });
});

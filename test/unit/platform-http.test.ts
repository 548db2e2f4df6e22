import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import type { PlatformClientDeps } from "../../src/platforms/platform";
import { callPlatformApi } from "../../src/platforms/shared/http-json";

/**
 * The one HTTP path every platform call takes, against a real local server that misbehaves on
 * purpose: what reaches the caller is always a platform_unavailable with a reason, within the
 * deadline, whatever the server does.
 */
describe("platform HTTP calls", () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", headers: req.headers, body });
        const path = (req.url ?? "").split("?")[0];
        if (path === "/plain") {
          res.writeHead(200, { "content-type": "text/plain" });
          res.end(JSON.stringify({ errcode: 0, openid: "o1" }));
        } else if (path === "/huge") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(`{"pad":"${"x".repeat(1_200_000)}"}`);
        } else if (path === "/drip") {
          // Headers at once, then a byte every 50 ms: never idle long, but never done in time.
          res.writeHead(200, { "content-type": "application/json" });
          const timer = setInterval(() => res.write(" "), 50);
          res.on("close", () => clearInterval(timer));
        } else if (path === "/array") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end("[1,2]");
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const deps = (timeoutMs = 2000): PlatformClientDeps => ({
    settings: { appId: "app", appSecret: "secret", apiBaseUrl: baseUrl, extra: {} },
    timeoutMs,
    busyRetries: 0,
    logger: createLogger({ level: "silent" }),
  });
  const notBusy = () => false;

  async function failure(call: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
    const err = await call.then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError, String(err));
    return { code: err.code, reason: (err.data as { reason?: unknown } | undefined)?.reason };
  }

  it("sends the query URL-encoded and the body as JSON, and reads JSON whatever the Content-Type says", async () => {
    const reply = await callPlatformApi("wechat", deps(), {
      method: "POST",
      path: "/plain",
      query: { appid: "a b&c", skipped: undefined },
      body: { content: "你好" },
      headers: { "X-Token": "t" },
      isBusy: notBusy,
    });
    assert.deepEqual(reply, { errcode: 0, openid: "o1" });
    const request = seen.at(-1)!;
    assert.equal(request.url, "/plain?appid=a+b%26c");
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["x-token"], "t");
    assert.deepEqual(JSON.parse(request.body), { content: "你好" });
  });

  it("refuses an answer above 1 MB instead of buffering it", async () => {
    assert.deepEqual(await failure(callPlatformApi("wechat", deps(), { method: "GET", path: "/huge", isBusy: notBusy })), {
      code: "platform_unavailable",
      reason: "network_error",
    });
  });

  it("holds a hard deadline over the whole exchange, even when bytes keep trickling in", async () => {
    const started = Date.now();
    const result = await failure(callPlatformApi("wechat", deps(400), { method: "GET", path: "/drip", isBusy: notBusy }));
    const took = Date.now() - started;
    assert.deepEqual(result, { code: "platform_unavailable", reason: "timeout" });
    assert.ok(took >= 380 && took < 1500, `gave up after ${took} ms for a 400 ms deadline`);
  });

  it("calls a non-object JSON answer and an unexpected status what they are", async () => {
    assert.equal((await failure(callPlatformApi("wechat", deps(), { method: "GET", path: "/array", isBusy: notBusy }))).reason, "malformed_response");
    assert.equal((await failure(callPlatformApi("wechat", deps(), { method: "GET", path: "/missing", isBusy: notBusy }))).reason, "http_404");
  });
});

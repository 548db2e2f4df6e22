/**
 * Douyin answers the simulator does not produce, from a canned upstream: how the client classifies
 * them (platform-apis.md §4).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness, type Harness } from "../support/app-harness";

describe("Douyin login error classes", () => {
  let reply: Record<string, unknown> = {};
  let upstream: http.Server;
  let h: Harness;

  before(async () => {
    upstream = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply)));
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    h = await startHarness({ env: { DOUYIN_API_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } });
  });
  after(async () => {
    await h?.close();
    upstream?.closeAllConnections();
    await new Promise((r) => upstream?.close(r));
  });

  it("treats 40014 (a missing parameter we should have sent) as our misconfiguration, not the player's code", async () => {
    reply = { errcode: 40014, errmsg: "bad params", error: 1, message: "bad parameters" };
    const res = await h.get("/api/minigame/douyin/login?code=alice.1");
    assert.equal(res.status, 502);
    assert.equal(res.body.data.code, "platform_misconfigured");
    assert.equal(res.body.data.errcode, 40014);
  });

  it("treats error 3 with an errcode it does not know as a refused code", async () => {
    reply = { errcode: 40029, errmsg: "bad code", error: 3, message: "bad code" };
    const res = await h.get("/api/minigame/douyin/login?code=alice.2");
    assert.equal(res.status, 401);
    assert.equal(res.body.data.code, "platform_code_invalid");
    assert.equal(res.body.data.error, 3);
  });

  it("still treats an unknown failure outside the code class as the platform's trouble", async () => {
    reply = { errcode: 49999, errmsg: "something", error: 1, message: "something" };
    const res = await h.get("/api/minigame/douyin/login?code=alice.3");
    assert.equal(res.status, 502);
    assert.equal(res.body.data.code, "platform_unavailable");
  });
});

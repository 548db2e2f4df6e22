/**
 * The network edge against a hostile client, over real HTTP and WebSocket, on every backend:
 * one client-address rule (forwarded headers count only through TRUST_PROXY), CORS by CORS_ORIGINS
 * on /api and /matchmake alike, HOST, and requests that used to hang, leak HTML or answer 500.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { matchMaker, Room, type AuthContext, type Client } from "@colyseus/core";
import WebSocket from "ws";
import { startHarness, type Harness, useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { rawRequest } from "../support/raw-http";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

/** Records the address the WebSocket transport hands to a room's (instance) auth. */
class AddressProbeRoom extends Room {
  static seen: unknown[] = [];
  override onAuth(_client: Client, _options: unknown, context: AuthContext) {
    AddressProbeRoom.seen.push(context.ip);
    return true;
  }
}

async function login(h: Harness, headers: Record<string, string> = {}): Promise<string> {
  const res = await h.get(`/api/minigame/wechat/login?jsCode=${unique("edge")}`, headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.token;
}

/** A matchmaking call as the SDK makes it, with whatever headers a client chooses to send. */
function matchmake(h: Harness, token: string, headers: Record<string, string> = {}, room = "lobby") {
  return rawRequest(h.baseUrl, {
    method: "POST",
    path: `/matchmake/joinOrCreate/${room}`,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({}),
  });
}

const refusedAsRateLimited = (res: { status: number; json: any }) => res.json?.code === 429 && res.json?.error === "rate_limited";
const listenAddress = (h: Harness) => ((h.colyseus.server.transport as unknown as { server: { address(): AddressInfo } }).server.address()).address;

for (const backend of backends) {
  describe(`network edge — ${backend.name}`, function () {
    this.timeout(30_000);

    describe("development settings, no TRUST_PROXY", () => {
      let h: Harness;
      let release: () => Promise<void>;
      before(async () => {
        const prepared = await backend.prepare();
        release = prepared.release;
        h = await startHarness({ env: { ...prepared.env, RATE_LIMIT_IP_MAX: "4" } });
        matchMaker.defineRoomType("address_probe", AddressProbeRoom);
      });
      after(async () => {
        await h?.close();
        await release?.();
      });

      it("counts matchmaking per socket address: rotating X-Forwarded-For / X-Real-IP does not get past the per-IP limit", async () => {
        const token = await login(h);
        const answers = [];
        for (let i = 0; i < 6; i++) {
          answers.push(await matchmake(h, token, { "x-forwarded-for": `198.51.100.${i}`, "x-real-ip": `203.0.113.${i}` }));
        }
        assert.deepEqual(
          answers.map(refusedAsRateLimited),
          [false, false, false, false, true, true],
          answers.map((a) => a.text).join("\n"),
        );
      });

      it("hands the room's WebSocket auth the socket address, not X-Real-IP / X-Forwarded-For", async () => {
        AddressProbeRoom.seen = [];
        const token = await login(h);
        const seat = await matchmake(h, token, {}, "address_probe");
        assert.equal(seat.status, 200, seat.text);
        const { processId, roomId, sessionId } = seat.json;
        const port = new URL(h.baseUrl).port;
        const ws = new WebSocket(`ws://127.0.0.1:${port}/${processId}/${roomId}?sessionId=${sessionId}`, {
          headers: { "x-real-ip": "203.0.113.7", "x-forwarded-for": "203.0.113.8" },
        });
        await new Promise<void>((resolve, reject) => {
          ws.once("message", () => resolve());
          ws.once("error", reject);
        });
        ws.close();
        assert.deepEqual(AddressProbeRoom.seen, ["127.0.0.1"]);
      });

      it("listens on 127.0.0.1 by default outside production", () => {
        assert.equal(listenAddress(h), "127.0.0.1");
      });

      it("reflects any origin in development, on /api and on /matchmake", async () => {
        const origin = "https://anywhere.example";
        const api = await rawRequest(h.baseUrl, { method: "GET", path: "/api/users/me", headers: { origin } });
        assert.equal(api.headers["access-control-allow-origin"], origin);
        const preflight = await rawRequest(h.baseUrl, {
          method: "OPTIONS",
          path: "/matchmake/joinOrCreate/lobby",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers["access-control-allow-origin"], origin);
        assert.equal(preflight.headers["access-control-allow-credentials"], "true");
      });

    });

    describe("hostile input, default limits", () => {
      const h = useHarness(backend);

      it("refuses a body that does not decompress with a 4xx envelope (the push URLs: in the platform's shape), on every route that takes a body", async () => {
        const docs = await h.get("/api-docs.json");
        const bodyRoutes: Array<{ method: string; path: string }> = [];
        for (const [path, ops] of Object.entries(docs.body.paths as Record<string, Record<string, { requestBody?: unknown }>>)) {
          for (const [method, op] of Object.entries(ops)) if (op.requestBody) bodyRoutes.push({ method: method.toUpperCase(), path });
        }
        assert.ok(bodyRoutes.length >= 9, `only ${bodyRoutes.length} body routes described`);
        const failures: string[] = [];
        for (const route of bodyRoutes) {
          for (const encoding of ["gzip", "deflate", "br"]) {
            const body = Buffer.from("this is not compressed");
            const res = await rawRequest(h.baseUrl, {
              method: route.method,
              path: route.path,
              // Explicit: node's client sends a DELETE body unframed (no chunking by default for DELETE).
              headers: { "content-type": "application/json", "content-encoding": encoding, "content-length": String(body.length) },
              body,
            });
            // The push URLs refuse in the platform's own shape (WeChat: HTTP 200 with a non-zero ErrCode), like every push refusal.
            const refused = route.path.endsWith("/wechat/push")
              ? res.status === 200 && res.json?.ErrCode === 40008
              : route.path.endsWith("/douyin/push")
                ? res.status === 400 && res.json?.err_no === 40008
                : res.status >= 400 && res.status < 500 && res.json?.success === false;
            if (!refused) failures.push(`${route.method} ${route.path} ${encoding}: ${res.status} ${res.text}`);
          }
        }
        assert.deepEqual(failures, []);
      });

      it("still reads a body that does decompress", async () => {
        const res = await rawRequest(h.baseUrl, {
          method: "POST",
          path: "/api/auth/login",
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
          body: zlib.gzipSync(JSON.stringify({ username: "nobody_here", password: "wrong-password" })),
        });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.json.data.code, "invalid_credentials");
      });

      it("takes an empty chunked body without a content type as no body: logout ends the session; a chunked body that is not JSON is still 415", async () => {
        const token = await login(h);
        // Zero bytes framed as chunks, no Content-Type: what some HTTP clients send for a bodiless POST.
        const logout = await rawRequest(h.baseUrl, { method: "POST", path: "/api/auth/logout", headers: { authorization: `Bearer ${token}`, "transfer-encoding": "chunked" }, body: [] });
        assert.equal(logout.status, 200, logout.text);
        assert.equal((await h.get("/api/users/me", { authorization: `Bearer ${token}` })).status, 401);
        const other = await login(h);
        const text = await rawRequest(h.baseUrl, { method: "POST", path: "/api/auth/logout", headers: { authorization: `Bearer ${other}`, "transfer-encoding": "chunked", "content-type": "text/plain" }, body: [Buffer.from("bye")] });
        assert.equal(text.status, 415, text.text);
        assert.equal(text.json.data.code, "unsupported_media_type");
        assert.equal((await h.get("/api/users/me", { authorization: `Bearer ${other}` })).status, 200);
      });

      it("refuses NUL characters in any string input with 400 invalid_request, before any store sees them", async () => {
        const token = await login(h);
        const nul = "a\u0000b";
        const attempts = [
          { method: "POST", path: "/api/auth/login", body: { username: `alice${nul}`, password: "password1" } },
          { method: "POST", path: "/api/auth/login", body: { email: `x${nul}@example.com`, password: "password1" } },
          { method: "POST", path: "/api/auth/register", body: { username: unique("u"), email: `${unique("e")}@example.com`, password: `pass${nul}word` } },
          { method: "PATCH", path: "/api/users/me", body: { nickname: `nick${nul}` } },
          { method: "PATCH", path: "/api/users/me", body: { avatar: `https://cdn.example.com/${nul}.png` } },
          { method: "GET", path: `/api/minigame/wechat/login?jsCode=${encodeURIComponent(nul)}` },
        ];
        for (const attempt of attempts) {
          const res = await h.request(attempt.method, attempt.path, attempt.body, { authorization: `Bearer ${token}` });
          assert.equal(res.status, 400, `${attempt.method} ${attempt.path}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.data.code, "invalid_request");
        }
        const me = await h.get("/api/users/me", { authorization: `Bearer ${token}` });
        assert.equal(me.status, 200);
        assert.ok(!JSON.stringify(me.body).includes("\\u0000"));
      });

      it("answers `//api/...` and `/api\\...` with the JSON envelope, never an HTML page", async () => {
        // Colyseus routes any URL containing "/matchmake" to matchmaking; only /matchmake/… is.
        for (const path of ["//api/users/me", "/api\\users\\me", "/no-such-page", "/api/no-such-route/matchmake"]) {
          const res = await rawRequest(h.baseUrl, { method: "GET", path });
          assert.equal(res.status, 404, `${path}: ${res.text}`);
          assert.match(String(res.headers["content-type"]), /application\/json/);
          assert.deepEqual({ success: res.json.success, code: res.json.data.code }, { success: false, code: "route_not_found" });
        }
      });

      it("answers other methods on /matchmake at once: 405 with Allow", async () => {
        for (const method of ["PUT", "DELETE", "PATCH", "TRACE", "GET"]) {
          const res = await rawRequest(h.baseUrl, { method, path: "/matchmake/joinOrCreate/lobby", timeoutMs: 2000 });
          assert.equal(res.status, 405, `${method}: ${res.text}`);
          assert.equal(res.headers.allow, "POST, OPTIONS");
          assert.deepEqual(res.json, { code: 405, error: "method not allowed" });
        }
      });

      it("refuses a matchmaking body above 16 KiB with 413 before reading it, declared or streamed", async () => {
        const token = await login(h);
        const big = Buffer.alloc(17 * 1024, "a");
        const declared = await rawRequest(h.baseUrl, {
          method: "POST",
          path: "/matchmake/joinOrCreate/lobby",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "content-length": String(64 * 1024 * 1024) },
          body: big,
        });
        assert.equal(declared.status, 413, declared.text);
        assert.deepEqual(declared.json, { code: 413, error: "request body too large" });
        const streamed = await rawRequest(h.baseUrl, {
          method: "POST",
          path: "/matchmake/joinOrCreate/lobby",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: [big, big],
        });
        assert.equal(streamed.status, 413, streamed.text);
        const notJson = await rawRequest(h.baseUrl, { method: "POST", path: "/matchmake/joinOrCreate/lobby", body: "{not json" });
        assert.equal(notJson.status, 400, notJson.text);
      });

      it("answers HEAD on a login route with 405 and leaves the code unused", async () => {
        const code = unique("head");
        const head = await rawRequest(h.baseUrl, { method: "HEAD", path: `/api/minigame/wechat/login?jsCode=${code}` });
        assert.equal(head.status, 405);
        assert.equal(head.headers.allow, "GET");
        const get = await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
        assert.equal(get.status, 200, JSON.stringify(get.body));
      });

      it("answers an OPTIONS that is not a preflight with the envelope: 405 with the path's own methods, 404 where no route is", async () => {
        const me = await rawRequest(h.baseUrl, { method: "OPTIONS", path: "/api/users/me" });
        assert.equal(me.status, 405, me.text);
        assert.deepEqual(me.headers.allow?.toString().split(", ").sort(), ["DELETE", "GET", "PATCH"]);
        assert.equal(JSON.parse(me.text).data.code, "method_not_allowed");
        const login = await rawRequest(h.baseUrl, { method: "OPTIONS", path: "/api/minigame/wechat/login?jsCode=x" });
        assert.equal(login.status, 405, login.text);
        assert.equal(login.headers.allow, "GET");
        const nowhere = await rawRequest(h.baseUrl, { method: "OPTIONS", path: "/api/no/such/route" });
        assert.equal(nowhere.status, 404, nowhere.text);
        assert.equal(JSON.parse(nowhere.text).data.code, "route_not_found");
      });
    });

    describe("behind a trusted proxy (TRUST_PROXY=loopback), CORS_ORIGINS listing one origin", () => {
      let h: Harness;
      let release: () => Promise<void>;
      const allowed = "https://game.example.com";
      before(async () => {
        const prepared = await backend.prepare();
        release = prepared.release;
        h = await startHarness({
          env: { ...prepared.env, TRUST_PROXY: "loopback", CORS_ORIGINS: allowed, RATE_LIMIT_IP_MAX: "4", HOST: "0.0.0.0" },
        });
      });
      after(async () => {
        await h?.close();
        await release?.();
      });

      it("keys matchmaking on the address the proxy saw: spoofing a victim's X-Real-IP does not lock the victim out", async () => {
        const token = await login(h);
        const victim = "203.0.113.7";
        const attacker = "198.51.100.9";
        const attacks = [];
        for (let i = 0; i < 6; i++) attacks.push(await matchmake(h, token, { "x-real-ip": victim, "x-forwarded-for": `${victim}, ${attacker}` }));
        assert.deepEqual(attacks.map(refusedAsRateLimited), [false, false, false, false, true, true], "the attacker's own address is limited");
        const victimTry = await matchmake(h, token, { "x-forwarded-for": victim });
        assert.equal(refusedAsRateLimited(victimTry), false, victimTry.text);
        assert.ok(victimTry.json.sessionId, victimTry.text);
      });

      it("counts an IPv6 client by its /64: rotating addresses inside one network does not get past the per-IP limit", async () => {
        const token = await login(h);
        const tries = [];
        for (let i = 1; i <= 6; i++) tries.push(await matchmake(h, token, { "x-forwarded-for": `2001:db8:aa:bb::${i.toString(16)}` }));
        assert.deepEqual(tries.map(refusedAsRateLimited), [false, false, false, false, true, true]);
        const neighbour = await matchmake(h, token, { "x-forwarded-for": "2001:db8:aa:cc::1" });
        assert.equal(refusedAsRateLimited(neighbour), false, "another /64 has its own budget");
      });

      it("binds HOST", () => {
        assert.equal(listenAddress(h), "0.0.0.0");
      });

      it("lets only the listed origin read /api and /matchmake answers", async () => {
        for (const [origin, expected] of [
          [allowed, allowed],
          ["https://evil.example", undefined],
        ] as const) {
          const api = await rawRequest(h.baseUrl, { method: "GET", path: "/api/users/me", headers: { origin } });
          assert.equal(api.headers["access-control-allow-origin"], expected, `/api from ${origin}`);
          const apiPreflight = await rawRequest(h.baseUrl, {
            method: "OPTIONS",
            path: "/api/auth/login",
            headers: { origin, "access-control-request-method": "POST" },
          });
          assert.equal(apiPreflight.status, 204);
          assert.equal(apiPreflight.headers["access-control-allow-origin"], expected, `/api preflight from ${origin}`);
          const mmPreflight = await rawRequest(h.baseUrl, {
            method: "OPTIONS",
            path: "/matchmake/joinOrCreate/lobby",
            headers: { origin, "access-control-request-method": "POST" },
          });
          assert.equal(mmPreflight.headers["access-control-allow-origin"], expected, `/matchmake preflight from ${origin}`);
          const mm = await rawRequest(h.baseUrl, { method: "POST", path: "/matchmake/joinOrCreate/lobby", headers: { origin }, body: "{}" });
          assert.equal(mm.headers["access-control-allow-origin"], expected, `/matchmake from ${origin}`);
          assert.equal(mm.headers["access-control-allow-credentials"], expected ? "true" : undefined);
        }
      });
    });

    describe("production settings without CORS_ORIGINS or HOST", () => {
      // Production with shared Redis (the PostgreSQL + Redis run) needs PUBLIC_ADDRESS.
      const h = useHarness(backend, { env: { NODE_ENV: "production", ACCESS_TOKEN_ROUTE_KEY: "an-internal-key-for-the-edge-suite", PUBLIC_ADDRESS: "game.example.com/a" } });

      it("sends no CORS headers on /api or /matchmake, whatever the origin", async () => {
        const origin = "https://game.example.com";
        const responses = [
          await rawRequest(h.baseUrl, { method: "GET", path: "/api/users/me", headers: { origin } }),
          await rawRequest(h.baseUrl, { method: "OPTIONS", path: "/api/auth/login", headers: { origin, "access-control-request-method": "POST" } }),
          await rawRequest(h.baseUrl, { method: "OPTIONS", path: "/matchmake/joinOrCreate/lobby", headers: { origin, "access-control-request-method": "POST" } }),
          await rawRequest(h.baseUrl, { method: "POST", path: "/matchmake/joinOrCreate/lobby", headers: { origin }, body: "{}" }),
        ];
        for (const res of responses) {
          assert.equal(res.headers["access-control-allow-origin"], undefined, res.text);
          assert.equal(res.headers["access-control-allow-credentials"], undefined);
        }
      });

      it("listens on every interface", () => {
        assert.equal(listenAddress(h), "0.0.0.0");
      });
    });
  });
}

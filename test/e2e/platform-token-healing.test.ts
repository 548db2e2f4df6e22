/**
 * Tokens cancelled at the platform heal themselves: on the next business call (one failed call,
 * one fetch, one retry) or on the next /access_token after a caller reports the token. The
 * simulator runs on its own clock, so "another fetch past the 5-minute grace" needs no waiting.
 */
import assert from "node:assert/strict";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";

let seq = 0;
const fresh = (label: string) => `${label}${Date.now().toString(36)}h${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const PLATFORMS = {
  wechat: {
    login: "jsCode",
    ordinaryEnv: { WECHAT_TOKEN_API: "ordinary" },
    /** Cancels the app's stable token the way another holder of the credentials can: a forced refresh. */
    force: (h: Harness) =>
      fetch(`${h.config.platforms.wechat.apiBaseUrl}/cgi-bin/stable_token`, {
        method: "POST",
        body: JSON.stringify({ grant_type: "client_credential", appid: h.config.platforms.wechat.appId, secret: h.config.platforms.wechat.appSecret, force_refresh: true }),
      }),
    ordinaryFetch: (h: Harness) =>
      fetch(`${h.config.platforms.wechat.apiBaseUrl}/cgi-bin/token?grant_type=client_credential&appid=${h.config.platforms.wechat.appId}&secret=${h.config.platforms.wechat.appSecret}`),
  },
  douyin: {
    login: "code",
    ordinaryEnv: { DOUYIN_TOKEN_API: "ordinary" },
    force: (h: Harness) =>
      fetch(`${h.config.platforms.douyin.apiBaseUrl}/mgplatform/api/apps/stable_token`, {
        method: "POST",
        body: JSON.stringify({ grant_type: "client_credential", appid: h.config.platforms.douyin.appId, secret: h.config.platforms.douyin.appSecret, force_refresh: true }),
      }),
    ordinaryFetch: (h: Harness) =>
      fetch(`${h.config.platforms.douyin.apiBaseUrl}/mgplatform/api/apps/v2/token`, {
        method: "POST",
        body: JSON.stringify({ grant_type: "client_credential", appid: h.config.platforms.douyin.appId, secret: h.config.platforms.douyin.appSecret }),
      }),
  },
} as const;

for (const backend of backends) {
  for (const tokenApi of ["stable", "ordinary"] as const) {
    describe(`self-healing platform tokens (${tokenApi} API) — ${backend.name}`, () => {
      let simulator: RunningSimulator;
      let simClock = Date.now();
      let h: Harness;
      let release: () => Promise<void>;

      before(async () => {
        const prepared = await backend.prepare();
        release = prepared.release;
        simulator = await startSimulator({ port: 0, now: () => simClock });
        const env = tokenApi === "ordinary" ? { ...PLATFORMS.wechat.ordinaryEnv, ...PLATFORMS.douyin.ordinaryEnv } : {};
        h = await startHarness({ env: { ...prepared.env, ...env }, simulator });
      });
      after(async () => {
        await h?.close();
        await simulator?.close();
        await release?.();
      });

      /** Cancels whatever token the app holds, as the platform would for this token API. */
      async function cancelAtPlatform(platform: keyof typeof PLATFORMS): Promise<void> {
        simClock += 31_000; // keep forced refreshes 30 s apart, as the platform demands
        if (tokenApi === "stable") {
          await PLATFORMS[platform].force(h);
        } else {
          await PLATFORMS[platform].ordinaryFetch(h);
          simClock += 301_000; // past the 5-minute grace of the replaced token
        }
      }

      for (const platform of ["wechat", "douyin"] as const) {
        it(`${platform}: the next business call replaces a cancelled token with one fetch and succeeds after one retry`, async () => {
          const login = await h.get(`/api/minigame/${platform}/login?${PLATFORMS[platform].login}=${fresh("heal")}`);
          const check = () => h.get(`/api/minigame/${platform}/session_key/check`, bearer(login.body.data.token));
          assert.deepEqual((await check()).body.data, { valid: true });
          const before = (await h.get(`/api/minigame/${platform}/access_token`)).body.data.access_token;

          await cancelAtPlatform(platform);
          simulator.resetStats();
          const res = await check();
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.deepEqual(res.body.data, { valid: true });
          assert.deepEqual(
            { fetches: simulator.stats().accessToken[platform], calls: simulator.stats().business[platform] },
            { fetches: 1, calls: 2 },
            "one rejected call, one token fetch, one retry",
          );
          const after = (await h.get(`/api/minigame/${platform}/access_token`)).body.data.access_token;
          assert.notEqual(after, before);
          assert.equal(simulator.stats().accessToken[platform], 1, "the healed token is cached");
        });

        it(`${platform}: a token a caller reports is replaced, and the next /access_token serves the new one`, async () => {
          const dead = (await h.get(`/api/minigame/${platform}/access_token`)).body.data.access_token;
          await cancelAtPlatform(platform);
          simulator.resetStats();
          assert.equal((await h.get(`/api/minigame/${platform}/access_token`)).body.data.access_token, dead, "the cache cannot know yet");

          const reported = await h.request("POST", `/api/minigame/${platform}/access_token/invalidate`, { access_token: dead });
          assert.equal(reported.status, 200, JSON.stringify(reported.body));
          assert.equal(reported.body.success, true);
          assert.notEqual(reported.body.data.access_token, dead);
          assert.ok(reported.body.data.expires_in > 0);
          const next = await h.get(`/api/minigame/${platform}/access_token`);
          assert.equal(next.body.data.access_token, reported.body.data.access_token);

          // A late second report of the same dead token changes nothing and costs no fetch.
          const late = await h.request("POST", `/api/minigame/${platform}/access_token/invalidate`, { access_token: dead });
          assert.equal(late.body.data.access_token, reported.body.data.access_token);
          assert.equal(simulator.stats().accessToken[platform], 1);

          const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
          assert.match(metrics, new RegExp(`platform_access_token_invalidations_total\\{platform="${platform}",app="default"\\} [1-9]`));
        });
      }

      it("validates the report body", async () => {
        const res = await h.request("POST", "/api/minigame/wechat/access_token/invalidate", {});
        assert.equal(res.status, 400);
        assert.equal(res.body.data.code, "invalid_request");
      });
    });
  }
}

describe("token report route with an internal key", () => {
  let h: Harness;
  const key = "internal-key-for-tests-0123456789";
  before(async () => {
    h = await startHarness({ env: { ACCESS_TOKEN_ROUTE_KEY: key } });
  });
  after(() => h?.close());

  it("is guarded exactly like GET /access_token", async () => {
    const body = { access_token: "whatever" };
    for (const headers of [{}, { "x-internal-key": "wrong" }] as Array<Record<string, string>>) {
      const res = await h.request("POST", "/api/minigame/douyin/access_token/invalidate", body, headers);
      assert.equal(res.status, 401);
      assert.equal(res.body.data.code, "internal_key_invalid");
    }
    const ok = await h.request("POST", "/api/minigame/douyin/access_token/invalidate", body, { "x-internal-key": key });
    assert.equal(ok.status, 200);
    assert.ok(ok.body.data.access_token);
  });
});

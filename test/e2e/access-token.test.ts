import assert from "node:assert/strict";
import { startHarness, type Harness, useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { TOKEN_LIFETIME_MS } from "../../src/simulator/tokens";
import { platformDefinitions } from "../support/platforms";

for (const backend of backends) {
  describe(`platform access-token routes — ${backend.name}`, () => {
    let clock = Date.now();
    const h = useHarness(backend, { overrides: { now: () => clock } });

    for (const { name: platform, simulator } of platformDefinitions) {
      // Platforms' tokens live differently long (Kuaishou: 48 h); the simulator says how long.
      const lifetimeSec = (simulator.tokenPolicy.lifetimeMs ?? TOKEN_LIFETIME_MS) / 1000;
      it(`${platform}: fetches once, then serves the cached token with the seconds it still has`, async () => {
        h.simulator.resetStats();
        const first = await h.get(`/api/minigame/${platform}/access_token`);
        assert.equal(first.status, 200);
        assert.equal(first.body.success, true);
        assert.ok(first.body.data.access_token);
        assert.ok(first.body.data.expires_in > lifetimeSec - 200 && first.body.data.expires_in <= lifetimeSec);
        clock += 60_000;
        const second = await h.get(`/api/minigame/${platform}/access_token`);
        assert.equal(second.body.data.access_token, first.body.data.access_token);
        assert.ok(second.body.data.expires_in <= first.body.data.expires_in - 59);
        assert.equal(h.simulator.stats().accessToken[platform], 1);
      });

      it(`${platform}: 30 concurrent requests after expiry cause one upstream fetch`, async () => {
        clock += lifetimeSec * 1000; // past the refresh point of whatever is cached
        h.simulator.resetStats();
        const results = await Promise.all(Array.from({ length: 30 }, () => h.get(`/api/minigame/${platform}/access_token`)));
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
        assert.equal(new Set(results.map((r) => r.body.data.access_token)).size, 1);
        assert.equal(h.simulator.stats().accessToken[platform], 1);
      });

      it(`${platform}: refreshes before the platform's expiry, within the safety margin`, async () => {
        await h.get(`/api/minigame/${platform}/access_token`);
        h.simulator.resetStats();
        clock += (lifetimeSec - 400) * 1000; // still 400 s before expiry: inside no margin yet
        await h.get(`/api/minigame/${platform}/access_token`);
        assert.equal(h.simulator.stats().accessToken[platform], 0);
        clock += 200 * 1000; // 200 s before expiry: inside the 300 s margin
        await h.get(`/api/minigame/${platform}/access_token`);
        assert.equal(h.simulator.stats().accessToken[platform], 1);
      });
    }
  });
}

describe("access-token routes with an internal key", () => {
  let h: Harness;
  const key = "internal-key-for-tests-0123456789";
  before(async () => {
    h = await startHarness({ env: { ACCESS_TOKEN_ROUTE_KEY: key } });
  });
  after(() => h?.close());

  it("refuses requests without the key or with a wrong one", async () => {
    for (const headers of [{}, { "x-internal-key": "wrong" }, { "x-internal-key": key + "x" }] as Array<Record<string, string>>) {
      const res = await h.get("/api/minigame/wechat/access_token", headers);
      assert.equal(res.status, 401);
      assert.equal(res.body.success, false);
      assert.equal(res.body.data.code, "internal_key_invalid");
    }
  });

  it("serves the token with the key", async () => {
    const res = await h.get("/api/minigame/douyin/access_token", { "x-internal-key": key });
    assert.equal(res.status, 200);
    assert.ok(res.body.data.access_token);
  });

  it("does not require the key on the login routes", async () => {
    const res = await h.get(`/api/minigame/wechat/login?jsCode=keyless${Date.now()}`);
    assert.equal(res.status, 200);
  });
});

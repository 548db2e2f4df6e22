import assert from "node:assert/strict";
import { platformDefinitions } from "../../src/platforms/registry";
import { startHarness, type Harness } from "../support/app-harness";

describe("PLATFORMS switches platforms on and off", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { PLATFORMS: "wechat" } });
  });
  after(() => h?.close());

  it("serves only the listed platform's routes", async () => {
    assert.equal((await h.get(`/api/minigame/wechat/login?jsCode=switch${Date.now().toString(36)}.1`)).status, 200);
    assert.equal((await h.get("/api/minigame/wechat/access_token")).status, 200);
    for (const other of platformDefinitions.filter((p) => p.name !== "wechat")) {
      const login = await h.get(`/api/minigame/${other.name}/login?${other.codeParams[0]}=x.1`);
      assert.equal(login.status, 404, other.name);
      assert.equal(login.body.data.code, "route_not_found");
      assert.equal((await h.get(`/api/minigame/${other.name}/access_token`)).status, 404);
    }
  });

  it("documents only the listed platform", async () => {
    const doc = (await h.get("/api-docs.json")).body;
    const minigamePaths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/minigame/"));
    assert.deepEqual(minigamePaths.sort(), [
      "/api/minigame/wechat/access_token",
      "/api/minigame/wechat/access_token/invalidate",
      "/api/minigame/wechat/ad-reward",
      "/api/minigame/wechat/decrypt",
      "/api/minigame/wechat/gift-push",
      "/api/minigame/wechat/login",
      "/api/minigame/wechat/phone_number",
      "/api/minigame/wechat/push",
      "/api/minigame/wechat/session_key/check",
      "/api/minigame/wechat/signature/verify",
      "/api/minigame/wechat/subscribe_message",
    ]);
  });

  it("lists only the listed platform in the playground", async () => {
    const harness = await startHarness({ env: { PLATFORMS: "douyin", PLAYGROUND_ENABLED: "true" }, simulator: h.simulator });
    try {
      const list = (await harness.get("/playground/platforms.json")).body;
      // Each platform lists the games it serves (the app ids a player picks from; never a secret).
      assert.deepEqual(list, [
        { name: "douyin", displayName: "Douyin", codeParams: ["code", "anonymous_code"], apps: [{ key: "default", appId: "tt_simulator_app" }] },
      ]);
    } finally {
      await harness.close();
    }
  });
});

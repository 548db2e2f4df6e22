/**
 * The built drop-in client names its game: in a modelled WeChat and Douyin runtime it reads the app
 * id the platform reports and sends it on login; the game can override it. Against a real server
 * serving the default app and a studio's "puzzle" game on both platforms (embedded simulator).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext, type MiniGamePlatform } from "./runtime-context";

const PUZZLE = { wechat: "wx_puzzle_client", douyin: "tt_puzzle_client" } as const;
const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe("game client: which app it logs in to", function () {
  this.timeout(60_000);
  let h: Harness;
  let dropIn: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-client-"));

  before(async () => {
    dropIn = ensureClientBuilt();
    const file = path.join(dir, "apps.json");
    const puzzle = { key: "puzzle", wechat: { appId: PUZZLE.wechat, appSecret: "puzzle-wx-secret" }, douyin: { appId: PUZZLE.douyin, appSecret: "puzzle-tt-secret" } };
    fs.writeFileSync(file, JSON.stringify({ apps: [puzzle] }));
    h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", APPS_FILE: file } });
  });
  after(async () => {
    await h?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const platform of ["wechat", "douyin"] as MiniGamePlatform[]) {
    const appId = PUZZLE[platform as "wechat" | "douyin"];

    it(`${platform}: sends the app id the runtime reports, and the session is that game's`, async () => {
      const device = new FakeDevice(unique("clientapp"), true, undefined, appId);
      const client = createMiniGameContext(platform, device, dropIn).library.createGameClient({ server: h.baseUrl });
      assert.equal(client.appId, appId);
      await client.login();
      const me = await client.request<{ app: string }>("GET", "/api/users/me");
      assert.equal(me.app, "puzzle");
      await client.logout();
    });

    it(`${platform}: without a reported app id (older base library), or with appId: null, logs in to the default app`, async () => {
      const older = createMiniGameContext(platform, new FakeDevice(unique("olderlib")), dropIn).library.createGameClient({ server: h.baseUrl });
      assert.equal(older.appId, undefined);
      await older.login();
      assert.equal((await older.request<{ app: string }>("GET", "/api/users/me")).app, "default");

      const forced = createMiniGameContext(platform, new FakeDevice(unique("forced"), true, undefined, appId), dropIn).library.createGameClient({ server: h.baseUrl, appId: null });
      await forced.login();
      assert.equal((await forced.request<{ app: string }>("GET", "/api/users/me")).app, "default");
    });
  }

  it("the game's appId overrides the runtime's, and an id the server does not serve is ApiError unknown_app", async () => {
    const device = new FakeDevice(unique("override"), true, undefined, "wx_reported_by_runtime");
    const library = createMiniGameContext("wechat", device, dropIn).library;
    const client = library.createGameClient({ server: h.baseUrl, appId: PUZZLE.wechat });
    await client.login();
    assert.equal((await client.request<{ app: string }>("GET", "/api/users/me")).app, "puzzle");

    const unknown = createMiniGameContext("wechat", device, dropIn).library.createGameClient({ server: h.baseUrl, storageKey: "other" });
    await assert.rejects(unknown.login(), (err: { name?: string; code?: string; status?: number }) => {
      assert.equal(err.name, "ApiError");
      assert.equal(err.code, "unknown_app");
      assert.equal(err.status, 400);
      return true;
    });
  });
});

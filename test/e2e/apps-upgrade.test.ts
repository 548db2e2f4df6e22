/**
 * An upgrade to several apps: a database written by a deployment of one app (no APPS_FILE) is
 * served again with a studio's second game configured. Every stored identity is the default app's,
 * so every user logs in as before; the second game finds them by unionid once it is stored.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

const PUZZLE_APP_ID = "wx_puzzle_upgrade";
const run = Date.now().toString(36);

async function login(h: Harness, pathAndQuery: string) {
  const res = await h.get(pathAndQuery);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { token: string; user: { id: string; version: number } };
}

for (const backend of backends) {
  describe(`upgrade to several apps — ${backend.name}`, function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-upgrade-"));
    const appsFile = path.join(dir, "apps.json");
    fs.writeFileSync(appsFile, JSON.stringify({ apps: [{ key: "puzzle", wechat: { appId: PUZZLE_APP_ID, appSecret: "puzzle-upgrade-secret" } }] }));
    let env: Record<string, string>;
    let release: (() => Promise<void>) | undefined;
    let h: Harness | undefined;

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      // One database for both boots; the embedded simulator hands out the same ids after a restart.
      env = { ...prepared.env, SQLITE_PATH: path.join(dir, "users.sqlite"), PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin" };
    });
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });
    after(async () => {
      await release?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("keeps every user of the single-app deployment, and links them to the second game after their next login", async () => {
      const alice = `upalice${run}`;
      const device = `updevice${run}`;
      h = await startHarness({ env });
      const before = {
        wechat: await login(h, `/api/minigame/wechat/login?jsCode=${alice}.1`),
        anonymous: await login(h, `/api/minigame/douyin/login?anonymous_code=${device}.1`),
      };
      const identitiesBefore = await h.services.store.listIdentities(before.wechat.user.id);
      assert.deepEqual(identitiesBefore.map((i) => i.platform), ["wechat"], "a single-app deployment stores what it stored before apps");
      await h.close();

      h = await startHarness({ env: { ...env, APPS_FILE: appsFile } });
      const again = await login(h, `/api/minigame/wechat/login?jsCode=${alice}.2`);
      assert.equal(again.user.id, before.wechat.user.id, "the same user, in the default app");
      assert.equal(again.user.version, before.wechat.user.version, "found, not rewritten");
      const anonymousAgain = await login(h, `/api/minigame/douyin/login?anonymous_code=${device}.2`);
      assert.equal(anonymousAgain.user.id, before.anonymous.user.id);

      // That login stored alice's unionid (wechat now has two apps): the puzzle game finds her by it.
      const inPuzzle = await login(h, `/api/minigame/wechat/login?jsCode=${alice}.3&appId=${PUZZLE_APP_ID}`);
      assert.equal(inPuzzle.user.id, before.wechat.user.id);
      const me = await h.get("/api/users/me", { authorization: `Bearer ${inPuzzle.token}` });
      assert.equal(me.body.data.app, "puzzle");
      assert.equal((await h.get("/api/users/me", { authorization: `Bearer ${again.token}` })).status, 200, "both games' sessions live");
    });
  });
}

/**
 * A player's cloud saves for operators: `npm run admin -- saves` reads, edits from the version read
 * (a stale one refused) and deletes, each change audited; `export` carries them (owner's and server
 * collections), `erase` removes them, and a player who erases their own account leaves none behind.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runAdmin } from "../support/admin-cli";
import { startHarness, TEST_JWT_SECRET, simulatorPlatformEnv, type Harness } from "../support/app-harness";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";

describe("admin: cloud saves in export and erase", function () {
  this.timeout(90_000);
  let simulator: RunningSimulator;
  let h: Harness;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    const sqlitePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-saves-")), "users.sqlite");
    h = await startHarness({ env: { SQLITE_PATH: sqlitePath, SAVES_SERVER_COLLECTIONS: "progress" }, simulator });
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, SQLITE_PATH: sqlitePath, LOG_LEVEL: "warn", SAVES_SERVER_COLLECTIONS: "progress", ...simulatorPlatformEnv(simulator.url) };
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  async function playerWithSaves() {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=svadmin${Date.now().toString(36)}${Math.random()}.1`);
    const { token, user } = login.body.data;
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await h.request("PUT", "/api/saves/slots/one", { value: { level: 4 }, permissionRead: "public" }, auth)).status, 201);
    await h.services.saves.writeForPlayers("default", [{ ownerId: user.id, collection: "progress", key: "chapter", value: { chapter: 2 } }]);
    return { user: user as { id: string }, auth };
  }

  it("saves get/list/put/delete: an edit from the version read, a stale one refused, each change audited", async () => {
    const { user, auth } = await playerWithSaves();
    const admin = (...args: string[]) => runAdmin(env, "saves", ...args, "--by", "ops-anna");
    const got = await admin("get", user.id, "slots", "one");
    assert.equal(got.status, 0, got.stderr);
    const { version } = JSON.parse(got.stdout);
    const listed = await admin("list", user.id, "slots");
    assert.deepEqual(JSON.parse(listed.stdout).objects.map((o: { key: string }) => o.key), ["one"]);
    const edited = await admin("put", user.id, "slots", "one", "--value", '{"level":40}', "--version", String(version));
    assert.equal(edited.status, 0, edited.stderr);
    const audit = edited.stderr.split("\n").filter((l) => l.includes('"admin_action"')).map((l) => JSON.parse(l));
    assert.deepEqual(audit.map((a) => [a.action, a.by, a.userId, a.collection, a.key]), [["save_put", "ops-anna", user.id, "slots", "one"]]);
    const stale = await admin("put", user.id, "slots", "one", "--value", '{"level":1}', "--version", String(version));
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /version now: /);
    const read = await h.request("GET", "/api/saves/slots/one", undefined, auth);
    assert.deepEqual(read.body.data.value, { level: 40 });
    const deleted = await admin("delete", user.id, "slots", "one", "--version", String(read.body.data.version));
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.equal((await h.request("GET", "/api/saves/slots/one", undefined, auth)).status, 404);
    assert.equal((await admin("put", user.id, "slots", "one", "--value", "{}")).status, 2, "needs --version or --create");
  });

  it("exports the player's objects and erases them with the account", async () => {
    const { user } = await playerWithSaves();
    const exported = await runAdmin(env, "export", user.id);
    assert.equal(exported.status, 0, exported.stderr);
    const saves = JSON.parse(exported.stdout).saves as Array<Record<string, unknown>>;
    assert.deepEqual(
      saves.map((o) => [o.app, o.collection, o.key, o.value, o.permissionRead, o.permissionWrite]),
      [
        ["default", "progress", "chapter", { chapter: 2 }, "owner", "server"],
        ["default", "slots", "one", { level: 4 }, "public", "owner"],
      ],
    );
    assert.ok(saves.every((o) => typeof o.version === "number" && typeof o.updatedAt === "string" && !("ownerId" in o)));
    const erased = await runAdmin(env, "erase", user.id);
    assert.equal(erased.status, 0, erased.stderr);
    assert.deepEqual(await h.services.saves.listByOwner(user.id), []);
  });

  it("a player who deletes their own account leaves no saves", async () => {
    const { user, auth } = await playerWithSaves();
    const res = await h.request("DELETE", "/api/users/me", undefined, auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await h.services.saves.listByOwner(user.id), []);
  });
});

/**
 * The built drop-in client's cloud saves inside a modelled WeChat runtime, against the real server:
 * create, change with the version read, a stale write rejected as a SaveConflictError carrying the
 * version now, `update` resolving a conflict with another writer (here the game's server code: a
 * player has one live session, so another device would log this one out), pages, batches, public reads.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe("client cloud saves in a WeChat runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: simulatorPlatformEnv(simulator.url) });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("saves, reloads, and resolves a conflict with another writer", async () => {
    const a = createMiniGameContext("wechat", new FakeDevice(unique("saver")), dropIn).library.createGameClient({ server: h.baseUrl });
    const user = await a.login();

    const created = await a.saves.put("progress", "slot1", { level: 1, coins: 10 });
    assert.equal(created.version, 1);
    const read = await a.saves.get("progress", "slot1");
    assert.deepEqual(plain(read.value), { level: 1, coins: 10 });

    await h.services.saves.put("default", user.id, { collection: "progress", key: "slot1", value: { level: 2, coins: 10 }, version: read.version });
    await assert.rejects(a.saves.put("progress", "slot1", { level: 1, coins: 99 }, { version: read.version }), (err: { name?: string; code?: string; current?: number; status?: number }) => {
      assert.deepEqual([err.name, err.code, err.status, err.current], ["SaveConflictError", "version_conflict", 409, 2]);
      return true;
    });
    const merged = await a.saves.update("progress", "slot1", (now) => ({ ...now, coins: 99 }));
    assert.equal(merged.version, 3);
    assert.deepEqual(plain((await a.saves.get("progress", "slot1")).value), { level: 2, coins: 99 });
    await assert.rejects(a.saves.get("progress", "nope"), (err: { code?: string }) => err.code === "save_not_found");

    const written = await a.saves.batch([
      { collection: "bag", key: "k1", value: { n: 1 }, permissionRead: "public" },
      { collection: "bag", key: "k2", value: { n: 2 } },
    ]);
    assert.deepEqual(plain(written.map((w) => [w.key, w.version])), [["k1", 1], ["k2", 1]]);
    await assert.rejects(a.saves.batch([{ collection: "bag", key: "k1", value: {}, version: 1 }, { collection: "bag", key: "k2", value: {} }]), (err: { code?: string; index?: number }) => err.code === "version_conflict" && err.index === 1);
    const page = await a.saves.list("bag", { limit: 1 });
    assert.deepEqual(plain(page.objects.map((o) => o.key)), ["k1"]);
    assert.deepEqual(plain((await a.saves.list("bag", { cursor: page.cursor })).objects.map((o) => o.key)), ["k2"]);

    const stranger = createMiniGameContext("wechat", new FakeDevice(unique("other")), dropIn).library.createGameClient({ server: h.baseUrl });
    await stranger.login();
    assert.deepEqual(plain((await stranger.saves.get("bag", "k1", { userId: user.id })).value), { n: 1 });
    assert.deepEqual(plain((await stranger.saves.readMany([{ collection: "bag", key: "k2", userId: user.id }]))), [null]);
    const deleted = await a.saves.delete("bag", "k2", { version: 1 });
    assert.equal(deleted.version, 2);
  });
});

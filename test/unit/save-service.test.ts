/**
 * The saves service's rules, on a real (SQLite) store: hostile names and values are refused with
 * their own codes and leave nothing stored; permissions (owner, public, server collections) and the
 * per-player limit hold.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSaveStore } from "../../src/adapters/store/create-save-store";
import { parseConfig } from "../../src/config/config";
import type { SaveStore } from "../../src/core/ports/save-store";
import { SaveService } from "../../src/services/saves/save-service";
import { rejectsWith } from "../support/app-error";

describe("saves service: names, values, permissions and limits", () => {
  let dir: string;
  let store: SaveStore;
  let saves: SaveService;
  const settings = { ...parseConfig({ SAVES_SERVER_COLLECTIONS: "progress", SAVES_MAX_OBJECTS_PER_PLAYER: "3", SAVES_MAX_OBJECT_BYTES: "1000" }).saves };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-saves-unit-"));
    store = await createSaveStore({ kind: "sqlite", path: path.join(dir, "s.sqlite"), synchronous: "NORMAL" });
    saves = new SaveService(store, settings);
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const nothingStored = async (owner: string) => assert.deepEqual(await store.listByOwner(owner), []);

  it("refuses hostile collection and key names, storing nothing", async () => {
    const names: Array<[string, string]> = [
      ["", "k"],
      ["c", ""],
      ["../etc", "k"],
      ["$where", "k"],
      ["c", "$gt"],
      ["a b", "k"],
      ["c", "a/b"],
      ["c", ".hidden"],
      ["-c", "k"],
      ["ç", "k"],
      ["c", "k\u0000"],
      ["c", "\ud800"],
      ["x".repeat(65), "k"],
      ["c", "k".repeat(129)],
    ];
    for (const [collection, key] of names) {
      await assert.rejects(saves.put("default", "hostile", { collection, key, value: {} }), rejectsWith("save_name_invalid"), `${JSON.stringify([collection, key])}`);
    }
    await nothingStored("hostile");
  });

  it("refuses hostile values with their own codes, storing nothing", async () => {
    let deep: unknown = {};
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const cases: Array<[unknown, string]> = [
      [[1, 2], "save_value_not_object"],
      ["text", "save_value_not_object"],
      [null, "save_value_not_object"],
      [deep, "save_too_deep"],
      [JSON.parse('{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}'), "save_too_deep"],
      [JSON.parse('{"n": 1e400}'), "save_number_invalid"],
      [JSON.parse('{"n": 123456789012345678901234567890}'), "save_number_invalid"],
      [{ n: Number.NaN }, "save_number_invalid"],
      [JSON.parse('{"s": "\\ud800"}'), "save_text_invalid"],
      [JSON.parse('{"\\udc00": 1}'), "save_text_invalid"],
      [{ $set: { a: 1 } }, "save_key_reserved"],
      [{ ok: [{ $where: "1" }] }, "save_key_reserved"],
      [JSON.parse('{"__proto__": {"admin": true}}'), "save_key_reserved"],
      [{ big: "x".repeat(2000) }, "save_too_large"],
      [{ f: () => 1 }, "save_value_not_object"],
    ];
    for (const [value, code] of cases) {
      await assert.rejects(saves.put("default", "hostile2", { collection: "c", key: "k", value }), rejectsWith(code as never), code);
    }
    await nothingStored("hostile2");
    // Surrogate pairs (emoji) and dotted keys are fine.
    assert.equal((await saves.put("default", "fine", { collection: "c", key: "slot.1:a", value: { "a.b": "😀", n: 2 ** 53 - 1 } })).version, 1);
  });

  it("lets players read their own objects, others' public ones only, and write nothing in a server collection", async () => {
    await saves.put("default", "alice", { collection: "notes", key: "secret", value: { s: 1 } });
    await saves.put("default", "alice", { collection: "notes", key: "open", value: { o: 1 }, permissionRead: "public" });
    await assert.rejects(saves.get("default", "bob", { collection: "notes", key: "secret", userId: "alice" }), rejectsWith("save_not_found"));
    assert.deepEqual((await saves.get("default", "bob", { collection: "notes", key: "open", userId: "alice" })).value, { o: 1 });
    assert.deepEqual((await saves.list("default", "bob", { collection: "notes", userId: "alice", limit: 10 })).objects.map((o) => o.key), ["open"]);
    assert.deepEqual((await saves.list("default", "alice", { collection: "notes", limit: 10 })).objects.map((o) => o.key), ["open", "secret"]);
    assert.deepEqual(await saves.getMany("default", "bob", [{ collection: "notes", key: "secret", userId: "alice" }, { collection: "notes", key: "open", userId: "alice" }]).then((l) => l.map((o) => o?.key ?? null)), [null, "open"]);

    await assert.rejects(saves.put("default", "alice", { collection: "progress", key: "level", value: { l: 99 } }), rejectsWith("save_write_forbidden"));
    await assert.rejects(saves.write("default", "alice", [{ collection: "notes", key: "x", value: {} }, { collection: "progress", key: "level", value: {} }]), rejectsWith("save_write_forbidden"));
    assert.equal(await store.read({ app: "default", collection: "notes", key: "x", ownerId: "alice" }), null);
    const written = await saves.writeForPlayers("default", [{ ownerId: "alice", collection: "progress", key: "level", value: { l: 3 } }]);
    const own = await saves.get("default", "alice", { collection: "progress", key: "level" });
    assert.deepEqual([own.value, own.permissionWrite], [{ l: 3 }, "server"]);
    await assert.rejects(saves.delete("default", "alice", { collection: "progress", key: "level", version: written[0].version }), rejectsWith("save_write_forbidden"));
  });

  it("answers a stale version with the version now, a missing delete with 404, and refuses repeats in a batch", async () => {
    const first = await saves.put("default", "carol", { collection: "c", key: "k", value: { a: 1 } });
    await assert.rejects(saves.put("default", "carol", { collection: "c", key: "k", value: { a: 2 } }), rejectsWith("version_conflict", (e) => assert.equal(e.data.version, first.version)));
    const second = await saves.put("default", "carol", { collection: "c", key: "k", value: { a: 2 }, version: first.version });
    await assert.rejects(saves.put("default", "carol", { collection: "c", key: "k", value: { a: 3 }, version: first.version }), rejectsWith("version_conflict", (e) => assert.equal(e.data.version, second.version)));
    await assert.rejects(saves.delete("default", "carol", { collection: "c", key: "nope", version: 1 }), rejectsWith("save_not_found"));
    await assert.rejects(saves.delete("default", "carol", { collection: "c", key: "k" }), rejectsWith("invalid_request"));
    await assert.rejects(saves.write("default", "carol", [{ collection: "c", key: "d", value: {} }, { collection: "c", key: "d", value: {} }]), rejectsWith("save_batch_invalid"));
    await assert.rejects(saves.write("default", "carol", []), rejectsWith("save_batch_invalid"));
  });

  it("refuses a player's objects past the per-player limit, counting creations only", async () => {
    for (const key of ["a", "b", "c"]) await saves.put("default", "dave", { collection: "c", key, value: {} });
    await assert.rejects(saves.put("default", "dave", { collection: "c", key: "d", value: {} }), rejectsWith("save_limit_reached"));
    await assert.rejects(saves.put("default", "dave", { collection: "c", key: "d", value: {}, overwrite: true }), rejectsWith("save_limit_reached"));
    // Changing an object kept is no creation; another app has its own count.
    assert.equal((await saves.put("default", "dave", { collection: "c", key: "a", value: { x: 1 }, overwrite: true })).created, false);
    assert.equal((await saves.put("other", "dave", { collection: "c", key: "d", value: {} })).created, true);
    const a = await saves.get("default", "dave", { collection: "c", key: "b" });
    await saves.delete("default", "dave", { collection: "c", key: "b", version: a.version });
    assert.equal((await saves.put("default", "dave", { collection: "c", key: "d", value: {} })).created, true);
  });
});

/**
 * A LeanStorage class export (pointers, dates, ACLs, as LeanCloud's data export writes them) brought
 * into cloud saves on each store, after its users: each row the object `<collection>/<objectId>` of
 * its owner, public where the ACL lets everyone read, the dates as ISO text; a second run changes
 * nothing; a row whose owner was not imported is reported, and comes in once its owner does. The
 * CLI's own run and a kill -9 mid-import are in test/process/leancloud-class-cli.test.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importAppOf } from "../../src/admin/import-app";
import { runImport, type ReportLine } from "../../src/services/migration/import-run";
import { classImportTarget, importClassRow } from "../../src/services/migration/leancloud-class";
import { LEANCLOUD_AUTH_PLATFORMS } from "../../src/services/migration/leancloud-users";
import { PlayerImporter } from "../../src/services/migration/player-importer";
import { useHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { leanCloudUserRow, writeExport } from "../fixtures/leancloud/user-rows";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;
const pointer = (objectId: string) => ({ __type: "Pointer", className: "_User", objectId });
const date = (iso: string) => ({ __type: "Date", iso });

/** A row of a game's `Progress` class as LeanCloud's export writes it. */
function progressRow(objectId: string, owner: string, level: number, publicRead = false) {
  return {
    objectId,
    owner: pointer(owner),
    level,
    lastPlayed: date("2025-11-01T08:00:00.000Z"),
    friend: pointer("someoneElse"),
    createdAt: "2024-01-01T00:00:00.000Z",
    updatedAt: "2025-11-01T08:00:00.000Z",
    ACL: publicRead ? { "*": { read: true }, [owner]: { write: true } } : { [owner]: { read: true, write: true } },
  };
}

async function importUsers(h: Harness, rows: object[]) {
  const file = writeExport(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lcc-")), rows);
  const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
  return runImport({ file, importer, platforms: LEANCLOUD_AUTH_PLATFORMS, report: () => undefined });
}

async function importClass(h: Harness, rows: object[]) {
  const file = writeExport(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lcc-")), rows, "Progress.jsonl");
  const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
  const target = classImportTarget({
    findByIdentity: (key) => h.services.store.findByIdentity(key),
    sourceKey: (id) => importer.sourceKey(id),
    saves: h.services.saves,
    appKey: "default",
    collection: "progress",
    ownerField: "owner",
    maxBatch: h.config.saves.maxBatch,
  });
  const lines: ReportLine[] = [];
  const state = await runImport({ file, importer, platforms: {}, importRecord: (row) => importClassRow(row, target), report: (line) => lines.push(line) });
  // Rows are imported several at once: their lines come as each finishes.
  return { state, lines: lines.sort((a, b) => a.index - b.index) };
}

for (const backend of backends) {
  describe(`LeanCloud class import — ${backend.name}`, function () {
    this.timeout(60_000);
    const h = useHarness(backend);

    it("brings a class's rows in as the owners' saves: keyed by objectId, public by ACL, dates as ISO text; once", async () => {
      const [ann, bob, ghost] = [unique("ann"), unique("bob"), unique("ghost")];
      await importUsers(h, [
        leanCloudUserRow({ objectId: ann, authKey: "lc_weapp", openid: `${ann}-openid` }),
        leanCloudUserRow({ objectId: bob, authKey: "lc_weapp", openid: `${bob}-openid` }),
      ]);
      const rows = [progressRow(`${ann}p1`, ann, 7, true), progressRow(`${ann}p2`, ann, 2), progressRow(`${bob}p1`, bob, 3), progressRow(`${ghost}p1`, ghost, 9), { level: 1 }];
      const first = await importClass(h, rows);
      assert.deepEqual([first.state.counts.read, first.state.counts.imported, first.state.counts.skipped], [5, 3, 2]);
      assert.deepEqual(first.lines.map((l) => [l.objectId, l.reason]), [[`${ghost}p1`, "owner_not_imported"], [undefined, "no_object_id"]]);

      const annUser = await h.services.store.findByIdentity({ platform: "leancloud", platformId: ann });
      const saved = await h.services.saves.listByOwner(annUser!.id);
      assert.deepEqual(saved.map((o) => [o.collection, o.key, o.permissionRead]), [["progress", `${ann}p1`, "public"], ["progress", `${ann}p2`, "owner"]]);
      assert.deepEqual(saved[0].value, {
        level: 7,
        lastPlayed: "2025-11-01T08:00:00.000Z",
        friend: { className: "_User", objectId: "someoneElse" },
        createdAt: "2024-01-01T00:00:00.000Z",
        updatedAt: "2025-11-01T08:00:00.000Z",
      });

      const second = await importClass(h, rows);
      assert.deepEqual([second.state.counts.imported, second.state.counts.already, second.state.counts.skipped], [0, 3, 2]);
      // The ghost's owner arrives: the row comes in on the next run, nothing else changes.
      await importUsers(h, [leanCloudUserRow({ objectId: ghost, authKey: "lc_weapp", openid: `${ghost}-openid` })]);
      const third = await importClass(h, rows);
      assert.deepEqual([third.state.counts.imported, third.state.counts.already], [1, 3]);
    });

    it("never overwrites a player's later progress, and skips rows the saves refuse with their code", async () => {
      const cat = unique("cat");
      await importUsers(h, [leanCloudUserRow({ objectId: cat, authKey: "lc_weapp", openid: `${cat}-openid` })]);
      await importClass(h, [progressRow(`${cat}p1`, cat, 1)]);
      const user = await h.services.store.findByIdentity({ platform: "leancloud", platformId: cat });
      const current = await h.services.saves.get("default", user!.id, { collection: "progress", key: `${cat}p1` });
      await h.services.saves.put("default", user!.id, { collection: "progress", key: `${cat}p1`, value: { level: 50 }, version: current.version });
      const again = await importClass(h, [progressRow(`${cat}p1`, cat, 1), { ...progressRow(`${cat}p2`, cat, 1), $hack: 1 }, progressRow(`${cat}/bad`, cat, 1)]);
      assert.deepEqual(again.lines.map((l) => l.reason), ["save_key_reserved", "save_name_invalid"]);
      assert.deepEqual((await h.services.saves.get("default", user!.id, { collection: "progress", key: `${cat}p1` })).value, { level: 50 });
    });
  });
}

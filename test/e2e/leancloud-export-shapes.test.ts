/**
 * A LeanCloud-shaped export as studios will bring it, on every store: WeChat (`lc_weapp`, UnionID main
 * accounts under `_weixin_unionid`), QQ (`lc_qqapp`) and Douyin (`lc_tt`, and the `lc_toutiao` alias)
 * players, one player on two platforms, players who logged in here before the import, duplicates
 * near and far, a BOM and CRLF JSON Lines file, a JSON array cut short, a `results` file re-saved
 * with sorted keys and `cursor` first, and the `.tar.gz` LeanCloud delivers. The files are imported
 * as the CLI imports them (import-files.ts), then every importable player logs in through the
 * simulator and finds their own account; every record is counted once, and every skipped or merged
 * one has its report line, also after --restart.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { importAppOf } from "../../src/admin/import-app";
import { exportFiles, importFile } from "../../src/admin/import-files";
import { NoRecordsError, type ImportState, type ReportLine } from "../../src/services/migration/import-run";
import { LEANCLOUD_AUTH_PLATFORMS } from "../../src/services/migration/leancloud-users";
import { PlayerImporter } from "../../src/services/migration/player-importer";
import { useHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { leanCloudUserRow } from "../fixtures/leancloud/user-rows";

const quiet = new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as NodeJS.WriteStream;
let seq = 0;
const uniqueName = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;

interface Player {
  name: string;
  objectId: string;
  /** Platforms the player logs in on here (the simulator's player name is `name`). */
  platforms: string[];
}

async function simulatedIds(h: Harness, platform: string, player: string): Promise<{ openid: string; unionid?: string }> {
  const { client } = h.services.platformApps.get(platform, "default");
  const result = await client.exchangeCode({ code: `${player}.probe` });
  return { openid: result.identity.openid, unionid: result.identity.unionid || undefined };
}

async function login(h: Harness, platform: string, player: string, n: number | string) {
  const res = await h.get(`/api/minigame/${platform}/login?${platform === "wechat" ? "jsCode" : "code"}=${player}.${n}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { user: { id: string; nickname: string | null; username: string; email: string } };
}

/** Rows of one player per platform kind, as LeanCloud writes them. */
async function playerRows(h: Harness, count: number, label: string): Promise<{ players: Player[]; rows: Array<Record<string, unknown>> }> {
  const players: Player[] = [];
  const rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const name = uniqueName(`${label}${i}p`);
    const objectId = `${name}oid`;
    const kind = i % 5;
    if (kind === 0 || kind === 1) {
      const ids = await simulatedIds(h, "wechat", name);
      rows.push(leanCloudUserRow({ objectId, authKey: "lc_weapp", openid: ids.openid, unionid: `u${name}`, unionAsMainAccount: kind === 0, nickName: `微信${i}` }));
      players.push({ name, objectId, platforms: ["wechat"] });
    } else if (kind === 2) {
      const ids = await simulatedIds(h, "qq", name);
      rows.push(leanCloudUserRow({ objectId, authKey: "lc_qqapp", openid: ids.openid }));
      players.push({ name, objectId, platforms: ["qq"] });
    } else {
      const ids = await simulatedIds(h, "douyin", name);
      // lc_tt as LeanCloud's Toutiao adapter names it; every tenth Douyin player under the lc_toutiao alias.
      const key = i % 10 === 3 ? "lc_toutiao" : "lc_tt";
      const row = leanCloudUserRow({ objectId, nickName: `抖音${i}` });
      row.authData = { [key]: { openid: ids.openid, session_key: "c2Vzc2lvbg==", ...(ids.unionid ? { unionid: ids.unionid } : {}) } };
      rows.push(row);
      players.push({ name, objectId, platforms: ["douyin"] });
    }
  }
  return { players, rows };
}

const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(sortedKeys) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sortedKeys(v)])) : value;

function readReport(file: string): ReportLine[] {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as ReportLine) : [];
}

for (const backend of backends) {
  describe(`LeanCloud export as delivered — ${backend.name}`, function () {
    this.timeout(180_000);
    const h = useHarness(backend);

    it("every importable player of a LeanCloud-shaped export (lc_tt, lc_weapp, lc_qqapp, _weixin_unionid; duplicates, a cut array, a sorted-keys results file, a .tar.gz, BOM and CRLF) logs in to their own account; each record counted once and reported, also after --restart", async () => {
      const PER_FILE = backend.name.startsWith("MongoDB") ? 30 : 45;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-shapes-"));
      const lines = await playerRows(h, PER_FILE, "l");
      const array = await playerRows(h, PER_FILE, "a");
      const results = await playerRows(h, PER_FILE, "r");
      const archived = await playerRows(h, PER_FILE, "t");

      // A player on WeChat and Douyin in one LeanCloud user; one who logged in here before the import (merged).
      const both = uniqueName("both");
      const [bothWechat, bothDouyin] = [await simulatedIds(h, "wechat", both), await simulatedIds(h, "douyin", both)];
      const bothRow = leanCloudUserRow({ objectId: `${both}oid`, nickName: "\uFEFF两个平台" });
      bothRow.authData = { lc_weapp: { openid: bothWechat.openid }, lc_tt: { openid: bothDouyin.openid } };
      const early = uniqueName("early");
      const earlyUser = await login(h, "qq", early, 0);
      const earlyRow = leanCloudUserRow({ objectId: `${early}oid`, authKey: "lc_qqapp", openid: (await simulatedIds(h, "qq", early)).openid });
      // Username taken (by an earlier row of the export), email free: the email is kept.
      const clash = uniqueName("clash");
      const clashRow = leanCloudUserRow({ objectId: `${clash}oid`, authKey: "lc_qqapp", openid: (await simulatedIds(h, "qq", clash)).openid, username: lines.rows[0].username as string, email: `${clash}@studio.example` });

      // JSON Lines, BOM and CRLF: the near duplicate right after its original, two skipped rows, a broken line.
      const jsonl = [...lines.rows.slice(0, 5), lines.rows[4], ...lines.rows.slice(5), bothRow, earlyRow, clashRow, { objectId: `${clash}pw`, username: `${clash}pw` }, { username: "no-object-id" }];
      const jsonlText = "\uFEFF" + jsonl.map((r) => JSON.stringify(r)).join("\r\n").replace(/\r\n(?=\{"username":"no-object-id")/, '\r\n{"objectId": "broken",\r\n') + "\r\n";
      fs.writeFileSync(path.join(dir, "_User.jsonl"), jsonlText);
      // A JSON array cut inside its last record (that record is unreadable: reported, never importable).
      const arrayText = JSON.stringify(array.rows, null, 2);
      fs.writeFileSync(path.join(dir, "_User.1.json"), arrayText.slice(0, arrayText.lastIndexOf('"objectId"') + 5));
      const arrayReadable = array.players.slice(0, -1);
      // Re-saved with sorted keys (cursor before results), with a far duplicate of the first file's first row.
      fs.writeFileSync(path.join(dir, "_User.2.json"), JSON.stringify(sortedKeys({ results: [...results.rows, lines.rows[0]], cursor: "5f1e", className: "_User" }), null, 2));
      // The .tar.gz LeanCloud delivers, its _User file in a folder of the archive.
      const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-pack-"));
      fs.mkdirSync(path.join(packDir, "export"));
      fs.writeFileSync(path.join(packDir, "export", "_User.0.jsonl"), archived.rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      fs.writeFileSync(path.join(packDir, "export", "Post.0.jsonl"), '{"objectId":"p1"}\n');
      const archive = path.join(dir, "export.tar.gz");
      execFileSync("tar", ["-czf", archive, "-C", packDir, "export"]);

      const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
      const report = path.join(dir, "report.jsonl");
      const files = [...(await exportFiles(dir)), ...(await exportFiles(archive))];
      assert.deepEqual(files.map((f) => path.basename(f)), ["_User.1.json", "_User.2.json", "_User.jsonl", "_User.0.jsonl"]);
      const run = async (restart: boolean) => {
        const states: ImportState[] = [];
        for (const file of files) states.push(await importFile(file, importer, LEANCLOUD_AUTH_PLATFORMS, { dryRun: false, restart, window: 64, report, out: quiet }));
        return states;
      };
      const first = await run(false);
      assert.deepEqual(await exportFiles(dir), files.slice(0, 3), "a rerun over the folder takes the checkpoints and reports written beside the files for exports");
      const total = (states: ImportState[], key: keyof ImportState["counts"]) => states.reduce((sum, s) => sum + s.counts[key], 0);
      const recordsInFiles = jsonl.length + 1 /* the broken line */ + array.rows.length + results.rows.length + 1 + archived.rows.length;
      for (const states of [first]) {
        assert.equal(total(states, "read"), recordsInFiles);
        assert.equal(total(states, "imported") + total(states, "merged") + total(states, "already") + total(states, "skipped"), total(states, "read"));
      }
      // The near and the far duplicate are `already`: one user each, counted once.
      assert.deepEqual([total(first, "merged"), total(first, "already"), total(first, "skipped")], [1, 2, 4]);
      assert.equal(first[0].cutShort !== undefined && first.slice(1).every((s) => !s.cutShort), true, "only the cut array is cut short");

      const lines1 = readReport(report);
      const reported = (outcome: string) => lines1.filter((l) => l.outcome === outcome);
      assert.equal(reported("skipped").length, 4);
      assert.equal(reported("merged").length, 1);
      assert.deepEqual(
        reported("skipped").map((l) => l.reason).sort(),
        ["malformed_record: cut short: the file ends inside this record", "malformed_record: not valid JSON", "no_object_id", "no_platform_identity"],
      );
      assert.equal(reported("merged")[0].userId, earlyUser.user.id);
      assert.deepEqual(lines1.find((l) => l.objectId === `${clash}oid`)?.notes, ["username_taken"]);
      assert.deepEqual(lines1.find((l) => l.objectId === `${both}oid`)?.notes, ["nickname_refused"]);

      // Every importable player, Douyin ones included, logs in to the account made for their objectId.
      const everyone = [...lines.players, ...arrayReadable, ...results.players, ...archived.players];
      for (const [n, player] of everyone.entries()) {
        const imported = await h.services.store.findByIdentity({ platform: "leancloud", platformId: player.objectId });
        assert.ok(imported, `${player.objectId} was not imported`);
        for (const platform of player.platforms) assert.equal((await login(h, platform, player.name, n)).user.id, imported.id, `${player.objectId} on ${platform}`);
      }
      const bothUser = await login(h, "wechat", both, 1);
      assert.equal((await login(h, "douyin", both, 1)).user.id, bothUser.user.id, "one LeanCloud user on two platforms is one user here");
      assert.equal(bothUser.user.nickname, null, "a nickname with a BOM is refused, as the API refuses it");
      assert.equal((await login(h, "qq", early, 1)).user.id, earlyUser.user.id);
      const clashUser = (await login(h, "qq", clash, 1)).user;
      assert.equal(clashUser.email, `${clash}@studio.example`, "the free email is kept when only the username is taken");
      assert.match(clashUser.username, /^mg_qq_/);

      // --restart reads everything again: nothing imported twice, and the report keeps the first run's lines.
      const again = await run(true);
      assert.equal(total(again, "read"), recordsInFiles);
      assert.deepEqual([total(again, "imported"), total(again, "merged"), total(again, "skipped")], [0, 0, 4]);
      const lines2 = readReport(report);
      assert.deepEqual(lines2.slice(0, lines1.length), lines1);
      assert.equal(lines2.filter((l) => l.outcome === "merged").length, 1);
    });

    it("a player who logged in here on WeChat and on Douyin before the import: merged into the WeChat user, the Douyin user named in the report; once that one is erased, a --restart joins the identity", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-two-"));
      const name = uniqueName("twice");
      const [onWechat, onDouyin] = [await login(h, "wechat", name, 0), await login(h, "douyin", name, 0)];
      assert.notEqual(onWechat.user.id, onDouyin.user.id);
      const row = leanCloudUserRow({ objectId: `${name}oid` });
      row.authData = { lc_tt: { openid: (await simulatedIds(h, "douyin", name)).openid }, lc_weapp: { openid: (await simulatedIds(h, "wechat", name)).openid } };
      const file = path.join(dir, "_User.jsonl");
      fs.writeFileSync(file, `${JSON.stringify(row)}\n`);
      const report = path.join(dir, "r.jsonl");
      const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
      const options = { dryRun: false, restart: false, window: 64, report, out: quiet };
      assert.equal((await importFile(file, importer, LEANCLOUD_AUTH_PLATFORMS, options)).counts.merged, 1);
      assert.deepEqual(readReport(report).map((l) => [l.outcome, l.userId, l.notes]), [["merged", onWechat.user.id, [`identity_held_by_other_user:douyin:${onDouyin.user.id}`]]]);
      assert.equal((await login(h, "douyin", name, 1)).user.id, onDouyin.user.id, "two accounts until an operator acts");

      await h.services.accounts.eraseUser(onDouyin.user.id);
      assert.equal((await importFile(file, importer, LEANCLOUD_AUTH_PLATFORMS, { ...options, restart: true })).counts.already, 1);
      assert.equal((await login(h, "douyin", name, 2)).user.id, onWechat.user.id);
    });

    it("two copies of one record read together make one user, counted imported (or merged) once and already once; a file with no record at all stops, leaving no checkpoint", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-dup-"));
      const { players, rows } = await playerRows(h, 10, "d");
      // And one who logged in here first: merged once, its copy `already`.
      const early = uniqueName("dupearly");
      const earlyUser = await login(h, "wechat", early, 0);
      rows.push(leanCloudUserRow({ objectId: `${early}oid`, authKey: "lc_weapp", openid: (await simulatedIds(h, "wechat", early)).openid }));
      const file = path.join(dir, "_User.jsonl");
      fs.writeFileSync(file, rows.flatMap((r) => [r, r]).map((r) => JSON.stringify(r)).join("\n"));
      const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
      const report = path.join(dir, "r.jsonl");
      const state = await importFile(file, importer, LEANCLOUD_AUTH_PLATFORMS, { dryRun: false, restart: false, window: 64, report, out: quiet });
      assert.deepEqual([state.counts.imported, state.counts.merged, state.counts.already], [10, 1, 11]);
      assert.deepEqual(readReport(report).map((l) => [l.outcome, l.userId]), [["merged", earlyUser.user.id]]);
      for (const [n, player] of players.entries()) {
        const imported = await h.services.store.findByIdentity({ platform: "leancloud", platformId: player.objectId });
        assert.equal((await login(h, player.platforms[0], player.name, n)).user.id, imported?.id);
      }

      // Brackets that do not match: the records before are imported and checkpointed, then the run stops saying where.
      const broken = path.join(dir, "_User.8.json");
      const more = await playerRows(h, 3, "b");
      fs.writeFileSync(broken, `[${more.rows.slice(0, 2).map((r) => JSON.stringify(r)).join(",")}}, ${JSON.stringify(more.rows[2])}]`);
      await assert.rejects(importFile(broken, importer, LEANCLOUD_AUTH_PLATFORMS, { dryRun: false, restart: false, window: 64, report, out: quiet }), /JSON is broken at byte \d+/);
      const checkpoint = JSON.parse(fs.readFileSync(`${broken}.import-state.json`, "utf8")) as ImportState;
      assert.deepEqual([checkpoint.counts.imported, checkpoint.done], [2, false]);

      const garbage = path.join(dir, "_User.9.jsonl");
      fs.writeFileSync(garbage, "not json\nat all\n");
      await assert.rejects(
        importFile(garbage, importer, LEANCLOUD_AUTH_PLATFORMS, { dryRun: false, restart: false, window: 64, report: path.join(dir, "g.jsonl"), out: quiet }),
        (err: unknown) => err instanceof NoRecordsError && /has 2 records and none is a JSON object/.test(err.message),
      );
      assert.equal(fs.existsSync(`${garbage}.import-state.json`), false);
    });
  });
}

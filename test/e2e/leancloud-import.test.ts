/**
 * Moving off LeanCloud: a `_User` export (test/fixtures/leancloud/, built from LeanCloud's documented
 * shapes) imported into each store; the imported players then log in through the simulator and find
 * their old account. The import runs in process against the server's own store (the CLI's own runs,
 * kill -9 included, are in test/process/leancloud-import-cli.test.ts).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importAppOf } from "../../src/admin/import-app";
import { runImport, type ImportState, type ReportLine } from "../../src/services/migration/import-run";
import { LEANCLOUD_AUTH_PLATFORMS } from "../../src/services/migration/leancloud-users";
import { importStatistic } from "../../src/services/migration/leancloud-statistics";
import { PlayerImporter } from "../../src/services/migration/player-importer";
import { useHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { leanCloudUserRow, writeExport } from "../fixtures/leancloud/user-rows";

let seq = 0;
const playerName = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;

/** The openid the simulator gives `player` in the default app (a probe code, consumed here only). */
async function simulatedIds(h: Harness, platform: string, player: string): Promise<{ openid: string; unionid?: string }> {
  const { client } = h.services.platformApps.get(platform, "default");
  const result = await client.exchangeCode({ code: `${player}.probe` });
  return { openid: result.identity.openid, unionid: result.identity.unionid || undefined };
}

async function login(h: Harness, platform: string, player: string, n: number) {
  const param = platform === "wechat" ? "jsCode" : "code";
  const res = await h.get(`/api/minigame/${platform}/login?${param}=${player}.${n}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { token: string; user: { id: string; nickname: string | null; username: string; createdAt: string } };
}

async function importRows(h: Harness, rows: object[], options: { dryRun?: boolean } = {}): Promise<{ state: ImportState; lines: ReportLine[] }> {
  const file = writeExport(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-")), rows);
  const lines: ReportLine[] = [];
  const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"), options.dryRun);
  const state = await runImport({ file, importer, platforms: LEANCLOUD_AUTH_PLATFORMS, report: (line) => lines.push(line) });
  return { state, lines };
}

for (const backend of backends) {
  describe(`LeanCloud import — ${backend.name}`, function () {
    this.timeout(60_000);
    const h = useHarness(backend);

    it("imported players log in through the simulator and get their old account: same user on a repeated import, their nickname and creation time", async () => {
      const ann = playerName("lcann");
      const bob = playerName("lcbob");
      const annIds = await simulatedIds(h, "wechat", ann);
      const bobIds = await simulatedIds(h, "qq", bob);
      const rows = [
        leanCloudUserRow({ objectId: `${ann}oid`, authKey: "lc_weapp", openid: annIds.openid, nickName: "安妮", username: `${ann}_lc`, createdAt: "2021-05-06T07:08:09.010Z" }),
        leanCloudUserRow({ objectId: `${bob}oid`, authKey: "lc_qqapp", openid: bobIds.openid }),
        leanCloudUserRow({ objectId: `${bob}pw`, username: `${bob}_pw` }),
      ];
      const first = await importRows(h, rows);
      assert.deepEqual(pick(first.state.counts, "read", "imported", "skipped"), { read: 3, imported: 2, skipped: 1 });
      assert.deepEqual(first.lines.find((l) => l.objectId === `${bob}pw`)?.reason, "no_platform_identity");

      const annLogin = await login(h, "wechat", ann, 1);
      assert.equal(annLogin.user.nickname, "安妮");
      assert.equal(annLogin.user.username, `${ann}_lc`);
      assert.equal(annLogin.user.createdAt, "2021-05-06T07:08:09.010Z");
      const bobLogin = await login(h, "qq", bob, 1);
      assert.notEqual(bobLogin.user.id, annLogin.user.id);

      const second = await importRows(h, rows);
      assert.deepEqual(pick(second.state.counts, "imported", "merged", "already"), { imported: 0, merged: 0, already: 2 });
      assert.equal((await login(h, "wechat", ann, 2)).user.id, annLogin.user.id);
      assert.equal((await login(h, "qq", bob, 2)).user.id, bobLogin.user.id);
    });

    it("a player who logged in here before the import is merged into that user, not duplicated; a dry run changes nothing", async () => {
      const cat = playerName("lccat");
      const early = await login(h, "wechat", cat, 1);
      const { openid } = await simulatedIds(h, "wechat", cat);
      const rows = [leanCloudUserRow({ objectId: `${cat}oid`, authKey: "lc_weapp", openid, nickName: "Cat" })];

      const dry = await importRows(h, rows, { dryRun: true });
      assert.equal(dry.state.counts.would_merge, 1);
      assert.equal((await login(h, "wechat", cat, 2)).user.nickname, null, "the dry run wrote the nickname");

      const real = await importRows(h, rows);
      assert.equal(real.state.counts.merged, 1);
      assert.equal(real.lines[0].userId, early.user.id);
      const after = await login(h, "wechat", cat, 3);
      assert.equal(after.user.id, early.user.id);
      assert.equal(after.user.nickname, "Cat");
    });

    it("LeanCloud leaderboard statistics become the players' records on the boards of the same id (or mapped), kept as their best on a second run", async () => {
      const eve = playerName("lceve");
      const { openid } = await simulatedIds(h, "wechat", eve);
      await importRows(h, [leanCloudUserRow({ objectId: `${eve}oid`, authKey: "lc_weapp", openid })]);
      const rows = [statistic(`${eve}oid`, "world", 4321), statistic("unknown-object", "world", 5), statistic(`${eve}oid`, "nosuchboard", 1), statistic(`${eve}oid`, "weekly", 9), statistic(`${eve}oid`, "world", 5000.5)];
      const first = await importStatistics(h, rows, { world: "highscores" });
      // LeanCloud's statistics may be decimals; this server's scores are whole numbers (docs/migrate-from-leancloud.md).
      assert.deepEqual(first.map((o) => (o.kind === "recorded" ? o.boardId : o.reason)), ["highscores", "player_not_imported", "no_board:nosuchboard", "tournament:weekly", "invalid_request"]);
      const token = await login(h, "wechat", eve, 1);
      const me = await h.get("/api/leaderboards/highscores/me", { authorization: `Bearer ${token.token}` });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.data.score, 4321);
      await importStatistics(h, [statistic(`${eve}oid`, "world", 100)], { world: "highscores" });
      assert.equal((await h.get("/api/leaderboards/highscores/me", { authorization: `Bearer ${token.token}` })).body.data.score, 4321);
    });

    it("a nickname that breaks the text rule is reported and a username that breaks ours counted (LeanCloud's random ones: said once in the summary), neither stored; a row without authData is skipped", async () => {
      const dan = playerName("lcdan");
      const rows = [
        leanCloudUserRow({ objectId: `${dan}oid`, authKey: "lc_weapp", openid: `o${dan}`, nickName: "\u202eevil", username: "9starts_with_digit" }),
        { objectId: `${dan}bad` }, // no authData at all
      ];
      const { state, lines } = await importRows(h, rows);
      assert.equal(state.counts.imported, 1);
      const line = lines.find((l) => l.objectId === `${dan}oid`)!;
      assert.deepEqual(line.notes, ["nickname_refused"]);
      assert.equal(state.usernamesNotKept, 1);
      const user = await h.services.store.findByIdentity({ platform: "leancloud", platformId: `${dan}oid` });
      assert.equal(user?.nickname, null);
      assert.match(user!.username, /^mg_wechat_/);
    });
  });
}

/** LeanCloud's statistic rows (its REST answers) into the harness's boards, as the CLI's --statistics does. */
async function importStatistics(h: Harness, rows: Array<Record<string, unknown>>, boards: Record<string, string> = {}) {
  const importer = new PlayerImporter(h.services.store, importAppOf(h.config, "default"));
  const target = {
    appKey: "default",
    boards: new Map(h.services.leaderboards.boards("default").map((b) => [b.id, { tournament: b.tournament !== undefined }])),
    findUser: (key: { platform: string; platformId: string }) => h.services.store.findByIdentity(key),
    sourceKey: (objectId: string) => importer.sourceKey(objectId),
    submit: (app: string, userId: string, boardId: string, score: number) => h.services.leaderboards.submit(app, userId, boardId, score, { keepBest: true }),
  };
  const outcomes = [];
  for (const row of rows) outcomes.push(await importStatistic(row, target, boards));
  return outcomes;
}

const statistic = (objectId: string, statisticName: string, statisticValue: number) => ({ statisticName, statisticValue, version: 3, user: { __type: "Pointer", className: "_User", objectId } });

function pick<T extends object, K extends keyof T>(object: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, object[k]])) as Pick<T, K>;
}

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { MalformedRecord, readExportRecords, type ExportItem, type ReadEnding } from "../../src/services/migration/export-reader";
import { LEANCLOUD_AUTH_PLATFORMS, parsePlatformMap, readLeanCloudUser } from "../../src/services/migration/leancloud-users";
import { leanCloudUserRow } from "../fixtures/leancloud/user-rows";
import { profilePatchBody } from "../../src/api/schemas";
import { parseBoardMap } from "../../src/admin/import-statistics";
import { acceptedAvatar, acceptedNickname } from "../../src/core/text-rules";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-unit-"));
let n = 0;
function file(text: string): string {
  const f = path.join(dir, `export-${n++}.json`);
  fs.writeFileSync(f, text);
  return f;
}

async function all(f: string, from = 0): Promise<ExportItem[]> {
  const items: ExportItem[] = [];
  for await (const item of readExportRecords(f, from)) items.push(item);
  return items;
}

const ids = (items: ExportItem[]) => items.map((i) => (i instanceof MalformedRecord ? `!${i.reason}` : (i.record.objectId as string)));

describe("LeanCloud export reader", () => {
  // A long multi-byte nickname makes records straddle the reader's 64 KiB chunks at every byte position.
  const rows = Array.from({ length: 400 }, (_, i) => ({ objectId: `o${i}`, nickName: "玩家{}[]\"\\".repeat(i % 50), authData: { lc_weapp: { openid: `x${i}` } } }));

  for (const [layout, text] of [
    ["JSON Lines (the console export)", rows.map((r) => JSON.stringify(r)).join("\n") + "\n"],
    ["a JSON array", JSON.stringify(rows, null, 2)],
    ['{"results": [...]}', JSON.stringify({ results: rows })],
    ["JSON Lines with a BOM and CRLF", "\uFEFF" + rows.map((r) => JSON.stringify(r)).join("\r\n")],
    ['{"results": [...]} re-saved with sorted keys, pretty-printed, with a BOM', "\uFEFF" + JSON.stringify({ className: "_User", count: rows.length, cursor: "c]{\"", results: rows }, null, 1)],
    ['a scan page with cursor first and a key after results', JSON.stringify({ cursor: "abc", results: rows, more: [{ objectId: "not-a-record" }] })],
    ["two scan pages saved one after the other", JSON.stringify({ results: rows.slice(0, 150), cursor: "x" }) + "\n" + JSON.stringify({ cursor: null, results: rows.slice(150) })],
    ["a JSON array with CRLF", JSON.stringify(rows, null, 2).replace(/\n/g, "\r\n")],
  ] as const) {
    it(`reads every record of ${layout}, whole, and resumes after any record's end offset`, async () => {
      const f = file(text);
      const items = await all(f);
      assert.deepEqual(ids(items), rows.map((r) => r.objectId));
      assert.deepEqual((items[123] as { record: unknown }).record, rows[123]);
      for (const at of [0, 1, 199, 398]) assert.deepEqual(ids(await all(f, items[at].endOffset)), rows.slice(at + 1).map((r) => r.objectId));
    });
  }

  it("a JSON array cut short reports the record it was cut in and says the file is cut; cut between records, it says so too", async () => {
    const whole = JSON.stringify(rows.slice(0, 10), null, 2);
    const cutIn = whole.indexOf('"o7"') + 2;
    const ending: ReadEnding = {};
    const items: ExportItem[] = [];
    for await (const item of readExportRecords(file(whole.slice(0, cutIn)), 0, ending)) items.push(item);
    assert.deepEqual(ids(items), ["o0", "o1", "o2", "o3", "o4", "o5", "o6", "!cut short: the file ends inside this record"]);
    assert.match(String(ending.cutShort), /inside a record/);
    const between: ReadEnding = {};
    const afterSeven = `${JSON.stringify(rows.slice(0, 7), null, 2).slice(0, -2)},\n`;
    const read: ExportItem[] = [];
    for await (const item of readExportRecords(file(afterSeven), 0, between)) read.push(item);
    assert.deepEqual(ids(read), ["o0", "o1", "o2", "o3", "o4", "o5", "o6"]);
    assert.match(String(between.cutShort), /before its JSON is closed/);
    const clean: ReadEnding = {};
    for await (const item of readExportRecords(file(whole), 0, clean)) assert.ok(item);
    assert.equal(clean.cutShort, undefined);
  });

  it("a results file cut short, and a JSON Lines file whose last line is cut, report that record", async () => {
    const ending: ReadEnding = {};
    const cut = JSON.stringify({ cursor: "c", results: rows.slice(0, 3) }).slice(0, -20);
    const items: ExportItem[] = [];
    for await (const item of readExportRecords(file(cut), 0, ending)) items.push(item);
    assert.deepEqual(ids(items), ["o0", "o1", "!cut short: the file ends inside this record"]);
    assert.ok(ending.cutShort);
    const lines: ReadEnding = {};
    const cutLines = rows.slice(0, 3).map((r) => JSON.stringify(r)).join("\n").slice(0, -5);
    const lineItems: ExportItem[] = [];
    for await (const item of readExportRecords(file(cutLines), 0, lines)) lineItems.push(item);
    assert.deepEqual(ids(lineItems), ["o0", "o1", "!cut short: the file ends inside this record"]);
    assert.ok(lines.cutShort);
  });

  it("a _User row with a results column of its own is a row (JSON Lines), and a gzip file is refused with what to do", async () => {
    const f = file(`{"objectId":"a","results":[{"objectId":"x"}]}\n{"objectId":"b"}\n`);
    assert.deepEqual(ids(await all(f)), ["a", "b"]);
    const gz = file("");
    fs.writeFileSync(gz, zlib.gzipSync("{}"));
    await assert.rejects(all(gz), /gzip-compressed/);
  });

  it("an array or results file whose brackets do not match, or with text after its JSON, stops the reading at that byte rather than losing records unsaid", async () => {
    await assert.rejects(all(file('[{"objectId":"a"}, }, {"objectId":"b"}]')), /broken at byte 19 .*closes nothing/);
    await assert.rejects(all(file('{"results":[{"objectId":"a"}]}}')), /broken at byte 30/);
    await assert.rejects(all(file('[{"objectId":"a"}]\n{"objectId":"b"}\n')), /broken at byte 19 \(text outside the JSON\)/);
    assert.deepEqual(ids(await all(file('[{"objectId":"a"}, 7, "x", {"objectId":"b"}]'))), ["a", "!not a JSON object", "!not a JSON object", "b"]);
  });

  it("reports a broken line as malformed and goes on with the next", async () => {
    const f = file(`{"objectId":"a"}\n{"objectId": "b",\n[1,2]\n{"objectId":"c"}\n`);
    assert.deepEqual(ids(await all(f)), ["a", "!not valid JSON", "!not a JSON object", "c"]);
  });
});

describe("LeanCloud _User rows", () => {
  it("maps lc_weapp and lc_qqapp authData to WeChat and QQ identities, with the unionid from the entry or the main account's _weixin_unionid", () => {
    const inEntry = readLeanCloudUser(leanCloudUserRow({ objectId: "a", authKey: "lc_weapp", openid: "oA", unionid: "uA" }), LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in inEntry && inEntry.player.identities, [{ platform: "wechat", openid: "oA", unionid: "uA" }]);
    const mainAccount = readLeanCloudUser(leanCloudUserRow({ objectId: "b", authKey: "lc_weapp", openid: "oB", unionid: "uB", unionAsMainAccount: true }), LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in mainAccount && mainAccount.player.identities, [{ platform: "wechat", openid: "oB", unionid: "uB" }]);
    const qq = readLeanCloudUser(leanCloudUserRow({ objectId: "c", authKey: "lc_qqapp", openid: "QQ" }), LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in qq && qq.player.identities, [{ platform: "qq", openid: "QQ", unionid: undefined }]);
  });

  it("reads Douyin players under lc_tt (LeanCloud's Toutiao adapter's provider) and lc_toutiao, with their anonymous_openid and unionid", () => {
    const tt = readLeanCloudUser({ objectId: "t", authData: { lc_tt: { openid: "oT", anonymous_openid: "aT", unionid: "uT", session_key: "k" } } }, LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in tt && tt.player.identities, [{ platform: "douyin", openid: "oT", anonymousOpenid: "aT", unionid: "uT" }]);
    const anonymousOnly = readLeanCloudUser({ objectId: "a", authData: { lc_tt: { anonymous_openid: "aA" } } }, LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in anonymousOnly && anonymousOnly.player.identities, [{ platform: "douyin", openid: undefined, anonymousOpenid: "aA", unionid: undefined }]);
    const both = readLeanCloudUser({ objectId: "b", authData: { lc_tt: { openid: "oB" }, lc_toutiao: { openid: "oB" }, lc_weapp: { openid: "wB" } } }, LEANCLOUD_AUTH_PLATFORMS);
    assert.deepEqual("player" in both && both.player.identities.map((i) => `${i.platform}:${i.openid}`), ["wechat:wB", "douyin:oB"]);
  });

  it("keeps the nickname and avatar as written, for the importer to judge by the API's text rules", () => {
    const read = readLeanCloudUser({ objectId: "n", nickName: "\uFEFFAce ", avatarUrl: " https://a/b.png", authData: { lc_weapp: { openid: "o" } } }, LEANCLOUD_AUTH_PLATFORMS);
    assert.ok("player" in read);
    assert.deepEqual([read.player.nickname, read.player.avatar], ["\uFEFFAce ", " https://a/b.png"]);
  });

  it("reads a custom platform's uid (LeanCloud keeps custom ids there) once the operator maps its key", () => {
    const row = { objectId: "d", authData: { wx_mygame: { uid: "oCustom", platform: "weixin" }, _weixin_unionid: { uid: "uCustom" } } };
    assert.deepEqual(readLeanCloudUser(row, LEANCLOUD_AUTH_PLATFORMS), { skip: "no_platform_identity", objectId: "d" });
    const map = parsePlatformMap("wx_mygame=wechat", ["wechat", "qq"]);
    assert.ok(typeof map === "object");
    const read = readLeanCloudUser(row, map);
    assert.deepEqual("player" in read && read.player.identities, [{ platform: "wechat", openid: "oCustom", unionid: "uCustom" }]);
  });

  it("keeps the profile and creation time, skips rows without an objectId or a mini-game identity", () => {
    const read = readLeanCloudUser({ ...leanCloudUserRow({ objectId: "e", authKey: "lc_weapp", openid: "oE", nickName: "Eve", avatarUrl: "https://a/b.png" }), createdAt: "2019-01-01T00:00:00Z" }, LEANCLOUD_AUTH_PLATFORMS);
    assert.ok("player" in read);
    assert.deepEqual([read.player.nickname, read.player.avatar, read.player.createdAt], ["Eve", "https://a/b.png", "2019-01-01T00:00:00.000Z"]);
    assert.deepEqual(readLeanCloudUser({ authData: { lc_weapp: { openid: "x" } } }, LEANCLOUD_AUTH_PLATFORMS), { skip: "no_object_id" });
    assert.deepEqual(readLeanCloudUser({ objectId: "f", authData: { anonymous: { id: "x" } } }, LEANCLOUD_AUTH_PLATFORMS), { skip: "no_platform_identity", objectId: "f" });
  });

  it("keeps every --platform flag given, not only the last", () => {
    const map = parsePlatformMap(["wx_a=wechat", "tt_b=douyin,qq_c=qq"], ["wechat", "douyin", "qq"]);
    assert.ok(typeof map === "object");
    assert.deepEqual([map.wx_a, map.tt_b, map.qq_c, map.lc_tt], ["wechat", "douyin", "qq", "douyin"]);
  });

  it("keeps every --board flag given, not only the last", () => {
    assert.deepEqual(parseBoardMap(["world=highscores", "weekly=week,daily=day"]), { world: "highscores", weekly: "week", daily: "day" });
    assert.match(String(parseBoardMap(["world"])), /not <statisticName>=<boardId>/);
  });

  it("refuses a --platform mapping to a platform this server does not run, naming it", () => {
    assert.match(String(parsePlatformMap("lc_x=weibo", ["wechat"])), /"weibo" is not a platform of this server/);
    assert.match(String(parsePlatformMap("lc_x", ["wechat"])), /not <authData key>=<platform>/);
  });
});

describe("LeanCloud nicknames and avatars by the API's rules", () => {
  // Each case as the profile API judges it (profilePatchBody) and as the import does (acceptedNickname).
  const nicknames = ["Ace", "  Ace  ", "\uFEFFAce", "Ace\uFEFF", "A\u202Ece", "   ", "x".repeat(32), ` ${"x".repeat(32)} `, "x".repeat(33), "玩家", "a\u200Db"];
  for (const raw of nicknames) {
    it(`${JSON.stringify(raw)}: the import keeps what the API would store, and refuses what it refuses`, () => {
      const api = profilePatchBody.safeParse({ nickname: raw, version: 1 });
      assert.equal(acceptedNickname(raw), api.success ? api.data.nickname : undefined);
    });
  }

  it("an avatar is judged as sent, like the API does", () => {
    for (const raw of ["https://a/b.png", " https://a/b.png", "http://a/b.png", `https://a/${"x".repeat(600)}`]) {
      assert.equal(acceptedAvatar(raw), profilePatchBody.safeParse({ avatar: raw, version: 1 }).success, raw);
    }
  });
});

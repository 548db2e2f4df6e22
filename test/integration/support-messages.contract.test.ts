/**
 * One contract for the SupportMessageStore port over every database it speaks: a message is an
 * insert keyed (app, platform, message id), so a platform's repeated push (two stores on one
 * database: two processes at once) lands once; conversations are per player and app, newest first;
 * a player's export lists every message and an erase forgets them.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import type { SupportMessage, SupportMessageStore } from "../../src/core/ports/support-messages";
import { createSupportStore } from "../../src/adapters/store/create-support-store";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

const implementations: Array<{ name: string; prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }> }> = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-support-"));
      return { config: { kind: "sqlite", path: path.join(dir, "users.sqlite"), synchronous: "NORMAL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 2000, acquireTimeoutMs: 10000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 2000, acquireTimeoutMs: 10000, queryTimeoutMs: 10000 }, release: () => db.drop() };
    },
  });
}


for (const impl of implementations) {
  describe(`SupportMessageStore contract: ${impl.name}`, function () {
    this.timeout(60_000);
    let release: () => Promise<void>;
    let store: SupportMessageStore;
    let other: SupportMessageStore;
    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createSupportStore(prepared.config);
      other = await createSupportStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await other?.close();
      await release?.();
    });

    const message = (app: string, userId: string, messageId: string, at: string, over: Partial<SupportMessage> = {}): SupportMessage => ({
      appId: app, userId, platform: "wechat", messageId, direction: "in", kind: "text", text: `hello ${messageId}`, detail: {}, operator: null, at, ...over,
    });

    it("records a message once however often (and from however many processes) it is pushed", async () => {
      const app = `app-${crypto.randomUUID()}`;
      const m = message(app, "p1", "9001", "2026-03-01T10:00:00.000Z", { detail: { msgType: "text" } });
      const results = await Promise.all([store.record(m), other.record(m), store.record(m)]);
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal((await other.record({ ...m })).created, false);
      assert.deepEqual(await other.conversation(app, "p1", 50), [m]);
      // The same id on another platform or app is another message.
      assert.equal((await store.record({ ...m, platform: "douyin" })).created, true);
      assert.equal((await store.record({ ...m, appId: `${app}-b` })).created, true);
      assert.equal((await store.conversation(app, "p1", 50)).length, 2);
    });

    it("keeps each player's conversation in order and lists conversations by latest activity", async () => {
      const app = `app-${crypto.randomUUID()}`;
      await store.record(message(app, "p1", "1", "2026-03-01T10:00:00.000Z"));
      await store.record(message(app, "p2", "2", "2026-03-01T10:05:00.000Z", { kind: "image", text: "https://img.example/x.png", detail: { mediaId: "m1" } }));
      await other.record(message(app, "p1", "3", "2026-03-01T10:10:00.000Z"));
      await other.record(message(app, "p1", "4", "2026-03-01T10:11:00.000Z"));
      await store.record(message(app, "p2", "r1", "2026-03-01T10:07:00.000Z", { direction: "out", operator: "ann", text: "we are on it" }));
      const p1 = await other.conversation(app, "p1", 50);
      assert.deepEqual(p1.map((m) => m.messageId), ["1", "3", "4"]);
      assert.deepEqual((await store.conversation(app, "p1", 2)).map((m) => m.messageId), ["3", "4"]);
      const list = await store.conversations(app, 10);
      assert.deepEqual(list.map((c) => [c.userId, c.last.messageId, c.waiting]), [["p1", "4", 3], ["p2", "r1", 0]]);
      assert.equal(list[1].last.operator, "ann");
      assert.deepEqual((await store.conversations(app, 1)).map((c) => c.userId), ["p1"]);
      assert.deepEqual(await store.conversations(`${app}-none`, 10), []);
      const image = (await store.conversation(app, "p2", 50))[0];
      assert.deepEqual([image.kind, image.detail], ["image", { mediaId: "m1" }]);
    });

    it("lists a player's messages of every app for the export and forgets them on erase", async () => {
      const app = `app-${crypto.randomUUID()}`;
      const user = `u-${crypto.randomUUID()}`;
      await store.record(message(app, user, "1", "2026-03-01T10:00:00.000Z"));
      await store.record(message(`${app}-b`, user, "2", "2026-03-02T10:00:00.000Z"));
      await store.record(message(app, "someone-else", "3", "2026-03-02T10:00:00.000Z"));
      assert.deepEqual((await other.listByUser(user)).map((m) => [m.appId, m.messageId]), [[app, "1"], [`${app}-b`, "2"]]);
      assert.equal(await other.eraseUser(user), 2);
      assert.deepEqual(await store.listByUser(user), []);
      assert.deepEqual(await store.conversation(app, user, 50), []);
      assert.equal((await store.conversation(app, "someone-else", 50)).length, 1);
    });
  });
}

/**
 * One contract for the LiveOpsStore port over every database it speaks: versions are inserts one
 * writer wins (two stores on one database: two processes), every version is kept, and a player's
 * first assignment to an experiment stands whatever is assigned after it.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import type { LiveOpsStore } from "../../src/core/ports/liveops-store";
import { createLiveOpsStore } from "../../src/adapters/store/create-liveops-store";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

const implementations: Array<{ name: string; prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }> }> = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-liveops-"));
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
  describe(`LiveOpsStore contract: ${impl.name}`, function () {
    this.timeout(60_000);
    let release: () => Promise<void>;
    let store: LiveOpsStore;
    let other: LiveOpsStore;
    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createLiveOpsStore(prepared.config);
      other = await createLiveOpsStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await other?.close();
      await release?.();
    });

    it("stores versions as inserts: one of two writers of a version wins, every version is kept", async () => {
      const app = `app-${crypto.randomUUID()}`;
      assert.equal(await store.latestVersion(app), 0);
      const [a, b] = await Promise.all([store.saveDefinitions(app, 0, { flags: [{ key: "a" }] }, "ann", "2026-01-01T00:00:00.000Z"), other.saveDefinitions(app, 0, { flags: [] }, "bob", "2026-01-01T00:00:01.000Z")]);
      assert.equal([a, b].filter(Boolean).length, 1);
      const second = await other.saveDefinitions(app, 1, { timeZone: "UTC" }, "bob", "2026-01-02T00:00:00.000Z");
      assert.equal(second?.version, 2);
      assert.equal(await store.latestVersion(app), 2);
      assert.deepEqual(await store.findDefinitions(app, 2), { appId: app, version: 2, body: { timeZone: "UTC" }, by: "bob", at: "2026-01-02T00:00:00.000Z" });
      assert.equal(await store.findDefinitions(app, 3), null);
      assert.deepEqual((await store.listVersions(app, { limit: 10 })).map((v) => v.version), [2, 1]);
      assert.deepEqual((await store.listVersions(app, { limit: 10, before: 2 })).map((v) => [v.version, v.by]), [[1, (a ?? b)!.by]]);
      assert.equal(await store.latestVersion(`${app}-other`), 0);
    });

    it("keeps a player's first assignment to an experiment, whoever writes after it", async () => {
      const app = `app-${crypto.randomUUID()}`;
      const record = (variant: string, experimentId = "exp") => ({ appId: app, userId: "p1", experimentId, variant, at: new Date().toISOString() });
      const answers = await Promise.all([store.assign(record("a")), other.assign(record("b")), store.assign(record("b"))]);
      assert.equal(new Set(answers).size, 1);
      assert.equal(await other.assign(record(answers[0] === "a" ? "b" : "a")), answers[0]);
      await store.assign(record("x", "exp2"));
      assert.deepEqual(await other.assignments(app, "p1"), { exp: answers[0], exp2: "x" });
      assert.deepEqual(await other.assignments(app, "p2"), {});
    });

    it("keeps the properties server code sets on a player, the last value of each key", async () => {
      const app = `app-${crypto.randomUUID()}`;
      assert.deepEqual(await store.properties(app, "p1"), {});
      await store.setProperty(app, "p1", "vip", 1);
      await other.setProperty(app, "p1", "vip", 2);
      await store.setProperty(app, "p1", "tags", ["a.b", { $x: true }]);
      assert.deepEqual(await other.properties(app, "p1"), { vip: 2, tags: ["a.b", { $x: true }] });
      assert.deepEqual(await other.properties(app, "p2"), {});
    });

    it("forgets an erased player's assignments and properties in every app, and no one else's", async () => {
      const apps = [`app-${crypto.randomUUID()}`, `app-${crypto.randomUUID()}`];
      const gone = `gone-${crypto.randomUUID()}`;
      const at = new Date().toISOString();
      for (const appId of apps) {
        for (const userId of [gone, "stays"]) {
          await store.assign({ appId, userId, experimentId: "exp", variant: "a", at });
          await store.setProperty(appId, userId, "vip", 1);
        }
      }
      assert.equal(await other.eraseUser(gone), 4);
      for (const appId of apps) {
        assert.deepEqual(await store.assignments(appId, gone), {});
        assert.deepEqual(await store.properties(appId, gone), {});
        assert.deepEqual(await store.assignments(appId, "stays"), { exp: "a" });
        assert.deepEqual(await store.properties(appId, "stays"), { vip: 1 });
      }
      assert.equal(await store.eraseUser(gone), 0, "a second erase finds nothing");
    });
  });
}

/**
 * One contract for the OperatorStore port over every database it speaks: unique names, changes,
 * and an append-only audit trail searchable by who, what, on whom, outcome and time.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import type { AuditEntry, OperatorStore } from "../../src/core/ports/operator-store";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

interface Implementation {
  name: string;
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}

const implementations: Implementation[] = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-operators-"));
      return { config: { kind: "sqlite", path: path.join(dir, "users.sqlite"), synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => db.drop() };
    },
  });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}

const suffix = () => crypto.randomBytes(4).toString("hex");
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes)).toISOString();

for (const impl of implementations) {
  describe(`OperatorStore contract — ${impl.name}`, function () {
    this.timeout(30_000);
    let store: OperatorStore;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createOperatorStore(prepared.config);
      await store.migrate(); // a second run changes nothing
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    const draft = (name = `op-${suffix()}`) => ({ id: crypto.randomUUID(), name, role: "support" as const, passwordHash: "scrypt$x", mustChangePassword: true, totpSecret: null, createdAt: at(0) });

    it("creates an operator once per name and finds it by id and name", async () => {
      const first = draft();
      const created = await store.createOperator(first);
      assert.notEqual(created, "name_taken");
      assert.deepEqual(created, { ...first, disabled: false, sessionEpoch: 0, updatedAt: at(0) });
      assert.equal(await store.createOperator({ ...draft(first.name) }), "name_taken");
      assert.deepEqual(await store.findById(first.id), created);
      assert.deepEqual(await store.findByName(first.name), created);
      assert.equal(await store.findByName(`nobody-${suffix()}`), null);
      assert.ok((await store.list()).some((o) => o.id === first.id));
    });

    it("applies changes and answers null for an unknown operator", async () => {
      const op = draft();
      await store.createOperator(op);
      const changed = await store.update(op.id, { role: "admin", disabled: true, sessionEpoch: 3, mustChangePassword: false, totpSecret: "JBSWY3DPEHPK3PXP", passwordHash: "scrypt$y" }, at(5));
      assert.deepEqual(changed, { ...op, role: "admin", disabled: true, sessionEpoch: 3, mustChangePassword: false, totpSecret: "JBSWY3DPEHPK3PXP", passwordHash: "scrypt$y", updatedAt: at(5) });
      assert.deepEqual(await store.findById(op.id), changed);
      const partly = await store.update(op.id, { disabled: false }, at(6));
      assert.equal(partly?.role, "admin");
      assert.equal(partly?.disabled, false);
      assert.equal(await store.update(crypto.randomUUID(), { disabled: true }, at(7)), null);
    });

    it("applies a change conditioned on the stored seed only while that seed is still there", async () => {
      const op = { ...draft(), totpSecret: "enc1:old" };
      await store.createOperator(op);
      assert.equal(await store.update(op.id, { totpSecret: "enc1:new" }, at(8), "enc1:other"), null, "another seed: nothing written");
      assert.equal((await store.findById(op.id))?.totpSecret, "enc1:old");
      assert.equal((await store.update(op.id, { totpSecret: "enc1:new" }, at(8), "enc1:old"))?.totpSecret, "enc1:new");
      assert.equal(await store.update(op.id, { totpSecret: "enc1:newer" }, at(9), "enc1:old"), null, "the seed read before is gone");
      assert.equal((await store.findById(op.id))?.totpSecret, "enc1:new");
    });

    it("searches the audit trail by every filter, newest first, with a limit", async () => {
      const actor = `ops-${suffix()}`;
      const entry = (minute: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
        id: crypto.randomUUID(),
        at: at(minute),
        actor,
        via: "console",
        action: "player.disable",
        target: "user-1",
        outcome: "ok",
        detail: { reason: "cheat", until: null },
        ...over,
      });
      const entries = [entry(1), entry(2, { outcome: "refused", detail: { code: "console_role_forbidden" } }), entry(3, { action: "order.refund", target: "user-2", via: "cli" }), entry(4, { target: null })];
      for (const e of entries) await store.appendAudit(e);
      assert.deepEqual(await store.searchAudit({ actor }), [...entries].reverse());
      assert.deepEqual(await store.searchAudit({ actor, outcome: "refused" }), [entries[1]]);
      assert.deepEqual(await store.searchAudit({ actor, action: "order.refund" }), [entries[2]]);
      assert.deepEqual(await store.searchAudit({ actor, target: "user-1" }), [entries[1], entries[0]]);
      assert.deepEqual(await store.searchAudit({ actor, since: at(2), until: at(4) }), [entries[2], entries[1]]);
      assert.deepEqual(await store.searchAudit({ actor, limit: 1 }), [entries[3]]);
      assert.deepEqual(await store.searchAudit({ actor: `${actor}-other` }), []);
    });

    it("prunes entries older than a time, oldest first, at most a batch at a time; later ones stay", async () => {
      const actor = `old-${suffix()}`;
      const old = (day: number, id = crypto.randomUUID()): AuditEntry => ({ id, at: new Date(Date.UTC(2001, 0, day)).toISOString(), actor, via: "cli", action: "cli.find", target: null, outcome: "ok", detail: {} });
      const entries = [old(5), old(1), old(3), old(20)];
      for (const e of entries) await store.appendAudit(e);
      const before = new Date(Date.UTC(2001, 0, 10)).toISOString();
      assert.equal(await store.pruneAudit(before, 2), 2);
      assert.deepEqual((await store.searchAudit({ actor })).map((e) => e.at), [old(20).at, old(5).at], "the two oldest went first");
      assert.equal(await store.pruneAudit(before, 2), 1);
      assert.equal(await store.pruneAudit(before, 2), 0);
      assert.deepEqual((await store.searchAudit({ actor })).map((e) => e.id), [entries[3].id]);
      assert.ok((await store.searchAudit({})).length > 1, "entries of other tests (2026) stay");
    });
  });
}

/**
 * One contract for the EconomyStore port, run over every database it speaks: "every grant once,
 * balances never negative" rests on it. Each suite gets its own empty database; "two processes"
 * are two stores opened on it, each with its own connection (and its own in-process queue).
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import type { EconomyChange, EconomyStore } from "../../src/core/ports/economy-store";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import type { ChainRecords } from "../../src/adapters/store/economy-chain";
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
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-economy-"));
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

const at = () => new Date().toISOString();
const player = () => crypto.randomUUID();
const change = (userId: string, sourceId: string, extra: Partial<EconomyChange> = {}): EconomyChange => ({
  appId: "game",
  userId,
  source: "operator",
  sourceId,
  at: at(),
  ...extra,
});
/** Reaches the store's record layer to make one write fail as a crash between two writes would. */
const recordsOf = (store: EconomyStore) => (store as unknown as { chain: { records: ChainRecords } }).chain.records;

for (const impl of implementations) {
  describe(`EconomyStore contract: ${impl.name}`, function () {
    this.timeout(120_000);
    let release: () => Promise<void>;
    let store: EconomyStore;
    let other: EconomyStore;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createEconomyStore(prepared.config);
      other = await createEconomyStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await other?.close();
      await release?.();
    });

    it("applies a grant once: a replay changes nothing and answers the first entry", async () => {
      const userId = player();
      const first = await store.apply(change(userId, "g1", { currencies: { gold: 50 }, items: [{ itemId: "sword", count: 2 }] }));
      assert.equal(first.first, true);
      assert.equal(first.entry.outcome, "applied");
      assert.deepEqual(first.entry.state.balances, { gold: 50 });
      const again = await other.apply(change(userId, "g1", { currencies: { gold: 999 } }));
      assert.equal(again.first, false);
      assert.deepEqual(again.entry, first.entry);
      const state = await store.state("game", userId);
      assert.deepEqual(state.balances, { gold: 50 });
      assert.deepEqual(state.items, { sword: 2 });
      assert.deepEqual(await store.state("other-app", userId), { balances: {}, items: {}, purchased: {} });
    });

    it("refuses a spend that would go below zero, and answers the same refusal on a replay even after funds arrive", async () => {
      const userId = player();
      await store.apply(change(userId, `seed-${userId}`, { currencies: { gold: 5 } }));
      const spend = change(userId, "p1", { source: "purchase", currencies: { gold: -10 }, items: [{ itemId: "gem", count: 1 }] });
      const refused = await store.apply(spend);
      assert.equal(refused.entry.outcome, "refused");
      assert.equal(refused.entry.reason, "insufficient_funds");
      await store.apply(change(userId, "seed2", { currencies: { gold: 100 } }));
      const replay = await other.apply(spend);
      assert.equal(replay.first, false);
      assert.equal(replay.entry.outcome, "refused");
      assert.deepEqual((await store.state("game", userId)).balances, { gold: 105 });
      assert.deepEqual((await store.state("game", userId)).items, {});
    });

    it("100 concurrent spends over two stores by a player who can afford 10: exactly 10 applied, balance 0", async () => {
      const userId = player();
      await store.apply(change(userId, `seed-${userId}`, { currencies: { gold: 100 } }));
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? other : store).apply(change(userId, `buy-${i}`, { source: "purchase", currencies: { gold: -10 }, items: [{ itemId: "potion", count: 1 }], purchase: { itemId: "potion", quantity: 1 } })),
        ),
      );
      assert.equal(results.filter((r) => r.entry.outcome === "applied").length, 10);
      assert.equal(results.filter((r) => r.entry.reason === "insufficient_funds").length, 90);
      const state = await other.state("game", userId);
      assert.deepEqual(state.balances, { gold: 0 });
      assert.deepEqual(state.items, { potion: 10 });
      assert.equal((await store.entries("game", userId)).length, 101);
    });

    it("100 concurrent replays of one source over two stores: one entry, one first caller", async () => {
      const userId = player();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? other : store).apply(change(userId, "once", { currencies: { gold: 7 } }))));
      assert.equal(results.filter((r) => r.first).length, 1);
      assert.ok(results.every((r) => r.entry.seq === 1));
      assert.deepEqual((await store.state("game", userId)).balances, { gold: 7 });
      assert.equal((await store.entries("game", userId)).length, 1);
    });

    it("refuses a source id already recorded for another player", async () => {
      await store.apply(change(player(), "shared-id", { currencies: { gold: 1 } }));
      await assert.rejects(store.apply(change(player(), "shared-id", { currencies: { gold: 1 } })), (err: { code?: string }) => err.code === "source_conflict");
    });

    it("finishes a change whose writer died between its claim and its entry, once", async () => {
      const userId = player();
      const records = recordsOf(store);
      const insertEntry = records.insertEntry;
      records.insertEntry = async () => {
        throw new Error("killed");
      };
      try {
        await assert.rejects(store.apply(change(userId, "half", { currencies: { gold: 3 } })), /killed/);
      } finally {
        records.insertEntry = insertEntry;
      }
      assert.deepEqual((await other.state("game", userId)).balances, {});
      const replays = await Promise.all([other.apply(change(userId, "half")), store.apply(change(userId, "half")), other.findBySource("game", "operator", "half")]);
      assert.ok(replays.slice(0, 2).every((r) => !(r as { first: boolean }).first));
      assert.deepEqual((await store.state("game", userId)).balances, { gold: 3 });
      assert.equal((await store.entries("game", userId)).length, 1);
    });

    it("enforces per-player purchase limits and owned-once items against the ledger", async () => {
      const userId = player();
      const limited = (i: number) => change(userId, `lim-${i}`, { source: "purchase", items: [{ itemId: "pass", count: 1 }], purchase: { itemId: "pass", quantity: 1, limit: 2 } });
      const results = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? other : store).apply(limited(i))));
      assert.equal(results.filter((r) => r.entry.outcome === "applied").length, 2);
      assert.ok(results.filter((r) => r.entry.outcome === "refused").every((r) => r.entry.reason === "purchase_limit"));
      const durable = (i: number) => change(userId, `own-${i}`, { source: "purchase", items: [{ itemId: "cape", count: 1 }], ownedOnce: ["cape"] });
      assert.equal((await store.apply(durable(1))).entry.outcome, "applied");
      assert.equal((await other.apply(durable(2))).entry.reason, "already_owned");
      assert.deepEqual((await store.state("game", userId)).items, { pass: 2, cape: 1 });
    });

    it("counts grants under a cap key: 20 concurrent over two stores with a cap of 10 → 10 applied", async () => {
      const userId = player();
      const cap = { key: "ad:unit-1:2026-11-26", limit: 10 };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).apply(change(userId, `view-${i}`, { source: "ad_reward", currencies: { gems: 5 }, cap }))));
      assert.equal(results.filter((r) => r.entry.outcome === "applied").length, 10);
      assert.ok(results.filter((r) => r.entry.outcome === "refused").every((r) => r.entry.reason === "cap_reached"));
      assert.deepEqual((await store.state("game", userId)).balances, { gems: 50 });
      // Another key (the next day) starts again.
      const next = await other.apply(change(userId, "view-next", { source: "ad_reward", currencies: { gems: 5 }, cap: { ...cap, key: "ad:unit-1:2026-11-27" } }));
      assert.equal(next.entry.outcome, "applied");
    });

    it("lists a player's apps and ledger, and erases them", async () => {
      const userId = player();
      await store.apply(change(userId, "a", { currencies: { gold: 1 } }));
      await store.apply(change(userId, "b", { appId: "second", items: [{ itemId: "x.y", count: 1 }] }));
      assert.deepEqual(await store.appsOf(userId), ["game", "second"]);
      assert.deepEqual((await store.entries("second", userId)).map((e) => e.items), [[{ itemId: "x.y", count: 1 }]]);
      await store.erase(userId);
      assert.deepEqual(await store.appsOf(userId), []);
      assert.deepEqual(await other.state("game", userId), { balances: {}, items: {}, purchased: {} });
      const again = await store.apply(change(userId, "a", { currencies: { gold: 2 } }));
      assert.equal(again.entry.seq, 1);
    });

    it("versions catalogs: one writer wins each version, every store reads the latest", async () => {
      const appId = `app-${crypto.randomBytes(4).toString("hex")}`;
      assert.equal(await store.latestCatalog(appId), null);
      const saves = await Promise.all([store, other, store, other].map((s, i) => s.saveCatalog(appId, 0, { items: [{ itemId: `i${i}` }] }, "op", at())));
      assert.equal(saves.filter(Boolean).length, 1);
      const winner = saves.find(Boolean)!;
      assert.deepEqual((await other.latestCatalog(appId))?.body, winner.body);
      assert.equal((await store.saveCatalog(appId, 1, { items: [] }, "op", at()))?.version, 2);
      assert.equal((await other.latestCatalog(appId))?.version, 2);
    });

    it("keeps every catalog version with who saved it and when: listed newest first, each readable", async () => {
      const appId = `app-${crypto.randomBytes(4).toString("hex")}`;
      assert.deepEqual(await store.listCatalogVersions(appId, { limit: 10 }), []);
      assert.equal(await store.findCatalog(appId, 1), null);
      for (let v = 1; v <= 5; v++) {
        const saved = await (v % 2 ? store : other).saveCatalog(appId, v - 1, { items: [{ itemId: `v${v}` }], note: { "a.b": "$x" } }, `op${v}`, `2030-01-0${v}T00:00:00.000Z`);
        assert.equal(saved?.version, v);
      }
      await store.saveCatalog(`${appId}-other`, 0, { items: [] }, "elsewhere", at());
      const listed = await other.listCatalogVersions(appId, { limit: 3 });
      assert.deepEqual(listed, [5, 4, 3].map((v) => ({ appId, version: v, by: `op${v}`, at: `2030-01-0${v}T00:00:00.000Z` })));
      assert.deepEqual((await store.listCatalogVersions(appId, { limit: 10, before: 3 })).map((c) => c.version), [2, 1]);
      const first = await other.findCatalog(appId, 1);
      assert.deepEqual(first, { appId, version: 1, body: { items: [{ itemId: "v1" }], note: { "a.b": "$x" } }, by: "op1", at: "2030-01-01T00:00:00.000Z" });
      assert.equal(await store.findCatalog(appId, 6), null);
      assert.equal((await store.latestCatalog(appId))?.version, 5, "the history does not change the latest");
    });
  });
}

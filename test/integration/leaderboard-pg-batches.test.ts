/**
 * PostgreSQL sends the ban checks and submissions of one event-loop turn as one statement each
 * (postgres-leaderboard-batches.ts): counted here by the statements Kysely runs. A batched upsert
 * that PostgreSQL refuses for one submission's data leaves the others their answers.
 */
import assert from "node:assert/strict";
import { Kysely, PostgresDialect } from "kysely";
import { Pool } from "pg";
import { KyselyLeaderboardStore } from "../../src/adapters/store/sql/kysely-leaderboard-store";
import type { Submission } from "../../src/core/ports/leaderboard-store";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl } from "../support/services";

const describePg = testDatabaseUrl ? describe : describe.skip;
const entry = (userId: string, score: number, at = 1000): Submission => ({ userId, name: userId, score, subscore: 0, metadata: null, at });

describePg("leaderboard statements batched per turn on PostgreSQL", function () {
  this.timeout(30_000);
  let store: KyselyLeaderboardStore;
  let db: Kysely<unknown>;
  let drop: () => Promise<void>;
  const statements: string[] = [];
  const key = { app: "default", board: "batched", seq: 1 };

  before(async () => {
    const made = await createTestDatabase(testDatabaseUrl!);
    drop = () => made.drop();
    db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new Pool({ connectionString: made.url, max: 10 }) }),
      log: (event) => {
        if (event.level === "query") statements.push(event.query.sql);
      },
    });
    store = new KyselyLeaderboardStore(db, "postgres", () => db.destroy());
    await store.migrate();
  });
  after(async () => {
    await store?.close();
    await drop?.();
  });

  it("sends 40 players' new bests made in one turn as one upsert, and their ban checks as one lookup", async () => {
    await store.ban("default", "batched", "cheat", 1000, "ops");
    statements.length = 0;
    const banned = await Promise.all(Array.from({ length: 40 }, (_, i) => store.isBanned("default", "batched", i === 7 ? "cheat" : `u${i}`)));
    assert.deepEqual(banned.map((b, i) => [i, b]).filter(([, b]) => b), [[7, true]]);
    assert.equal(statements.length, 1, `one lookup for the turn's checks, got ${statements.length}`);
    statements.length = 0;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.submit(key, "desc", "best", entry(`u${i}`, i))));
    assert.deepEqual(results.map((r) => r.record.score), Array.from({ length: 40 }, (_, i) => i));
    assert.equal(statements.length, 1, `one upsert for the turn's submissions, got ${statements.length}`);
  });

  it("looks the records a best left unchanged up in one statement", async () => {
    statements.length = 0;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.submit(key, "desc", "best", entry(`u${i}`, i % 2 === 0 ? 1000 + i : 0, 5000))));
    results.forEach((r, i) => assert.equal(r.changed, i % 2 === 0));
    assert.equal(results[1].record.score, 1);
    assert.equal(statements.length, 2, `the upsert and one lookup, got ${statements.length}`);
  });

  it("a batch one of whose increments overflows the column answers that one with the error and the others with their records", async () => {
    const totals = { ...key, board: "totals" };
    await store.submit(totals, "desc", "latest", entry("big", 9_000_000_000_000_000_000));
    const results = await Promise.allSettled([
      store.submit(totals, "desc", "increment", entry("a", 3)),
      store.submit(totals, "desc", "increment", entry("big", 900_000_000_000_000_000)),
      store.submit(totals, "desc", "increment", entry("b", 4)),
    ]);
    assert.equal(results[0].status === "fulfilled" && results[0].value.record.score, 3);
    assert.equal(results[1].status, "rejected");
    assert.match(String((results[1] as PromiseRejectedResult).reason), /out of range/);
    assert.equal(results[2].status === "fulfilled" && results[2].value.record.score, 4);
    assert.deepEqual((await store.find(totals, ["a", "b"])).map((r) => r.score).sort(), [3, 4], "each written once");
  });
});

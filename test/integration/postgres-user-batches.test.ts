/**
 * The PostgreSQL user store sends the lookups and creations of one event-loop turn as one
 * statement (src/adapters/store/sql/postgres-user-batches.ts). Counted on the statements Kysely
 * runs; the answers checked call by call, including creations that fail alone inside a batch.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { Kysely, PostgresDialect } from "kysely";
import { Pool } from "pg";
import { AccountTakenError, IdentityTakenError, type NewUser } from "../../src/core/ports/user-store";
import { KyselyUserStore, type Database } from "../../src/adapters/store/sql/kysely-user-store";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl } from "../support/services";

function newUser(tag: string): NewUser {
  const id = crypto.randomUUID();
  return { id, username: `u_${tag}`, email: `${tag}@players.invalid`, passwordHash: "sha256$x$y", openid: `o_${tag}`, createdAt: new Date().toISOString() };
}

(testDatabaseUrl ? describe : describe.skip)("PostgreSQL user store: one statement per event-loop turn", function () {
  this.timeout(20_000);
  let database: TestDatabase;
  let pool: Pool;
  let store: KyselyUserStore;
  const statements: string[] = [];
  const userStatements = () => statements.filter((text) => /\busers\b/.test(text));

  before(async () => {
    database = await createTestDatabase(testDatabaseUrl!);
    pool = new Pool({ connectionString: database.url, max: 10 });
    // The drop below ends connections pg-pool may still be closing: each client keeps a listener for its life.
    pool.on("connect", (client) => client.on("error", () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: (event) => void statements.push(event.query.sql) });
    store = new KyselyUserStore(db, "postgres");
    await store.migrate();
  });
  after(async () => {
    await store?.close();
    await database?.drop();
  });
  beforeEach(() => {
    statements.length = 0;
  });

  it("creates 20 players asked for in one turn with one statement, each with its identity", async () => {
    const drafts = Array.from({ length: 20 }, (_, i) => newUser(`batch${i}`));
    const created = await Promise.all(drafts.map((draft) => store.createUser(draft, [{ platform: "wechat", platformId: draft.openid! }])));
    assert.deepEqual(created.map((u) => u.id), drafts.map((d) => d.id));
    assert.equal(userStatements().length, 1, `statements: ${userStatements().join("\n---\n")}`);
    for (const draft of drafts) {
      const found = await store.findByIdentity({ platform: "wechat", platformId: draft.openid! });
      assert.equal(found?.id, draft.id);
      assert.equal(found?.username, draft.username);
    }
  });

  it("answers 20 lookups of one turn, found and not found, in order, with one statement", async () => {
    const drafts = Array.from({ length: 10 }, (_, i) => newUser(`look${i}`));
    await Promise.all(drafts.map((d) => store.createUser(d, [{ platform: "douyin", platformId: d.openid! }])));
    statements.length = 0;
    const keys = drafts.flatMap((d, i) => [{ platform: "douyin", platformId: d.openid! }, { platform: "douyin", platformId: `missing${i}` }]);
    const answers = await Promise.all(keys.map((key) => store.findByIdentity(key)));
    assert.deepEqual(
      answers.map((u) => u?.id ?? null),
      drafts.flatMap((d) => [d.id, null]),
    );
    const byId = await Promise.all([...drafts.map((d) => store.findById(d.id)), store.findById("nobody")]);
    assert.deepEqual(byId.map((u) => u?.id ?? null), [...drafts.map((d) => d.id), null]);
    assert.equal(userStatements().length, 2, `statements: ${userStatements().join("\n---\n")}`);
  });

  it("a batch with taken keys: each creation gets its own outcome and nothing partial is left", async () => {
    const existing = newUser("owner");
    await store.createUser(existing, [{ platform: "qq", platformId: "taken-openid" }]);
    const fine = [newUser("fine1"), newUser("fine2")];
    const identityTaken = newUser("late");
    const twinA = newUser("twinA");
    const twinB = { ...newUser("twinB"), username: twinA.username };
    const outcomes = await Promise.allSettled([
      store.createUser(fine[0], [{ platform: "qq", platformId: fine[0].openid! }]),
      store.createUser(identityTaken, [{ platform: "qq", platformId: identityTaken.openid! }, { platform: "qq", platformId: "taken-openid" }]),
      store.createUser(twinA, [{ platform: "qq", platformId: twinA.openid! }]),
      store.createUser(twinB, [{ platform: "qq", platformId: twinB.openid! }]),
      store.createUser(fine[1], [{ platform: "qq", platformId: fine[1].openid! }]),
    ]);
    assert.equal(outcomes[0].status, "fulfilled");
    assert.equal(outcomes[4].status, "fulfilled");
    assert.ok(outcomes[1].status === "rejected" && outcomes[1].reason instanceof IdentityTakenError, String((outcomes[1] as PromiseRejectedResult).reason));
    const twins = [outcomes[2], outcomes[3]];
    assert.equal(twins.filter((o) => o.status === "fulfilled").length, 1, "one of the two same-username creations wins");
    assert.ok(twins.some((o) => o.status === "rejected" && o.reason instanceof AccountTakenError));
    // The refused creation left neither its user nor its free identity behind.
    assert.equal(await store.findById(identityTaken.id), null);
    assert.equal(await store.findByIdentity({ platform: "qq", platformId: identityTaken.openid! }), null);
    assert.equal((await store.findByIdentity({ platform: "qq", platformId: "taken-openid" }))?.id, existing.id);
  });

  it("a lone call sends the single-row statement, as before batching", async () => {
    const draft = newUser("lone");
    await store.createUser(draft, [{ platform: "kuaishou", platformId: draft.openid! }]);
    await store.findByIdentity({ platform: "kuaishou", platformId: draft.openid! });
    const sent = userStatements();
    assert.equal(sent.length, 2);
    assert.doesNotMatch(sent[0], /unnest\(cast\(\$1 as text\[\]\), cast\(\$2 as text\[\]\), cast\(\$3/);
    assert.doesNotMatch(sent[1], /with ordinality/);
  });
});

/**
 * The MongoDB save store after a writer died half-way (its records written by hand, as a crash
 * leaves them): a single write's claim without its head is in force and rolled forward; a batch's
 * claims are in force once its outcome says committed; a batch that never decided holds its
 * objects briefly (a writer meeting it is told to retry: not a conflict), and after BATCH_GRACE_MS is called off
 * — its numbers never come into force and the next writer goes on past them.
 */
import assert from "node:assert/strict";
import type { Connection } from "mongoose";
import { MongoSaveStore } from "../../src/adapters/store/mongo/mongo-save-store";
import { openMongoConnection } from "../../src/adapters/store/mongo/open-mongo";
import { BATCH_GRACE_MS, SaveVersions, type BatchDoc, type ClaimDoc, type HeadDoc, type SaveState } from "../../src/adapters/store/mongo/save-versions";
import type { SaveChange, SaveRef } from "../../src/core/ports/save-store";
import { createTestMongoDatabase, type TestMongoDatabase } from "../support/mongo";
import { testMongoUrl } from "../support/services";

const describeMongo = testMongoUrl ? describe : describe.skip;

describeMongo("MongoDB save store: recovery after a writer died half-way (MongoDB)", function () {
  this.timeout(60_000);
  let db: TestMongoDatabase;
  let connection: Connection;
  let store: MongoSaveStore;
  let versions: SaveVersions;
  let clock = Date.now();
  const now = () => clock;

  before(async () => {
    db = createTestMongoDatabase(testMongoUrl!);
    connection = await openMongoConnection(db.url, { connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 10_000 }, 5);
    store = new MongoSaveStore(connection, async () => undefined, now);
    await store.migrate();
    versions = new SaveVersions(connection.collection<ClaimDoc>("save_claims"), connection.collection<HeadDoc>("save_heads"), connection.collection<BatchDoc>("save_batches"), now);
  });
  after(async () => {
    await connection?.close();
    await db?.drop();
  });

  const ref = (key: string): SaveRef => ({ app: "default", collection: "c", key, ownerId: "u1" });
  const put = (r: SaveRef, value: Record<string, unknown>, expected: number | "absent"): SaveChange => ({ kind: "put", ...r, value, expected, permissionRead: "owner", permissionWrite: "owner", at: new Date(clock).toISOString() });
  const state = (r: SaveRef, version: number, value: Record<string, unknown>): SaveState => ({
    ...r,
    version,
    value: JSON.stringify(value),
    deleted: false,
    permissionRead: "owner",
    permissionWrite: "owner",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: new Date(clock).toISOString(),
  });

  it("rolls a single write's claim forward when its writer died before the head", async () => {
    const r = ref("single");
    assert.ok((await store.write([put(r, { v: 1 }, "absent")])).ok);
    assert.equal(await versions.claim(state(r, 2, { v: 2 }), null), true);
    assert.deepEqual(await store.read(r).then((o) => [o?.version, o?.value]), [2, { v: 2 }]);
    assert.deepEqual((await store.list("default", "u1", "c", { limit: 10 })).objects.map((o) => [o.key, o.version]), [["single", 2]]);
    assert.deepEqual(await store.write([put(r, { v: 9 }, 1)]), { ok: false, index: 0, current: 2 });
  });

  it("puts a batch in force once its outcome says committed, heads or not", async () => {
    const [a, b] = [ref("ca"), ref("cb")];
    assert.ok((await store.write([put(a, { v: 1 }, "absent"), put(b, { v: 1 }, "absent")])).ok);
    assert.equal(await versions.claim(state(a, 2, { v: 2 }), "batch-committed"), true);
    assert.equal(await versions.claim(state(b, 2, { v: 2 }), "batch-committed"), true);
    assert.equal((await store.read(a))?.version, 1, "not in force before its outcome");
    assert.equal(await versions.decide("batch-committed", "committed"), "committed");
    assert.deepEqual([(await store.read(a))?.value, (await store.read(b))?.value], [{ v: 2 }, { v: 2 }]);
  });

  it("holds an undecided batch's objects briefly, then calls it off: its numbers never come into force", async () => {
    const [a, b] = [ref("da"), ref("db")];
    assert.ok((await store.write([put(a, { v: 1 }, "absent"), put(b, { v: 1 }, "absent")])).ok);
    // The dead batch took a's next number, then its process died before b's and before its outcome.
    assert.equal(await versions.claim(state(a, 2, { v: "dead" }), "0000000000-dead"), true);
    assert.deepEqual((await store.read(a))?.value, { v: 1 }, "readers see the version before it");
    await assert.rejects(store.write([put(a, { v: 2 }, 1)]), { code: "STORE_CLAIM_IN_FLIGHT" }, "a writer waits, then is told to retry: version 1 is what it expects");
    // An import's create-if-absent would have counted a conflict as "already there" (the CLI kill test lost rows so).
    await assert.rejects(store.write([put(ref("dc"), { v: 1 }, "absent"), put(a, { v: 2 }, 1)]), { code: "STORE_CLAIM_IN_FLIGHT" });
    await assert.rejects(store.write([put(a, { v: 2 }, "absent")]), { code: "STORE_CLAIM_IN_FLIGHT" });
    assert.equal(await store.read(ref("dc")), null, "the batch that met the held object put nothing in force");
    clock += BATCH_GRACE_MS + 1;
    const written = await store.write([put(a, { v: 2 }, 1)]);
    assert.ok(written.ok && written.written[0].version === 3, JSON.stringify(written));
    assert.deepEqual((await store.read(a))?.value, { v: 2 });
    assert.equal(await versions.decide("0000000000-dead", "committed"), "aborted", "the late batch cannot commit any more");
    assert.deepEqual((await store.read(a))?.value, { v: 2 });
  });
});

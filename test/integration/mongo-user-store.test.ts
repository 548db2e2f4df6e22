/**
 * What only the MongoDB store has to get right, beyond the shared contract: it keeps its promises
 * without transactions, so a process that dies between two of its writes must leave nothing
 * stuck. Each crash is reproduced by writing, straight into the collections, exactly what the
 * store would have written before dying; then the store must carry on as if it had finished.
 * Runs against TEST_MONGODB_URL (FerretDB in CI).
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import mongoose from "mongoose";
import { createUserStore } from "../../src/adapters/store/create-user-store";
import { IdentityTakenError, type NewUser, type UserStore } from "../../src/core/ports/user-store";
import { createTestMongoDatabase, type TestMongoDatabase } from "../support/mongo";
import { testMongoUrl } from "../support/services";

const suffix = () => crypto.randomBytes(5).toString("hex");
const draft = (): NewUser => {
  const s = suffix();
  return { id: crypto.randomUUID(), username: `mg_${s}`, email: `${s}@players.invalid`, passwordHash: "h", openid: `o-${s}`, createdAt: new Date().toISOString() };
};
const identity = () => ({ platform: "wechat", platformId: `pid-${suffix()}` });
const key = (i: { platform: string; platformId: string }) => `${i.platform}:${i.platformId}`;

(testMongoUrl ? describe : describe.skip)("MongoDB user store: recovery without transactions", function () {
  this.timeout(20_000);
  let db: TestMongoDatabase;
  let store: UserStore;
  let raw: mongoose.Connection;
  const collection = (name: string) => raw.collection<Record<string, unknown> & { _id: string }>(name);

  before(async () => {
    db = createTestMongoDatabase(testMongoUrl!);
    store = await createUserStore({ kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 });
    raw = await mongoose.createConnection(db.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
  });
  after(async () => {
    await store?.close();
    await raw?.close();
    await db?.drop();
  });

  it("takes over an identity claim left by a creation that died before writing its user", async () => {
    const id = identity();
    const stale = new Date(Date.now() - 60_000);
    await collection("user_identities").insertOne({ _id: key(id), userId: crypto.randomUUID(), ...id, createdAt: stale, at: stale });
    assert.equal(await store.findByIdentity(id), null, "a claim without a user leads nowhere");
    const user = await store.createUser(draft(), [id]);
    assert.equal((await store.findByIdentity(id))?.id, user.id);
  });

  it("waits for a creation in flight, then reports the identity taken once its user exists", async () => {
    const id = identity();
    const owner = draft();
    // The other creation has claimed the identity and is about to write its user.
    await collection("user_identities").insertOne({ _id: key(id), userId: owner.id, ...id, createdAt: new Date(), at: new Date() });
    const attempt = store.createUser(draft(), [id]);
    await new Promise((r) => setTimeout(r, 100));
    await collection("users").insertOne({
      _id: owner.id, username: owner.username, usernameNorm: owner.username, email: owner.email, emailNorm: owner.email,
      passwordHash: "h", passwordSetAt: null, nickname: null, avatar: null, openid: owner.openid, guildId: null, status: 1,
      disabledReason: null, disabledUntil: null, createdAt: new Date(), updatedAt: new Date(), version: 1, deletingAt: null,
    });
    await assert.rejects(attempt, IdentityTakenError);
    assert.equal((await store.findByIdentity(id))?.id, owner.id);
  });

  it("reads and builds on a change whose writer died between its version claim and the user document", async () => {
    const user = await store.createUser(draft(), []);
    const head = await collection("users").findOne({ _id: user.id });
    // Version 2 claimed with its content, the user document never updated.
    await collection("user_versions").insertOne({ _id: `${user.id}:2`, userId: user.id, version: 2, user: { ...head!, nickname: "claimed", version: 2 }, at: new Date() });
    const read = await store.findById(user.id);
    assert.deepEqual([read?.nickname, read?.version], ["claimed", 2]);
    assert.equal(await store.updateProfile(user.id, { avatar: "a.png" }, 1), "version_conflict", "version 1 is gone");
    const next = await store.updateProfile(user.id, { avatar: "a.png" }, 2);
    assert.deepEqual(next !== "version_conflict" && [next?.nickname, next?.avatar, next?.version], ["claimed", "a.png", 3]);
    assert.equal((await collection("users").findOne({ _id: user.id }))?.version, 3, "the user document caught up");
  });

  it("finishes an erase that died after marking the user: gone at once, erased by the next read of it, identity free", async () => {
    const id = identity();
    const user = await store.createUser(draft(), [id]);
    const head = await collection("users").findOne({ _id: user.id });
    const marked = { ...head!, version: 2, deletingAt: new Date() };
    await collection("user_versions").insertOne({ _id: `${user.id}:2`, userId: user.id, version: 2, user: marked, at: new Date() });
    await collection("users").replaceOne({ _id: user.id }, marked);
    assert.equal(await store.findById(user.id), null);
    assert.equal(await store.findByIdentity(id), null);
    const again = await store.createUser(draft(), [id]);
    assert.equal((await store.findByIdentity(id))?.id, again.id, "the identity went to the new user");
    assert.equal(await store.deleteUser(user.id), false, "the read of the marked user finished its erase");
    for (const name of ["users", "user_versions", "user_usernames", "user_emails"]) {
      assert.equal(await collection(name).countDocuments({ $or: [{ _id: user.id }, { userId: user.id }] }), 0, name);
    }
    assert.equal((await store.findByIdentity(id))?.id, again.id, "the new user's identity survived the finished erase");
  });

  it("keeps a user and its identities as plain documents", async () => {
    const id = identity();
    const user = await store.createUser(draft(), [id]);
    const doc = await collection("users").findOne({ _id: user.id });
    assert.deepEqual([doc?.username, doc?.version, doc?.status], [user.username, 1, 1]);
    assert.deepEqual(await collection("user_identities").findOne({ _id: key(id) }, { projection: { _id: 0, userId: 1, platformId: 1 } }), { userId: user.id, platformId: id.platformId });
  });
});

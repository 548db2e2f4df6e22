/**
 * The MongoDB user store when a write's answer is lost: a FerretDB of this suite's own (SQLite
 * and PostgreSQL handlers) behind a proxy that applies each write and delays its reply past
 * DATABASE_QUERY_TIMEOUT_MS. What was written must be found, never undone; young claims answer a
 * retryable 503 fast; every interrupted erase is finished; the sweep resolves what crashes leave;
 * erase and login reach documents by `_id` alone (the only filter FerretDB's SQLite handler does
 * not answer with a scan).
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import mongoose from "mongoose";
import { createUserStore } from "../../src/adapters/store/create-user-store";
import { MongoUserStore } from "../../src/adapters/store/mongo/mongo-user-store";
import { openMongoConnection } from "../../src/adapters/store/mongo/open-mongo";
import { IdentityTakenError, type NewUser, type UserStore } from "../../src/core/ports/user-store";
import { declareBackend } from "../support/backend-report";
import { ferretdbBinary, startOwnFerretdb, type FerretdbHandler, type OwnFerretdb } from "../support/ferretdb";
import { mongoCommand, TcpProxy } from "../support/tcp-proxy";

const binary = ferretdbBinary();
declareBackend({
  name: "MongoDB lost answers (own FerretDB)",
  titles: /lost answers: MongoDB/,
  skipReason: binary ? undefined : "FerretDB is not built here (bash scripts/test-services.sh builds it)",
});

const QUERY_TIMEOUT_MS = 400;
const LATE_MS = 1200;
const suffix = () => crypto.randomBytes(5).toString("hex");
const draft = (): NewUser => {
  const s = suffix();
  return { id: crypto.randomUUID(), username: `mg_${s}`, email: `${s}@players.invalid`, passwordHash: "h", openid: `o-${s}`, createdAt: new Date().toISOString() };
};
const identity = () => ({ platform: "wechat", platformId: `pid-${suffix()}` });
const key = (i: { platform: string; platformId: string }) => `${i.platform}:${i.platformId}`;
const USER_COLLECTIONS = ["users", "user_versions", "user_identities", "user_usernames", "user_emails", "user_identity_links"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const handler of ["sqlite", "postgresql"] as FerretdbHandler[]) {
  (binary ? describe : describe.skip)(`lost answers: MongoDB store on FerretDB (${handler} handler)`, function () {
    this.timeout(60_000);
    let ferretdb: OwnFerretdb;
    let proxy: TcpProxy;
    let store: UserStore;
    let raw: mongoose.Connection;
    const collection = (name: string) => raw.collection<Record<string, unknown> & { _id: string }>(name);
    /** Every document of the user, in any collection, as `collection:_id`. */
    const leftovers = async (userId: string) => {
      const found: string[] = [];
      for (const name of USER_COLLECTIONS) {
        for (const doc of await collection(name).find({ $or: [{ _id: userId }, { userId }] }).toArray()) found.push(`${name}:${doc._id}`);
      }
      return found;
    };
    const failure = (promise: Promise<unknown>) => promise.then(() => assert.fail("expected a failure"), (err: unknown) => err as { code?: string; status?: number });

    before(async () => {
      ferretdb = await startOwnFerretdb(binary!, handler);
      proxy = await TcpProxy.start("127.0.0.1", ferretdb.port);
      const url = `mongodb://127.0.0.1:${proxy.port}/lost?directConnection=true`;
      store = await createUserStore({ kind: "mongodb", url, connectTimeoutMs: 1000, acquireTimeoutMs: 1000, queryTimeoutMs: QUERY_TIMEOUT_MS });
      raw = await mongoose.createConnection(ferretdb.url("lost"), { serverSelectionTimeoutMS: 5000 }).asPromise();
    });
    afterEach(() => proxy.restore());
    after(async () => {
      await store?.close();
      await raw?.close();
      await proxy?.close();
      await ferretdb?.remove();
    });

    it("a user insert whose answer is lost answers 503, and the user it wrote is the one the identity finds (no ghost, no duplicate)", async () => {
      const id = identity();
      const first = draft();
      proxy.delayReplies(LATE_MS, mongoCommand("insert", "users"));
      const err = await failure(store.createUser(first, [id]));
      assert.equal(err.code, "service_unavailable", String(err));
      proxy.restore();
      await sleep(LATE_MS);
      assert.equal((await store.findByIdentity(id))?.id, first.id, "the identity leads to the user that was written");
      await assert.rejects(store.createUser(draft(), [id]), IdentityTakenError, "a second user for the same identity");
      assert.equal(await collection("users").countDocuments({ openid: first.openid }), 1);
      assert.deepEqual((await collection("user_usernames").findOne({ _id: first.username }))?.userId, first.id, "the username claim was kept");
    });

    it("a claim whose creation is young and has no user answers a retryable 503 within a second, and is taken over once abandoned", async () => {
      const id = identity();
      await collection("user_identities").insertOne({ _id: key(id), userId: crypto.randomUUID(), ...id, createdAt: new Date(), at: new Date() });
      const started = Date.now();
      const err = await failure(store.createUser(draft(), [id]));
      assert.equal(err.code, "service_unavailable", String(err));
      assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
      await collection("user_identities").updateOne({ _id: key(id) }, { $set: { at: new Date(Date.now() - 60_000) } });
      const user = await store.createUser(draft(), [id]);
      assert.equal((await store.findByIdentity(id))?.id, user.id);
    });

    it("an erase whose answers were lost is finished by the player's next request, by the operator's erase, and by the sweep", async () => {
      const users = await Promise.all([0, 1, 2].map(() => store.createUser(draft(), [identity()])));
      for (const user of users) {
        proxy.delayReplies(LATE_MS, mongoCommand("delete", "user_usernames"));
        const err = await failure(store.deleteUser(user.id));
        assert.equal(err.code, "service_unavailable", String(err));
        proxy.restore();
        assert.notDeepEqual(await leftovers(user.id), [], "the erase stopped part-way");
      }
      await sleep(LATE_MS);
      assert.equal(await store.findById(users[0].id), null, "the player's next request");
      assert.deepEqual(await leftovers(users[0].id), []);
      assert.equal(await store.deleteUser(users[1].id), true, "the operator's erase");
      assert.deepEqual(await leftovers(users[1].id), []);
      const report = await (store as unknown as MongoUserStore).sweep();
      assert.ok(report.erasesFinished >= 1, JSON.stringify(report));
      assert.deepEqual(await leftovers(users[2].id), [], "the sweep");
    });

    it("the sweep removes username, email and identity claims crashes left, and leaves young and live ones", async () => {
      const live = await store.createUser(draft(), [identity()]);
      const old = new Date(Date.now() - 60_000);
      const orphan = crypto.randomUUID();
      await collection("user_usernames").insertOne({ _id: `mg_orphan_${suffix()}`, userId: orphan, at: old });
      await collection("user_emails").insertOne({ _id: `orphan_${suffix()}@players.invalid`, userId: orphan, at: old });
      await collection("user_identities").insertOne({ _id: `wechat:orphan-${suffix()}`, userId: orphan, platform: "wechat", platformId: "x", createdAt: old, at: old });
      // A name the live user does not hold (its creation was written under another).
      await collection("user_usernames").insertOne({ _id: `mg_other_${suffix()}`, userId: live.id, at: old });
      const young = crypto.randomUUID();
      await collection("user_usernames").insertOne({ _id: `mg_young_${suffix()}`, userId: young, at: new Date() });
      await (store as unknown as MongoUserStore).sweep();
      assert.deepEqual(await leftovers(orphan), []);
      assert.equal((await leftovers(young)).length, 1, "a young claim belongs to a creation in flight");
      const kept = (await leftovers(live.id)).sort();
      assert.deepEqual(kept.filter((d) => d.startsWith("user_usernames:")), [`user_usernames:${live.username.toLowerCase()}`]);
      assert.equal(kept.length, 4, kept.join(", "));
    });

    it("login, link and erase reach documents by _id alone", async () => {
      const connection = await openMongoConnection(`${ferretdb.url("lost")}&monitorCommands=true`, { connectTimeoutMs: 1000, acquireTimeoutMs: 1000, queryTimeoutMs: 5000 }, 5);
      const watched = new MongoUserStore(connection, { sweepIntervalMs: 0 });
      await watched.migrate();
      const filters: string[] = [];
      connection.getClient().on("commandStarted", (event) => {
        const cmd = event.command as Record<string, unknown>;
        const found = cmd.filter ?? cmd.query;
        const deletes = (cmd.deletes as { q: unknown }[] | undefined)?.map((d) => d.q) ?? [];
        const updates = (cmd.updates as { q: unknown }[] | undefined)?.map((u) => u.q) ?? [];
        for (const f of [found, ...deletes, ...updates]) if (f !== undefined) filters.push(`${event.commandName} ${JSON.stringify(f)}`);
      });
      try {
        const id = identity();
        const user = await watched.createUser(draft(), [id]);
        assert.equal((await watched.findByIdentity(id))?.id, user.id);
        assert.ok(await watched.attachIdentity(user.id, identity(), { asPrimary: false }));
        assert.ok(await watched.updateProfile(user.id, { nickname: "n" }, 1));
        assert.equal((await watched.listIdentities(user.id)).length, 2);
        assert.equal(await watched.deleteUser(user.id), true);
        const notById = filters.filter((f) => !/^\w+ \{"_id":"[^"]*"\}$/.test(f));
        assert.deepEqual(notById, [], "filters other than { _id }");
        assert.deepEqual(await leftovers(user.id), []);
      } finally {
        await watched.close();
      }
    });
  });
}

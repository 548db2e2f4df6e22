/**
 * One contract for the UserStore port, run over every database the store speaks: the services rely
 * on these semantics whichever database is configured. Each suite gets its own empty database and
 * each test its own random names, so tests never depend on one another.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import { AccountTakenError, IdentityTakenError, type NewUser, type UserStore } from "../../src/core/ports/user-store";
import type { PlatformIdentityKey, User } from "../../src/core/user";
import { createUserStore } from "../../src/adapters/store/create-user-store";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import SqliteDatabase from "better-sqlite3";
import { Pool } from "pg";
import { createTestDatabase } from "../support/postgres";
import { createTestMongoDatabase } from "../support/mongo";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

interface Implementation {
  name: string;
  /** An empty database of this kind; `config` opens it. */
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
  /** Tests that cannot apply to this kind of database, by title, with why. */
  skips?: Record<string, string>;
}

const implementations: Implementation[] = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-user-store-"));
      // A missing parent folder, as ./data/ is on a first start.
      const file = path.join(dir, "data", "users.sqlite");
      return { config: { kind: "sqlite", path: file, synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];

if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 1000 }, release: () => db.drop() };
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
    skips: {
      "refuses to migrate while accounts collide case-insensitively, listing them, and changes nothing":
        "no older MongoDB schema exists: its claims compare usernames and emails case-insensitively from the first document",
    },
  });
}

/** Runs statements straight on the database, around the store: to build a database as an older version left it. */
async function rawSql(config: AppConfig["store"], statements: string[]): Promise<Record<string, unknown>[]> {
  const dialect =
    config.kind === "sqlite"
      ? new SqliteDialect({ database: new SqliteDatabase(config.path) })
      : new PostgresDialect({ pool: quietPool(config.url) });
  const db = new Kysely<any>({ dialect });
  try {
    let rows: Record<string, unknown>[] = [];
    for (const statement of statements) rows = (await sql.raw<Record<string, unknown>>(statement).execute(db)).rows;
    return rows;
  } finally {
    await db.destroy();
  }
}

/**
 * pg-pool's end() resolves before its clients' connections have closed, and the suite drops the
 * database WITH (FORCE) right after: the server's "terminating connection" then reaches a client
 * pg-pool no longer listens on, as an uncaught error. Each client keeps a listener for its life.
 */
function quietPool(url: string): Pool {
  const pool = new Pool({ connectionString: url, max: 1 });
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const USER_KEYS = ["avatar", "createdAt", "email", "guildId", "id", "nickname", "openid", "status", "updatedAt", "username", "version"];
const CREATED_AT = "2024-03-05T06:07:08.123Z";

const suffix = () => crypto.randomBytes(5).toString("hex");

function draft(overrides: Partial<NewUser> = {}): NewUser {
  const s = suffix();
  return {
    id: crypto.randomUUID(),
    username: `mg_test_${s}`,
    email: `test_${s}@players.invalid`,
    passwordHash: `hash-${s}`,
    openid: `open-${s}`,
    createdAt: CREATED_AT,
    ...overrides,
  };
}

const identity = (platform = "wechat"): PlatformIdentityKey => ({ platform, platformId: `pid-${suffix()}` });

/** Every user the store hands out has exactly the public fields: never a password. */
function assertUser(value: User | null | "version_conflict"): asserts value is User {
  assert.ok(value !== null && typeof value === "object", `expected a user, got ${String(value)}`);
  assert.deepEqual(Object.keys(value).sort(), USER_KEYS);
  assert.match(value.createdAt, ISO_MS);
  assert.match(value.updatedAt, ISO_MS);
}

for (const impl of implementations) {
  describe(`UserStore contract: ${impl.name}`, () => {
    let store: UserStore;
    let config: AppConfig["store"];
    let release: () => Promise<void>;
    /** The store's clock; tests move it to see a ban end. */
    let clockMs: number | undefined;

    before(async () => {
      ({ config, release } = await impl.prepare());
      store = await createUserStore(config, { now: () => (clockMs === undefined ? new Date() : new Date(clockMs)) });
    });
    afterEach(() => {
      clockMs = undefined;
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    describe("createUser", () => {
      it("creates a user with its identities and the documented defaults", async () => {
        const input = draft();
        const ids = [identity("wechat"), identity("wechat")];
        const user = await store.createUser(input, ids);
        assertUser(user);
        assert.deepEqual(user, {
          id: input.id,
          username: input.username,
          email: input.email,
          nickname: null,
          avatar: null,
          openid: input.openid,
          guildId: null,
          status: 1,
          createdAt: CREATED_AT,
          updatedAt: CREATED_AT,
          version: 1,
        });
        assert.deepEqual(await store.findById(input.id), user);
        for (const id of ids) assert.deepEqual(await store.findByIdentity(id), user);
      });

      it("accepts a null openid and no identities", async () => {
        const user = await store.createUser(draft({ openid: null }), []);
        assertUser(user);
        assert.equal(user.openid, null);
      });

      it("returns null for unknown ids and identities", async () => {
        assert.equal(await store.findById(crypto.randomUUID()), null);
        assert.equal(await store.findByIdentity(identity()), null);
        const user = await store.createUser(draft(), [{ platform: "wechat", platformId: "shared-id-across-platforms" }]);
        assert.equal(await store.findByIdentity({ platform: "douyin", platformId: "shared-id-across-platforms" }), null);
        assert.equal((await store.findByIdentity({ platform: "wechat", platformId: "shared-id-across-platforms" }))?.id, user.id);
      });

      it("throws IdentityTakenError and writes nothing when an identity is taken", async () => {
        const taken = identity();
        const owner = await store.createUser(draft(), [taken]);
        const input = draft();
        const free = identity();
        await assert.rejects(store.createUser(input, [free, taken]), (err: unknown) => {
          assert.ok(err instanceof IdentityTakenError);
          assert.deepEqual(err.identity, taken);
          return true;
        });
        assert.equal(await store.findById(input.id), null);
        assert.equal(await store.findCredentialsByUsername(input.username), null);
        assert.equal(await store.findByIdentity(free), null, "the identity inserted before the failure is rolled back");
        assert.deepEqual(await store.findByIdentity(taken), owner);
      });

      it("throws AccountTakenError and writes nothing when the username or email is taken", async () => {
        const owner = await store.createUser(draft(), [identity()]);
        for (const clash of [{ username: owner.username }, { email: owner.email }]) {
          const input = draft(clash);
          const id = identity();
          await assert.rejects(store.createUser(input, [id]), AccountTakenError);
          assert.equal(await store.findById(input.id), null);
          assert.equal(await store.findByIdentity(id), null);
        }
      });

      it("treats usernames and emails that differ only in letter case as taken", async () => {
        const owner = await store.createUser(draft({ username: `Alice_${suffix()}`, email: `Alice_${suffix()}@Example.com` }), []);
        const variants = [
          { username: owner.username.toLowerCase() },
          { username: owner.username.toUpperCase() },
          { email: owner.email.toLowerCase() },
          { email: owner.email.toUpperCase() },
        ];
        for (const clash of variants) {
          const input = draft(clash);
          await assert.rejects(store.createUser(input, []), AccountTakenError, JSON.stringify(clash));
          assert.equal(await store.findById(input.id), null);
        }
        // Platform users' generated names still work side by side.
        const platformUser = await store.createUser(draft(), [identity()]);
        assert.equal((await store.findCredentialsByUsername(platformUser.username))?.user.id, platformUser.id);
      });

      it("lets exactly one of 50 concurrent creations with the same identity win", async () => {
        const contested = identity();
        const drafts = Array.from({ length: 50 }, () => draft());
        const results = await Promise.allSettled(drafts.map((d) => store.createUser(d, [contested])));

        const winners = results.filter((r) => r.status === "fulfilled");
        const losers = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        assert.equal(winners.length, 1);
        assert.equal(losers.length, 49);
        for (const l of losers) assert.ok(l.reason instanceof IdentityTakenError, String(l.reason));

        const winner = await store.findByIdentity(contested);
        assertUser(winner);
        const stored = (await Promise.all(drafts.map((d) => store.findById(d.id)))).filter((u) => u !== null);
        assert.deepEqual(stored, [winner], "only the winner's row exists");
      });

      it("settles concurrent creations each on its own: a clash fails alone, the others are stored", async () => {
        // Started together, as a burst of first logins is (SQLite commits such a burst as one group).
        // Which of two clashing creations wins is the database's choice: each pair has one winner.
        const contested = identity();
        const sameIdentity = [draft(), draft()];
        const secondIds = [identity(), identity()];
        const nameOwner = draft();
        const sameName = [nameOwner, draft({ username: nameOwner.username.toUpperCase() })];
        const fine = [draft(), draft()];
        const fineIds = [identity(), identity("douyin")];
        const [byIdentity, byName, fineResults] = await Promise.all([
          Promise.allSettled(sameIdentity.map((d, i) => store.createUser(d, [secondIds[i], contested]))),
          Promise.allSettled(sameName.map((d) => store.createUser(d, [identity()]))),
          Promise.allSettled(fine.map((d, i) => store.createUser(d, [fineIds[i]]))),
        ]);

        const identityWinner = byIdentity.findIndex((r) => r.status === "fulfilled");
        const identityLoser = 1 - identityWinner;
        assert.equal(byIdentity.filter((r) => r.status === "fulfilled").length, 1);
        assert.ok((byIdentity[identityLoser] as PromiseRejectedResult).reason instanceof IdentityTakenError);
        assert.equal((await store.findByIdentity(contested))?.id, sameIdentity[identityWinner].id);
        assert.equal(await store.findById(sameIdentity[identityLoser].id), null);
        assert.equal(await store.findByIdentity(secondIds[identityLoser]), null, "the loser's other identity is rolled back with it");

        const nameWinner = byName.findIndex((r) => r.status === "fulfilled");
        assert.equal(byName.filter((r) => r.status === "fulfilled").length, 1);
        assert.ok((byName[1 - nameWinner] as PromiseRejectedResult).reason instanceof AccountTakenError);
        assert.equal(await store.findById(sameName[1 - nameWinner].id), null);

        assert.deepEqual(fineResults.map((r) => r.status), ["fulfilled", "fulfilled"]);
        assert.equal((await store.findByIdentity(fineIds[0]))?.id, fine[0].id);
        assert.equal((await store.findByIdentity(fineIds[1]))?.id, fine[1].id);
      });
    });

    describe("attachIdentity", () => {
      it("links a secondary identity without changing the user", async () => {
        const user = await store.createUser(draft(), [identity()]);
        const extra = identity();
        const result = await store.attachIdentity(user.id, extra, { asPrimary: false });
        assert.deepEqual(result, user);
        assert.deepEqual(await store.findByIdentity(extra), user);
      });

      it("as primary sets openid, bumps the version and updatedAt", async () => {
        const user = await store.createUser(draft(), [identity()]);
        const primary = identity();
        const before = Date.now();
        const result = await store.attachIdentity(user.id, primary, { asPrimary: true });
        assertUser(result);
        assert.equal(result.openid, primary.platformId);
        assert.equal(result.version, 2);
        assert.equal(result.createdAt, CREATED_AT);
        assert.ok(Date.parse(result.updatedAt) >= before - 1000, result.updatedAt);
        assert.deepEqual(await store.findById(user.id), result);
        assert.deepEqual(await store.findByIdentity(primary), result);
      });

      it("returns null and changes nothing when the identity belongs to a user already", async () => {
        const taken = identity();
        const owner = await store.createUser(draft(), [taken]);
        const other = await store.createUser(draft(), [identity()]);
        assert.equal(await store.attachIdentity(other.id, taken, { asPrimary: true }), null);
        assert.equal(await store.attachIdentity(owner.id, taken, { asPrimary: true }), null, "even for its owner");
        assert.deepEqual(await store.findById(other.id), other);
        assert.deepEqual(await store.findById(owner.id), owner);
        assert.deepEqual(await store.findByIdentity(taken), owner);
      });

      it("lists a user's identities, and none for an unknown user", async () => {
        const first = identity("douyin");
        const user = await store.createUser(draft(), [first]);
        assert.deepEqual(await store.listIdentities(user.id), [first]);
        const second = identity("douyin");
        await store.attachIdentity(user.id, second, { asPrimary: true });
        const listed = await store.listIdentities(user.id);
        assert.equal(listed.length, 2);
        assert.deepEqual(new Set(listed.map((i) => i.platformId)), new Set([first.platformId, second.platformId]));
        assert.deepEqual(await store.listIdentities(crypto.randomUUID()), []);
      });

      it("keeps apps' namespaces apart: the same id under wechat and under wechat@<app id> is two identities (core/apps.ts)", async () => {
        const platformId = `o-${suffix()}`;
        const ofDefault = { platform: "wechat", platformId };
        const ofPuzzle = { platform: "wechat@wx_puzzle_app", platformId };
        const a = await store.createUser(draft(), [ofDefault]);
        const b = await store.createUser(draft(), [ofPuzzle]);
        assert.equal((await store.findByIdentity(ofDefault))?.id, a.id);
        assert.equal((await store.findByIdentity(ofPuzzle))?.id, b.id);
        assert.equal(await store.findByIdentity({ platform: "wechat@wx_other_app", platformId }), null);
        // A player of two games: one user, found from either app's openid, listed with their namespaces.
        const union = { platform: "wechat", platformId: `u-${suffix()}` };
        assert.ok(await store.attachIdentity(a.id, union, { asPrimary: false }));
        const secondGame = { platform: "wechat@wx_racing_app", platformId: `o-${suffix()}` };
        assert.equal((await store.attachIdentity(a.id, secondGame, { asPrimary: false }))?.openid, a.openid, "the user's openid stays the first game's");
        assert.deepEqual(new Set((await store.listIdentities(a.id)).map((i) => `${i.platform}:${i.platformId}`)), new Set([ofDefault, union, secondGame].map((i) => `${i.platform}:${i.platformId}`)));
        assert.deepEqual(new Set((await store.exportUser(a.id))!.identities.map((i) => i.platform)), new Set(["wechat", "wechat@wx_racing_app"]));
      });

      it("returns null and links nothing when the user does not exist", async () => {
        const id = identity();
        assert.equal(await store.attachIdentity(crypto.randomUUID(), id, { asPrimary: true }), null);
        assert.equal(await store.attachIdentity(crypto.randomUUID(), id, { asPrimary: false }), null);
        assert.equal(await store.findByIdentity(id), null);
      });
    });

    describe("credentials", () => {
      it("finds the hash by username and email in any letter case, and by id", async () => {
        const input = draft({ username: `Mixed_${suffix()}`, email: `Mixed_${suffix()}@Players.invalid` });
        const user = await store.createUser(input, []);
        assert.equal(user.username, input.username, "the display form is kept");
        assert.equal(user.email, input.email, "email stored as given");
        const expected = { user, passwordHash: input.passwordHash, passwordSetAt: null };
        for (const form of [input.username, input.username.toUpperCase(), input.username.toLowerCase()]) {
          assert.deepEqual(await store.findCredentialsByUsername(form), expected, form);
        }
        for (const form of [input.email, input.email.toUpperCase(), input.email.toLowerCase()]) {
          assert.deepEqual(await store.findCredentialsByEmail(form), expected, form);
        }
        assert.deepEqual(await store.findCredentialsById(input.id), expected);
        assertUser(expected.user);

        assert.equal(await store.findCredentialsByUsername(input.email), null);
        assert.equal(await store.findCredentialsByUsername(`${input.username}_`), null);
        assert.equal(await store.findCredentialsById(crypto.randomUUID()), null);
      });

      it("keeps the password time of a user created with a chosen password", async () => {
        const input = draft({ openid: null, passwordSetAt: CREATED_AT });
        const user = await store.createUser(input, []);
        assert.deepEqual(await store.findCredentialsById(user.id), { user, passwordHash: input.passwordHash, passwordSetAt: CREATED_AT });
      });

      it("setPassword stores the hash and its time, bumping the version", async () => {
        const user = await store.createUser(draft(), []);
        const at = "2025-01-02T03:04:05.678Z";
        const updated = await store.setPassword(user.id, "new-hash", at);
        assertUser(updated);
        assert.deepEqual(updated, { ...user, version: 2, updatedAt: at });
        assert.deepEqual(await store.findCredentialsById(user.id), { user: updated, passwordHash: "new-hash", passwordSetAt: at });
        assert.equal(await store.setPassword(crypto.randomUUID(), "x", at), null);
      });
    });

    describe("findByNickname", () => {
      it("finds users by their current nickname exactly, oldest first, up to the limit", async () => {
        const nick = `Nick${crypto.randomBytes(3).toString("hex")}`;
        const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
        const b = await store.createUser(draft({ createdAt: at(2) }), []);
        const a = await store.createUser(draft({ createdAt: at(1) }), []);
        const c = await store.createUser(draft({ createdAt: at(3) }), []);
        for (const u of [a, b, c]) assertUser(await store.updateProfile(u.id, { nickname: nick }, 1));
        assertUser(await store.updateProfile(c.id, { nickname: `${nick}-renamed` }, 2));
        assert.deepEqual((await store.findByNickname(nick, 10)).map((u) => u.id), [a.id, b.id]);
        assert.equal((await store.findByNickname(nick, 1)).length, 1);
        assert.deepEqual(await store.findByNickname(nick.toLowerCase(), 10), [], "exact, case included");
        assert.deepEqual((await store.findByNickname(`${nick}-renamed`, 10)).map((u) => u.id), [c.id]);
      });
    });

    describe("findByNamePart", () => {
      it("finds users whose current nickname or username contains the part, any letter case, oldest first; wildcards are plain text", async () => {
        const tag = crypto.randomBytes(3).toString("hex");
        const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
        const b = await store.createUser(draft({ createdAt: at(2) }), []);
        const a = await store.createUser(draft({ createdAt: at(1) }), []);
        const renamed = await store.createUser(draft({ createdAt: at(3) }), []);
        const byUsername = await store.createUser(draft({ createdAt: at(4), username: `keeper_${tag}` }), []);
        assertUser(await store.updateProfile(a.id, { nickname: `小明Ming${tag}` }, 1));
        assertUser(await store.updateProfile(b.id, { nickname: `Dragon${tag}小明` }, 1));
        assertUser(await store.updateProfile(renamed.id, { nickname: `小明${tag}` }, 1));
        assertUser(await store.updateProfile(renamed.id, { nickname: `Other${tag}` }, 2));
        assert.deepEqual((await store.findByNamePart(`${tag}小明`, 10)).map((u) => u.id), [b.id]);
        assert.deepEqual((await store.findByNamePart(`ming${tag.toUpperCase()}`, 10)).map((u) => u.id), [a.id], "letter case ignored");
        assert.deepEqual((await store.findByNamePart(`r_${tag}`, 10)).map((u) => u.id), [byUsername.id], "the username too");
        assert.deepEqual(await store.findByNamePart(`%${tag}`, 10), [], "% is not a wildcard");
        assert.deepEqual(await store.findByNamePart(`.*${tag}`, 10), [], "nor is a regex");
        const both = (await store.findByNamePart(tag, 10)).map((u) => u.id);
        assert.deepEqual(both.filter((id) => id !== byUsername.id), [a.id, b.id, renamed.id], "oldest first; the renamed one by its new name");
        assert.equal((await store.findByNamePart(tag, 1)).length, 1);
      });
    });

    describe("updateProfile", () => {
      it("changes only the given fields and bumps version and updatedAt", async () => {
        const user = await store.createUser(draft(), []);
        const v2 = await store.updateProfile(user.id, { nickname: "Ann" }, 1);
        assertUser(v2);
        assert.deepEqual({ ...v2, updatedAt: user.updatedAt }, { ...user, nickname: "Ann", version: 2 });
        assert.notEqual(v2.updatedAt, user.updatedAt);

        const v3 = await store.updateProfile(user.id, { avatar: "https://cdn.example/a.png" }, 2);
        assertUser(v3);
        assert.equal(v3.nickname, "Ann", "undefined leaves a field untouched");
        assert.equal(v3.avatar, "https://cdn.example/a.png");
        assert.equal(v3.version, 3);

        const v4 = await store.updateProfile(user.id, { nickname: null, avatar: undefined }, 3);
        assertUser(v4);
        assert.equal(v4.nickname, null, "null clears");
        assert.equal(v4.avatar, "https://cdn.example/a.png");
        assert.deepEqual(await store.findById(user.id), v4);
      });

      it("reports a version conflict without writing, and null for a missing user", async () => {
        const user = await store.createUser(draft(), []);
        const v2 = await store.updateProfile(user.id, { nickname: "first" }, 1);
        assert.equal(await store.updateProfile(user.id, { nickname: "stale" }, 1), "version_conflict");
        assert.deepEqual(await store.findById(user.id), v2);
        assert.equal(await store.updateProfile(crypto.randomUUID(), { nickname: "x" }, 1), null);
      });

      it("lets only one of two concurrent updates of the same version win", async () => {
        const user = await store.createUser(draft(), []);
        const results = await Promise.all([
          store.updateProfile(user.id, { nickname: "a" }, 1),
          store.updateProfile(user.id, { nickname: "b" }, 1),
        ]);
        assert.equal(results.filter((r) => r === "version_conflict").length, 1);
        const winner = results.find((r) => r !== "version_conflict");
        assertUser(winner ?? null);
        assert.deepEqual(await store.findById(user.id), winner);
      });

      it("lets exactly one of 30 concurrent updates of the same version win", async () => {
        // The shape that loses writes where an update's filter is checked apart from its write
        // (FerretDB 1.x runs updates as read-modify-write): many writers, one document, one version.
        const user = await store.createUser(draft(), []);
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => store.updateProfile(user.id, { nickname: `n${i}` }, 1)));
        const winners = results.filter((r): r is User => r !== "version_conflict" && r !== null);
        assert.equal(winners.length, 1, JSON.stringify(results.map((r) => (typeof r === "string" ? r : r?.nickname))));
        assert.deepEqual(await store.findById(user.id), winners[0]);
        assert.equal(await store.updateProfile(user.id, { nickname: "late" }, 1), "version_conflict");
      });
    });

    it("applies each of 30 concurrent unconditional changes exactly once: none is lost", async () => {
      const user = await store.createUser(draft(), []);
      const at = "2025-01-01T00:00:00.000Z";
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          i % 2 === 0 ? store.disableUser(user.id, { reason: `r${i}`, until: null }, at) : store.enableUser(user.id, at),
        ),
      );
      const versions = results.map((r) => r?.version).sort((a, b) => (a ?? 0) - (b ?? 0));
      assert.deepEqual(versions, Array.from({ length: 30 }, (_, i) => i + 2), "each change got its own version");
      const last = results.find((r) => r?.version === 31);
      assert.deepEqual(await store.findById(user.id), last);
    });

    it("setStatus changes the status and bumps the version", async () => {
      const user = await store.createUser(draft(), []);
      const updated = await store.setStatus(user.id, 2);
      assertUser(updated);
      assert.equal(updated.status, 2);
      assert.equal(updated.version, 2);
      assert.deepEqual(await store.findById(user.id), updated);
      assert.equal(await store.setStatus(crypto.randomUUID(), 2), null);
    });

    describe("disable, enable and bans", () => {
      const HOUR = 3600_000;

      it("disables indefinitely with a reason, and enables again", async () => {
        const user = await store.createUser(draft(), []);
        const disabled = await store.disableUser(user.id, { reason: "cheating", until: null }, "2024-04-01T00:00:00.000Z");
        assertUser(disabled);
        assert.equal(disabled.status, 2);
        assert.equal(disabled.version, 2);
        assert.deepEqual(await store.findById(user.id), disabled);
        assert.deepEqual(await store.findRestriction(user.id), { reason: "cheating", until: null });

        const enabled = await store.enableUser(user.id, "2024-04-02T00:00:00.000Z");
        assertUser(enabled);
        assert.equal(enabled.status, 1);
        assert.equal(enabled.version, 3);
        assert.equal(await store.findRestriction(user.id), null);
        assert.equal(await store.disableUser(crypto.randomUUID(), { reason: "x", until: null }, CREATED_AT), null);
        assert.equal(await store.enableUser(crypto.randomUUID(), CREATED_AT), null);
      });

      it("reads a ban as active on every read once its end has passed, with no write", async () => {
        const start = Date.parse("2030-01-01T00:00:00.000Z");
        clockMs = start;
        const user = await store.createUser(draft(), [identity()]);
        const until = new Date(start + HOUR).toISOString();
        await store.disableUser(user.id, { reason: "spam", until }, new Date(start).toISOString());
        const banned = await store.findById(user.id);
        assert.equal(banned?.status, 2);
        assert.deepEqual(await store.findRestriction(user.id), { reason: "spam", until });
        assert.equal((await store.findCredentialsById(user.id))?.user.status, 2);

        clockMs = start + HOUR; // the end itself: lifted
        const lifted = await store.findById(user.id);
        assert.equal(lifted?.status, 1);
        assert.equal(lifted?.version, banned?.version, "nothing was written");
        assert.equal(await store.findRestriction(user.id), null);
        assert.equal((await store.findCredentialsById(user.id))?.user.status, 1);
        assert.equal((await store.findByIdentity((await store.listIdentities(user.id))[0]))?.status, 1);
      });

      it("answers null for the restriction of a missing user", async () => {
        assert.equal(await store.findRestriction(crypto.randomUUID()), null);
      });
    });

    describe("mutes", () => {
      it("mutes with a reason until an end, replaced by a later mute, lifted by unmute; the version moves, the status does not", async () => {
        const user = await store.createUser(draft(), []);
        assert.equal(await store.findMute(user.id), null);
        const muted = await store.muteUser(user.id, { reason: "spam", until: "2099-01-01T00:00:00.000Z" }, "2024-04-01T00:00:00.000Z");
        assertUser(muted);
        assert.deepEqual([muted.status, muted.version, muted.updatedAt], [1, 2, "2024-04-01T00:00:00.000Z"]);
        assert.deepEqual(await store.findMute(user.id), { reason: "spam", until: "2099-01-01T00:00:00.000Z" });
        await store.muteUser(user.id, { reason: "insults", until: "2098-01-01T00:00:00.000Z" }, "2024-04-02T00:00:00.000Z");
        assert.deepEqual(await store.findMute(user.id), { reason: "insults", until: "2098-01-01T00:00:00.000Z" });
        const record = await store.exportUser(user.id);
        assert.deepEqual([record?.user.muteReason, record?.user.mutedUntil], ["insults", "2098-01-01T00:00:00.000Z"], "the export shows the mute");

        const unmuted = await store.unmuteUser(user.id, "2024-04-03T00:00:00.000Z");
        assertUser(unmuted);
        assert.equal(unmuted.version, 4);
        assert.equal(await store.findMute(user.id), null);
        assert.equal(await store.muteUser(crypto.randomUUID(), { reason: "x", until: "2099-01-01T00:00:00.000Z" }, CREATED_AT), null);
        assert.equal(await store.unmuteUser(crypto.randomUUID(), CREATED_AT), null);
        assert.equal(await store.findMute(crypto.randomUUID()), null);
      });

      it("reads a mute as over once its end has passed, with no write; a mute leaves the account usable", async () => {
        const start = Date.parse("2030-01-01T00:00:00.000Z");
        clockMs = start;
        const user = await store.createUser(draft(), []);
        const until = new Date(start + 60_000).toISOString();
        const muted = await store.muteUser(user.id, { reason: "flood", until }, new Date(start).toISOString());
        assert.deepEqual(await store.findById(user.id), muted);
        assert.deepEqual(await store.findMute(user.id), { reason: "flood", until });
        assert.equal(await store.findRestriction(user.id), null, "muted is not disabled");
        clockMs = start + 60_000;
        assert.equal(await store.findMute(user.id), null);
        assert.equal((await store.findById(user.id))?.version, muted?.version, "nothing was written");
      });
    });

    describe("export and delete", () => {
      it("exports every stored field but the password hash", async () => {
        const input = draft({ passwordSetAt: "2024-03-05T06:07:09.000Z" });
        const user = await store.createUser(input, [identity()]);
        await store.disableUser(user.id, { reason: "chargeback", until: "2099-01-01T00:00:00.000Z" }, "2024-03-06T00:00:00.000Z");
        const record = await store.exportUser(user.id);
        assert.ok(record);
        assert.equal(JSON.stringify(record).includes(input.passwordHash), false, "no password hash");
        assert.equal("passwordHash" in record.user, false);
        assert.equal(record.user.id, user.id);
        assert.equal(record.user.username, input.username);
        assert.equal(record.user.email, input.email);
        assert.equal(record.user.passwordSetAt, "2024-03-05T06:07:09.000Z");
        assert.equal(record.user.disabledReason, "chargeback");
        assert.equal(record.user.disabledUntil, "2099-01-01T00:00:00.000Z");
        assert.equal(record.user.createdAt, CREATED_AT);
        assert.equal(record.identities.length, 1);
        assert.deepEqual(
          record.identities.map(({ platform, platformId }) => ({ platform, platformId })),
          await store.listIdentities(user.id),
        );
        assert.equal(record.identities[0].createdAt, CREATED_AT);
        assert.equal(await store.exportUser(crypto.randomUUID()), null);
      });

      it("deletes the user with its identities, freeing them for a new user", async () => {
        const id = identity();
        const input = draft();
        const user = await store.createUser(input, [id]);
        assert.equal(await store.deleteUser(user.id), true);
        assert.equal(await store.findById(user.id), null);
        assert.equal(await store.findByIdentity(id), null);
        assert.deepEqual(await store.listIdentities(user.id), []);
        assert.equal(await store.deleteUser(user.id), false);
        // The same identity, username and email can belong to a new user now.
        const again = await store.createUser({ ...input, id: crypto.randomUUID() }, [id]);
        assert.equal((await store.findByIdentity(id))?.id, again.id);
      });
    });

    it("answers ping and migrates again without harm", async () => {
      const user = await store.createUser(draft(), [identity()]);
      await store.ping();
      await store.migrate();
      await store.migrate();
      assert.deepEqual(await store.findById(user.id), user);
    });

    const unlessSkipped = (title: string) => (impl.skips?.[title] ? it.skip : it);

    unlessSkipped("refuses to migrate while accounts collide case-insensitively, listing them, and changes nothing")("refuses to migrate while accounts collide case-insensitively, listing them, and changes nothing", async () => {
      const older = await impl.prepare();
      try {
        // A database from before the case-insensitive keys, holding accounts that collide.
        await (await createUserStore(older.config)).close();
        await rawSql(older.config, [
          "drop index users_username_ci_key",
          "drop index users_email_ci_key",
          // The later migrations (0006: the order ledger, idempotent) go too: that database predates them.
          "delete from kysely_migration where name >= '0005_case_insensitive_accounts'",
        ]);
        const s = suffix();
        const rows = [
          [`a1-${s}`, `Alice_${s}`, `a1_${s}@example.com`],
          [`a2-${s}`, `alice_${s}`, `a2_${s}@example.com`],
          [`b1-${s}`, `bob1_${s}`, `Bob_${s}@Example.com`],
          [`b2-${s}`, `bob2_${s}`, `bob_${s}@example.com`],
          [`c1-${s}`, `carol_${s}`, `carol_${s}@example.com`],
        ];
        await rawSql(
          older.config,
          rows.map(([id, username, email]) => `insert into users (id, username, email, password_hash, created_at, updated_at) values ('${id}', '${username}', '${email}', 'h', '${CREATED_AT}', '${CREATED_AT}')`),
        );

        await assert.rejects(createUserStore(older.config), (err: Error) => {
          for (const [id, username] of rows.slice(0, 2)) assert.ok(err.message.includes(id) && err.message.includes(username), err.message);
          for (const [id, , email] of rows.slice(2, 4)) assert.ok(err.message.includes(id) && err.message.includes(email), err.message);
          assert.ok(!err.message.includes(rows[4][0]), "only colliding accounts are listed");
          return true;
        });
        const kept = await rawSql(older.config, [`select id, username, email from users where id like '%-${s}' order by id`]);
        assert.deepEqual(
          kept.map((r) => [r.id, r.username, r.email]),
          rows,
          "nothing merged, renamed or removed",
        );
      } finally {
        await older.release();
      }
    });

    it("lets two stores migrate a fresh database concurrently", async () => {
      const fresh = await impl.prepare();
      const stores: UserStore[] = [];
      try {
        const opened = await Promise.allSettled([createUserStore(fresh.config), createUserStore(fresh.config)]);
        for (const o of opened) if (o.status === "fulfilled") stores.push(o.value);
        for (const o of opened) if (o.status === "rejected") throw o.reason;
        const [a, b] = stores;
        await Promise.all([a.migrate(), b.migrate()]);
        const user = await a.createUser(draft(), []);
        assert.deepEqual(await b.findById(user.id), user);
      } finally {
        for (const s of stores) await s.close();
        await fresh.release();
      }
    });
  });
}

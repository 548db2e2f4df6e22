/**
 * The spec's cache keys (interface spec 5.5): `access_token:<userId>` and `refresh_token:<userId>`,
 * literally, on the memory cache and one Redis; hash-tagged (`access_token:{<userId>}`) only on a
 * Redis Cluster. Sessions an earlier version wrote with braces on one Redis keep working after the
 * upgrade: they verify, refresh onto the spec's keys, end on logout and are replaced by a new login.
 */
import assert from "node:assert/strict";
import Redis, { Cluster } from "ioredis";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { RedisCache } from "../../src/adapters/cache/redis-cache";
import type { Cache } from "../../src/core/ports/cache";
import type { User } from "../../src/core/user";
import { SessionService, type SessionEndReason } from "../../src/services/session-service";
import { SessionKeyCustody } from "../../src/services/session-key-custody";
import { TokenSigner } from "../../src/services/token-signer";
import { newPlatformUser } from "../../src/services/user-factory";
import { rejectsWith } from "../support/app-error";
import { MemoryUserStore } from "../support/memory-user-store";
import { redisCluster, redisClusterSkipReason } from "../support/redis-cluster";
import { testRedisUrl, uniquePrefix } from "../support/services";

/** Reads and writes the physical keys, under the cache's prefix, around the cache under test. */
interface RawKeys {
  get(key: string): Promise<string | null>;
  rename(from: string, to: string): Promise<void>;
  close(): Promise<void>;
}

interface Backend {
  title: string;
  skip?: string;
  hashTagged: boolean;
  open(): Promise<{ cache: Cache; raw: RawKeys }>;
}

function memoryRaw(cache: MemoryCache): RawKeys {
  return {
    get: (key) => cache.get(key),
    async rename(from, to) {
      const value = await cache.get(from);
      const ttl = await cache.ttlMs(from);
      assert.ok(value !== null && ttl !== null, `${from} exists`);
      await cache.set(to, value, Math.ceil(ttl / 1000));
      await cache.delete(from);
    },
    close: async () => undefined,
  };
}

function redisRaw(client: Redis | Cluster, prefix: string): RawKeys {
  return {
    get: (key) => client.get(prefix + key),
    async rename(from, to) {
      await client.rename(prefix + from, prefix + to);
    },
    async close() {
      client.disconnect();
    },
  };
}

const backends: Backend[] = [
  {
    title: "MemoryCache",
    hashTagged: false,
    async open() {
      const cache = new MemoryCache();
      return { cache, raw: memoryRaw(cache) };
    },
  },
  {
    title: "one Redis",
    skip: testRedisUrl ? undefined : "TEST_REDIS_URL is not set",
    hashTagged: false,
    async open() {
      const prefix = uniquePrefix("spec-keys");
      const cache = new RedisCache(testRedisUrl!, { keyPrefix: prefix });
      await cache.waitUntilReady(5000);
      return { cache, raw: redisRaw(new Redis(testRedisUrl!), prefix) };
    },
  },
  {
    title: "Redis Cluster",
    skip: redisClusterSkipReason,
    hashTagged: true,
    async open() {
      const nodes = await redisCluster();
      const prefix = uniquePrefix("spec-keys");
      const cache = new RedisCache({ nodes: nodes.urls }, { keyPrefix: prefix });
      await cache.waitUntilReady(10_000);
      return { cache, raw: redisRaw(new Cluster(nodes.ports.map((port) => ({ host: "127.0.0.1", port }))), prefix) };
    },
  },
];

for (const backend of backends) {
  (backend.skip ? describe.skip : describe)(`Session cache keys on ${backend.title}`, function () {
    this.timeout(30_000);
    let cache: Cache;
    let raw: RawKeys;
    let store: MemoryUserStore;
    let sessions: SessionService;
    let ended: { userId: string; reason: SessionEndReason }[];
    let user: User;
    const signer = new TokenSigner({ secret: "spec-keys-test-secret-of-enough-length-0123", previousSecrets: [], accessTtlSec: 900, refreshTtlSec: 86_400 });

    before(async () => {
      ({ cache, raw } = await backend.open());
      store = new MemoryUserStore(() => Date.now());
      sessions = new SessionService(signer, cache, store, { refreshGraceSec: 10, apps: ["default", "puzzle"] });
      sessions.onSessionChange((userId, reason) => ended.push({ userId, reason }));
    });

    after(async () => {
      await raw?.close();
      await cache?.close();
    });

    beforeEach(async () => {
      ended = [];
      user = await store.createUser(newPlatformUser("wechat", `openid-${Math.random()}`, "players.invalid", new Date()), []);
    });

    const spec = (name: string, id: string, app = "default") => (app === "default" ? `${name}:${id}` : `${name}:${id}:${app}`);
    const braced = (name: string, id: string, app = "default") => (app === "default" ? `${name}:{${id}}` : `${name}:{${id}}:${app}`);

    it(
      backend.hashTagged
        ? "writes access_token:{<userId>} and refresh_token:{<userId>}: a cluster needs the hash tag"
        : "writes the spec's access_token:<userId> and refresh_token:<userId>, without braces",
      async () => {
        const issued = await sessions.startSession(user, "default", "full");
        const inPuzzle = await sessions.startSession(user, "puzzle", "full");
        const [written, absent] = backend.hashTagged ? [braced, spec] : [spec, braced];
        assert.equal(await raw.get(written("access_token", user.id)), issued.token);
        assert.equal(await raw.get(written("refresh_token", user.id)), issued.refreshToken);
        assert.equal(await raw.get(written("access_token", user.id, "puzzle")), inPuzzle.token);
        assert.equal(await raw.get(absent("access_token", user.id)), null);
        assert.equal(await raw.get(absent("refresh_token", user.id)), null);
        assert.equal((await sessions.verifyAccessToken(issued.token)).auth.userId, user.id);
      },
    );

    if (backend.hashTagged || backend.title === "MemoryCache") return;

    /** A session as an earlier version left it: the same tokens under the braced keys. */
    async function sessionFromBeforeUpgrade(app = "default") {
      const issued = await sessions.startSession(user, app, "full");
      await new SessionKeyCustody(cache, 86_400).entryFor(user.id, app, { platform: "wechat", openid: "o", sessionKey: "k" }).then((e) => cache.set(e!.key, e!.value, e!.ttlSec));
      for (const name of ["access_token", "refresh_token", "session_key"]) await raw.rename(spec(name, user.id, app), braced(name, user.id, app));
      ended = [];
      return issued;
    }

    it("a session written with braces before the upgrade still verifies, and its platform session key is still found", async () => {
      const old = await sessionFromBeforeUpgrade("puzzle");
      assert.equal((await sessions.verifyAccessToken(old.token)).auth.app, "puzzle");
      assert.equal(await sessions.liveSessionId(user.id, "puzzle"), old.sid);
      assert.deepEqual(await sessions.liveApps(user.id), ["puzzle"]);
      assert.equal((await new SessionKeyCustody(cache, 86_400).read(user.id, "puzzle"))?.sessionKey, "k");
    });

    it("its refresh moves the session onto the spec's keys and drops the braced ones", async () => {
      const old = await sessionFromBeforeUpgrade();
      const rotated = await sessions.refresh(old.refreshToken);
      assert.equal(rotated.sid, old.sid);
      assert.equal(await raw.get(spec("refresh_token", user.id)), rotated.refreshToken);
      assert.equal(await raw.get(braced("refresh_token", user.id)), null);
      assert.equal(await raw.get(braced("access_token", user.id)), null);
      await assert.rejects(sessions.verifyAccessToken(old.token), rejectsWith("session_revoked"));
      assert.equal((await sessions.verifyAccessToken(rotated.token)).auth.sid, old.sid);
    });

    it("a new login replaces it (listeners hear new_login) and the old token is refused", async () => {
      const old = await sessionFromBeforeUpgrade();
      const fresh = await sessions.startSession(user, "default", "full");
      assert.deepEqual(ended, [{ userId: user.id, reason: "new_login" }]);
      await assert.rejects(sessions.verifyAccessToken(old.token), rejectsWith("session_revoked"));
      await assert.rejects(sessions.refresh(old.refreshToken), rejectsWith("refresh_token_invalid"));
      assert.equal(await raw.get(braced("refresh_token", user.id)), null);
      assert.equal((await sessions.verifyAccessToken(fresh.token)).auth.sid, fresh.sid);
    });

    it("a logout or a ban ends it under both spellings", async () => {
      const old = await sessionFromBeforeUpgrade();
      await sessions.logout(user.id, "default", old.sid);
      await assert.rejects(sessions.verifyAccessToken(old.token), rejectsWith("session_revoked"));
      for (const name of ["access_token", "refresh_token", "session_key"]) assert.equal(await raw.get(braced(name, user.id)), null, name);
      const again = await sessionFromBeforeUpgrade();
      await sessions.endSession(user.id, "operator");
      await assert.rejects(sessions.verifyAccessToken(again.token), rejectsWith("session_revoked"));
    });
  });
}

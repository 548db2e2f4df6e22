import assert from "node:assert/strict";
import jwt from "jsonwebtoken";
import { accessTokenKey, refreshTokenKey } from "../../src/services/session-service";
import { useHarness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
/** A fresh player name per test so tests never share users or codes. */
const player = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;

for (const backend of backends) {
  describe(`mini-game login over HTTP — ${backend.name}`, () => {
    const h = useHarness(backend);

    describe("WeChat", () => {
      it("creates a new user and returns every spec field with a token", async () => {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=${player("alice")}.1`);
        assert.equal(res.status, 200);
        assert.equal(res.body.success, true);
        assert.equal(typeof res.body.message, "string");
        const d = res.body.data;
        assert.match(d.openid, /^o.{27}$/);
        assert.ok(d.unionid);
        assert.equal(Buffer.from(d.session_key, "base64").length, 16);
        assert.equal(d.errcode, 0);
        assert.equal(d.errmsg, "");
        assert.equal(d.expiresIn, 7200);
        assert.ok(d.refreshToken);
        const u = d.user;
        assert.match(u.id, UUID);
        assert.match(u.username, /^mg_wechat_[a-z0-9]+$/);
        assert.match(u.email, /^wechat_[a-z0-9]+@players\.invalid$/);
        assert.equal(u.username.slice("mg_wechat_".length), u.email.slice("wechat_".length, u.email.indexOf("@")));
        assert.equal(u.openid, d.openid);
        assert.equal(u.nickname, null);
        assert.equal(u.avatar, null);
        assert.equal(u.guildId, null);
        assert.equal(u.status, 1);
        assert.equal(u.version, 1);
        assert.match(u.createdAt, ISO_UTC);
        assert.match(u.updatedAt, ISO_UTC);
        assert.deepEqual(
          Object.keys(u).sort(),
          ["avatar", "createdAt", "email", "guildId", "id", "nickname", "openid", "status", "updatedAt", "username", "version"],
        );
      });

      it("issues an HS256 JWT whose userId is the user's UUID, not the openid", async () => {
        const { body } = await h.get(`/api/minigame/wechat/login?jsCode=${player("jwt")}`);
        const decoded = jwt.decode(body.data.token, { complete: true })!;
        assert.equal(decoded.header.alg, "HS256");
        assert.equal(decoded.header.typ, "JWT");
        const claims = decoded.payload as Record<string, unknown>;
        assert.equal(claims.userId, body.data.user.id);
        assert.notEqual(claims.userId, body.data.openid);
        assert.equal(claims.username, body.data.user.username);
        assert.equal(claims.email, body.data.user.email);
        assert.equal(typeof claims.sid, "string");
        assert.equal(typeof claims.jti, "string");
        assert.equal((claims.exp as number) - (claims.iat as number), 7200);
      });

      it("finds the returning player instead of creating another user", async () => {
        const name = player("bob");
        const first = await h.get(`/api/minigame/wechat/login?jsCode=${name}.1`);
        const second = await h.get(`/api/minigame/wechat/login?jsCode=${name}.2`);
        assert.equal(second.status, 200);
        assert.equal(second.body.data.user.id, first.body.data.user.id);
        assert.notEqual(second.body.data.token, first.body.data.token);
      });

      it("writes the spec's access_token:<userId> and refresh_token:<userId> with the tokens' lifetimes", async () => {
        const { body } = await h.get(`/api/minigame/wechat/login?jsCode=${player("cache")}`);
        const id = body.data.user.id;
        const cache = h.services.cache;
        assert.equal(await cache.get(accessTokenKey(id, "default")), body.data.token);
        assert.equal(await cache.get(refreshTokenKey(id, "default")), body.data.refreshToken);
        const accessTtl = (await cache.ttlMs(accessTokenKey(id, "default")))!;
        const refreshTtl = (await cache.ttlMs(refreshTokenKey(id, "default")))!;
        assert.ok(accessTtl > 7190_000 && accessTtl <= 7200_000, `access ttl ${accessTtl}`);
        assert.ok(refreshTtl > 30 * 86400_000 - 10_000 && refreshTtl <= 30 * 86400_000, `refresh ttl ${refreshTtl}`);
      });

      it("keys the user by unionid when the platform gives no openid", async () => {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=noopenid${player("u")}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.data.openid, "");
        assert.ok(res.body.data.unionid);
        assert.equal(res.body.data.user.openid, res.body.data.unionid);
      });

      it("answers 502 platform_identity_missing with empty token and null user when no id comes back", async () => {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=noid${player("n")}`);
        assert.equal(res.status, 502);
        assert.equal(res.body.success, false);
        assert.equal(res.body.data.code, "platform_identity_missing");
        assert.equal(res.body.data.token, "");
        assert.equal(res.body.data.user, null);
      });

      it("creates exactly one user when 50 first logins of one player arrive at once", async () => {
        const name = player("crowd");
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => h.get(`/api/minigame/wechat/login?jsCode=${name}.${i}`)),
        );
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
        assert.equal(new Set(results.map((r) => r.body.data.user.id)).size, 1);
      });
    });

    describe("Douyin", () => {
      it("logs in with a code, returning every spec 4.3 field", async () => {
        const res = await h.get(`/api/minigame/douyin/login?code=${player("dy")}`);
        assert.equal(res.status, 200);
        const d = res.body.data;
        for (const field of ["error", "openid", "anonymous_openid", "unionid", "session_key", "errcode", "errmsg", "message", "token", "user"]) {
          assert.ok(field in d, `missing ${field}`);
        }
        assert.equal(d.error, 0);
        assert.equal(d.anonymous_openid, "");
        assert.match(d.user.username, /^mg_douyin_/);
        assert.match(d.user.email, /^douyin_[a-z0-9]+@/);
        assert.equal(d.user.openid, d.openid);
      });

      it("logs in anonymously, keyed by the anonymous openid, and finds that user again", async () => {
        const device = player("dev");
        const first = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.1`);
        assert.equal(first.status, 200);
        assert.equal(first.body.data.openid, "");
        assert.equal(first.body.data.user.openid, first.body.data.anonymous_openid);
        const again = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.2&code=`);
        assert.equal(again.body.data.user.id, first.body.data.user.id);
      });

      it("moves an anonymous player to the openid on their first code login, keeping the user", async () => {
        const device = player("dev");
        const person = player("carol");
        const anon = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.1`);
        const both = await h.get(`/api/minigame/douyin/login?code=${person}.1&anonymous_code=${device}.2`);
        assert.equal(both.status, 200);
        const user = both.body.data.user;
        assert.equal(user.id, anon.body.data.user.id);
        assert.equal(user.openid, both.body.data.openid);
        assert.equal(user.version, 2);
        // The device still leads to the same player, and so does the code alone.
        const laterAnon = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.3`);
        assert.equal(laterAnon.body.data.user.id, user.id);
        const laterCode = await h.get(`/api/minigame/douyin/login?code=${person}.2`);
        assert.equal(laterCode.body.data.user.id, user.id);
      });

      it("logs in the openid user and leaves the anonymous one untouched when both exist", async () => {
        const device = player("dev");
        const person = player("dave");
        const anon = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.1`);
        const named = await h.get(`/api/minigame/douyin/login?code=${person}.1`);
        const both = await h.get(`/api/minigame/douyin/login?code=${person}.2&anonymous_code=${device}.2`);
        assert.equal(both.body.data.user.id, named.body.data.user.id);
        const anonUser = await h.services.store.findById(anon.body.data.user.id);
        assert.deepEqual(anonUser, anon.body.data.user);
      });

      it("creates one user for a first login with both codes, reachable from either", async () => {
        const device = player("dev");
        const person = player("erin");
        const both = await h.get(`/api/minigame/douyin/login?code=${person}.1&anonymous_code=${device}.1`);
        assert.equal(both.status, 200);
        assert.equal(both.body.data.user.openid, both.body.data.openid);
        assert.ok(both.body.data.anonymous_openid);
        const anon = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.2`);
        assert.equal(anon.body.data.user.id, both.body.data.user.id);
      });

      it("rejects a login with neither code as 400", async () => {
        for (const query of ["", "?code=", "?code=&anonymous_code="]) {
          const res = await h.get(`/api/minigame/douyin/login${query}`);
          assert.equal(res.status, 400, query);
          assert.equal(res.body.success, false);
          assert.equal(res.body.data.code, "invalid_request");
        }
      });

      it("reports a reused code as 401 platform_code_invalid with Douyin's fields", async () => {
        const code = player("reuse");
        assert.equal((await h.get(`/api/minigame/douyin/login?code=${code}`)).status, 200);
        const res = await h.get(`/api/minigame/douyin/login?code=${code}`);
        assert.equal(res.status, 401);
        assert.equal(res.body.data.code, "platform_code_invalid");
        assert.equal(res.body.data.errcode, 40018);
        assert.equal(res.body.data.error, 3);
        assert.equal(res.body.data.errmsg, "bad code");
        assert.equal(res.body.data.token, "");
        assert.equal(res.body.data.user, null);
      });
    });
  });
}

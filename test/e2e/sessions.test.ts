import assert from "node:assert/strict";
import { useHarness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

for (const backend of backends) {
  describe(`sessions and accounts over HTTP — ${backend.name}`, () => {
    let clock = Date.now();
    const h = useHarness(backend, { env: { REFRESH_GRACE_SEC: "2" }, overrides: { now: () => clock } });

    async function register(name = unique("user")) {
      const res = await h.request("POST", "/api/auth/register", { username: name, email: `${name}@example.com`, password: "correct horse" });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { name, ...res.body.data };
    }

    it("walks register → login → me → patch → refresh → grace retry → replay → logout", async () => {
      const reg = await register();
      assert.equal(reg.user.openid, null);
      assert.equal(reg.expiresIn, 7200);

      const login = await h.request("POST", "/api/auth/login", { username: reg.name, password: "correct horse" });
      assert.equal(login.status, 200);
      const { token, refreshToken } = login.body.data;
      assert.equal(login.body.data.user.id, reg.user.id);

      // The login ended the registration's session.
      const old = await h.get("/api/users/me", bearer(reg.token));
      assert.equal(old.status, 401);
      assert.equal(old.body.data.code, "session_revoked");

      const me = await h.get("/api/users/me", bearer(token));
      assert.equal(me.status, 200);
      assert.deepEqual(me.body.data, { ...login.body.data.user, app: "default" }, "the user, and the session's app");

      const patched = await h.request("PATCH", "/api/users/me", { nickname: "Ace", avatar: "https://cdn.example.com/a.png", version: 1 }, bearer(token));
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.data.nickname, "Ace");
      assert.equal(patched.body.data.version, 2);
      const stale = await h.request("PATCH", "/api/users/me", { nickname: "Late", version: 1 }, bearer(token));
      assert.equal(stale.status, 409);
      assert.equal(stale.body.data.code, "version_conflict");

      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken });
      assert.equal(refreshed.status, 200);
      assert.deepEqual(Object.keys(refreshed.body.data).sort(), ["expiresIn", "refreshToken", "token"]);
      const retried = await h.request("POST", "/api/auth/refresh", { refreshToken });
      assert.equal(retried.status, 200, "a retry within the grace window gets the same pair");
      assert.deepEqual(retried.body.data, refreshed.body.data);
      // The refreshed token works; the pre-refresh one no longer does.
      assert.equal((await h.get("/api/users/me", bearer(refreshed.body.data.token))).status, 200);
      assert.equal((await h.get("/api/users/me", bearer(token))).status, 401);

      await new Promise((r) => setTimeout(r, 2_500)); // let the grace entry expire in the real cache
      const replay = await h.request("POST", "/api/auth/refresh", { refreshToken });
      assert.equal(replay.status, 401);
      assert.equal(replay.body.data.code, "refresh_token_reused");
      const afterReuse = await h.get("/api/users/me", bearer(refreshed.body.data.token));
      assert.equal(afterReuse.body.data.code, "session_revoked", "reuse ended the session");

      const again = await h.request("POST", "/api/auth/login", { email: `${reg.name.toUpperCase()}@EXAMPLE.com`, password: "correct horse" });
      assert.equal(again.status, 200, "email login is case-insensitive");
      const logout = await h.request("POST", "/api/auth/logout", undefined, bearer(again.body.data.token));
      assert.equal(logout.status, 200);
      const refused = await h.get("/api/users/me", bearer(again.body.data.token));
      assert.equal(refused.status, 401);
      assert.equal(refused.body.data.code, "session_revoked");
      const deadRefresh = await h.request("POST", "/api/auth/refresh", { refreshToken: again.body.data.refreshToken });
      assert.equal(deadRefresh.body.data.code, "refresh_token_invalid");
    }).timeout(30_000);

    it("answers a refresh token of an ended session with refresh_token_invalid, leaving the live session alone", async () => {
      const first = await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`);
      const name = first.body.data.user.id;
      assert.ok(name);
      const code = unique("q");
      const a = await h.get(`/api/minigame/douyin/login?code=${code}`);
      const b = await h.get(`/api/minigame/douyin/login?code=${code}.2`);
      assert.equal(a.body.data.user.id, b.body.data.user.id);
      const res = await h.request("POST", "/api/auth/refresh", { refreshToken: a.body.data.refreshToken });
      assert.equal(res.status, 401);
      assert.equal(res.body.data.code, "refresh_token_invalid");
      assert.equal((await h.get("/api/users/me", bearer(b.body.data.token))).status, 200, "the live session survives");
    });

    it("rotates once when two refreshes race", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("race")}`);
      const results = await Promise.all(
        Array.from({ length: 5 }, () => h.request("POST", "/api/auth/refresh", { refreshToken: login.body.data.refreshToken })),
      );
      assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
      assert.equal(new Set(results.map((r) => r.body.data.refreshToken)).size, 1, "one rotation, one answer");
    });

    it("ends the first session when the same player logs in again", async () => {
      const code = unique("twice");
      const first = await h.get(`/api/minigame/wechat/login?jsCode=${code}.1`);
      const second = await h.get(`/api/minigame/wechat/login?jsCode=${code}.2`);
      const old = await h.get("/api/users/me", bearer(first.body.data.token));
      assert.equal(old.status, 401);
      assert.equal(old.body.data.code, "session_revoked");
      assert.equal((await h.get("/api/users/me", bearer(second.body.data.token))).status, 200);
    });

    it("lets a mini-game user set a first password from a fresh login, then use account login", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("pw")}`);
      const set = await h.request("PUT", "/api/users/me/password", { newPassword: "my new password" }, bearer(login.body.data.token));
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.ok(set.body.data.token);
      assert.equal((await h.get("/api/users/me", bearer(login.body.data.token))).status, 401, "the old session ended");
      const account = await h.request("POST", "/api/auth/login", { username: login.body.data.user.username, password: "my new password" });
      assert.equal(account.status, 200);
      assert.equal(account.body.data.user.id, login.body.data.user.id);
      // Now the current password is required.
      const missing = await h.request("PUT", "/api/users/me/password", { newPassword: "another password" }, bearer(account.body.data.token));
      assert.equal(missing.status, 400);
      const wrong = await h.request("PUT", "/api/users/me/password", { currentPassword: "nope nope", newPassword: "another password" }, bearer(account.body.data.token));
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.data.code, "invalid_credentials");
      const right = await h.request("PUT", "/api/users/me/password", { currentPassword: "my new password", newPassword: "another password" }, bearer(account.body.data.token));
      assert.equal(right.status, 200);
    });

    it("refuses a first password from a login older than ten minutes, even after refreshes", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("stale")}`);
      clock += 11 * 60_000;
      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken: login.body.data.refreshToken });
      assert.equal(refreshed.status, 200);
      const res = await h.request("PUT", "/api/users/me/password", { newPassword: "my new password" }, bearer(refreshed.body.data.token));
      assert.equal(res.status, 403);
      assert.equal(res.body.data.code, "recent_login_required");
    });

    it("answers a disabled user's token with 403 user_disabled", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("off")}`);
      await h.services.store.setStatus(login.body.data.user.id, 2);
      const res = await h.get("/api/users/me", bearer(login.body.data.token));
      assert.equal(res.status, 403);
      assert.equal(res.body.data.code, "user_disabled");
    });

    describe("input and credential errors", () => {
      it("rejects a taken username or email with 409 account_exists", async () => {
        const reg = await register();
        const sameName = await h.request("POST", "/api/auth/register", { username: reg.name, email: `${unique("o")}@example.com`, password: "password1" });
        const sameEmail = await h.request("POST", "/api/auth/register", { username: unique("other"), email: `${reg.name}@example.com`, password: "password1" });
        for (const res of [sameName, sameEmail]) {
          assert.equal(res.status, 409);
          assert.equal(res.body.data.code, "account_exists");
        }
      });

      const badRegistrations: Array<[string, Record<string, unknown>]> = [
        ["a short password", { username: "validname", email: "v@example.com", password: "short" }],
        ["a reserved mg_ username", { username: "mg_wechat_abc", email: "v@example.com", password: "password1" }],
        ["the placeholder email domain", { username: "validname", email: "x@players.invalid", password: "password1" }],
        ["a malformed email", { username: "validname", email: "not-an-email", password: "password1" }],
        ["a username with spaces", { username: "bad name", email: "v@example.com", password: "password1" }],
        ["a missing body", {}],
      ];
      for (const [label, body] of badRegistrations) {
        it(`rejects registration with ${label} as 400`, async () => {
          const res = await h.request("POST", "/api/auth/register", body);
          assert.equal(res.status, 400);
          assert.equal(res.body.data.code, "invalid_request");
        });
      }

      it("rejects login with both identifiers, and with neither, as 400", async () => {
        for (const body of [{ username: "a", email: "a@example.com", password: "x" }, { password: "x" }]) {
          const res = await h.request("POST", "/api/auth/login", body);
          assert.equal(res.status, 400);
        }
      });

      it("answers a wrong password and an unknown account the same way", async () => {
        const reg = await register();
        const wrong = await h.request("POST", "/api/auth/login", { username: reg.name, password: "wrong password" });
        const unknown = await h.request("POST", "/api/auth/login", { username: unique("ghost"), password: "wrong password" });
        for (const res of [wrong, unknown]) {
          assert.equal(res.status, 401);
          assert.equal(res.body.data.code, "invalid_credentials");
        }
        assert.equal(wrong.body.message, unknown.body.message);
      });

      it("validates profile changes", async () => {
        const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("prof")}`);
        for (const body of [
          { nickname: "x".repeat(33), version: 1 },
          { avatar: "http://insecure.example.com/a.png", version: 1 },
          { avatar: "https://x.example.com/" + "a".repeat(520), version: 1 },
          { nickname: "ok" },
          { nickname: "ok", version: 1, admin: true },
        ]) {
          const res = await h.request("PATCH", "/api/users/me", body, bearer(login.body.data.token));
          assert.equal(res.status, 400, JSON.stringify(body));
        }
      });

      it("answers protected routes without a token with 401 token_missing", async () => {
        for (const headers of [{}, { authorization: "Basic abc" }, { authorization: "Bearer" }] as Array<Record<string, string>>) {
          const res = await h.get("/api/users/me", headers);
          assert.equal(res.status, 401);
          assert.equal(res.body.data.code, "token_missing");
        }
      });

      it("answers garbage and expired tokens with token_invalid and token_expired", async () => {
        const garbage = await h.get("/api/users/me", bearer("not.a.jwt"));
        assert.equal(garbage.body.data.code, "token_invalid");
        const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("exp")}`);
        clock += 7201_000;
        const expired = await h.get("/api/users/me", bearer(login.body.data.token));
        assert.equal(expired.status, 401);
        assert.equal(expired.body.data.code, "token_expired");
      });
    });
  });
}

import assert from "node:assert/strict";
import type { User } from "../../src/core/user";
import { accessTokenKey, refreshTokenKey, SessionService } from "../../src/services/session-service";
import { sessionKeyKey } from "../../src/services/session-key-custody";
import { TokenSigner } from "../../src/services/token-signer";
import { newPlatformUser } from "../../src/services/user-factory";
import { rejectsWith } from "../support/app-error";
import { ACCESS_TTL_SEC, REFRESH_GRACE_SEC, unitSessions, type UnitSessions } from "../support/unit-sessions";

describe("SessionService (unit, fixed clock, MemoryCache, in-memory store)", () => {
  let t: UnitSessions;
  let user: User;

  async function newUser(): Promise<User> {
    return t.store.createUser(newPlatformUser("wechat", `openid-${Math.random()}`, "players.invalid", new Date(t.clock.ms)), []);
  }

  beforeEach(async () => {
    t = unitSessions();
    user = await newUser();
  });
  afterEach(() => t.cache.close());

  describe("startSession", () => {
    it("issues a pair that verifies, with the grade asked for and authTime = now", async () => {
      const issued = await t.sessions.startSession(user, "default", "anonymous");
      assert.equal(issued.expiresIn, ACCESS_TTL_SEC);
      const { auth, user: found } = await t.sessions.verifyAccessToken(issued.token);
      assert.equal(found.id, user.id);
      assert.equal(auth.userId, user.id);
      assert.equal(auth.sid, issued.sid);
      assert.equal(auth.grade, "anonymous");
      assert.equal(auth.authTime, Math.floor(t.clock.ms / 1000));
      assert.equal(auth.exp, auth.iat + ACCESS_TTL_SEC);
      assert.deepEqual(t.ended, [], "a first login ends no session, so nobody is told");
    });

    it("replaces the previous session: the old access token is refused with session_revoked, listeners hear new_login", async () => {
      const first = await t.sessions.startSession(user, "default", "full");
      const second = await t.sessions.startSession(user, "default", "full");
      assert.notEqual(second.sid, first.sid);
      await assert.rejects(t.sessions.verifyAccessToken(first.token), rejectsWith("session_revoked"));
      await assert.rejects(t.sessions.refresh(first.refreshToken), rejectsWith("refresh_token_invalid"));
      assert.equal((await t.sessions.verifyAccessToken(second.token)).auth.sid, second.sid);
      assert.deepEqual(t.ended, [{ userId: user.id, reason: "new_login" }]);
    });

    it("announces the given reason, and counts a session whose access token expired as live while its refresh token is stored", async () => {
      const first = await t.sessions.startSession(user, "default", "full");
      t.clock.advanceSec(ACCESS_TTL_SEC + 1);
      assert.equal(await t.cache.get(accessTokenKey(user.id, "default")), null, "the access token has left the cache");
      assert.equal(await t.sessions.liveSessionId(user.id, "default"), first.sid);
      await t.sessions.startSession(user, "default", "full", "password_change");
      assert.deepEqual(t.ended, [{ userId: user.id, reason: "password_change" }]);
    });

    it("keeps each user's session apart", async () => {
      const other = await newUser();
      const mine = await t.sessions.startSession(user, "default", "full");
      await t.sessions.startSession(other, "default", "full");
      assert.equal((await t.sessions.verifyAccessToken(mine.token)).auth.userId, user.id);
      assert.deepEqual(t.ended, []);
    });
  });

  describe("verifyAccessToken", () => {
    for (const missing of [undefined, null, ""]) {
      it(`answers token_missing for ${JSON.stringify(missing)}`, async () => {
        await assert.rejects(t.sessions.verifyAccessToken(missing), rejectsWith("token_missing"));
      });
    }

    it("answers token_invalid for garbage, a refresh token, and a token signed with another secret", async () => {
      const issued = await t.sessions.startSession(user, "default", "full");
      await assert.rejects(t.sessions.verifyAccessToken("not.a.jwt"), rejectsWith("token_invalid"));
      await assert.rejects(t.sessions.verifyAccessToken(issued.refreshToken), rejectsWith("token_invalid"));
      const foreign = new TokenSigner({
        secret: "another-secret-of-enough-length-0123456789",
        previousSecrets: [],
        accessTtlSec: ACCESS_TTL_SEC,
        refreshTtlSec: 3600,
        now: () => t.clock.ms,
      }).signAccess({ userId: user.id, app: "default", username: user.username, email: user.email, sid: issued.sid, grade: "full" });
      await assert.rejects(t.sessions.verifyAccessToken(foreign.token), rejectsWith("token_invalid"));
    });

    it("answers token_expired once the access TTL has passed on the clock", async () => {
      const issued = await t.sessions.startSession(user, "default", "full");
      t.clock.advanceSec(ACCESS_TTL_SEC - 1);
      await t.sessions.verifyAccessToken(issued.token);
      t.clock.advanceSec(1);
      await assert.rejects(t.sessions.verifyAccessToken(issued.token), rejectsWith("token_expired"));
    });

    it("answers session_revoked for a well-signed token that is not the stored one", async () => {
      const issued = await t.sessions.startSession(user, "default", "full");
      const twin = t.signer.signAccess({ userId: user.id, app: "default", username: user.username, email: user.email, sid: issued.sid, grade: "full" });
      await assert.rejects(t.sessions.verifyAccessToken(twin.token), rejectsWith("session_revoked"));
    });

    it("answers user_disabled for a disabled or deleted user, even while the token is stored", async () => {
      const issued = await t.sessions.startSession(user, "default", "full");
      await t.store.setStatus(user.id, 2);
      await assert.rejects(
        t.sessions.verifyAccessToken(issued.token),
        rejectsWith("user_disabled", (err) => assert.equal(err.data?.disabledUntil, undefined)),
      );
      await t.store.setStatus(user.id, 1);
      await t.sessions.verifyAccessToken(issued.token);
      await t.store.deleteUser(user.id);
      await assert.rejects(t.sessions.verifyAccessToken(issued.token), rejectsWith("user_disabled"));
    });

    it("refuses a banned user with the ban's end, and accepts the same token once that end has passed", async () => {
      const issued = await t.sessions.startSession(user, "default", "full");
      const until = new Date(t.clock.ms + 60_000).toISOString();
      await t.store.disableUser(user.id, { reason: "cheating", until }, new Date(t.clock.ms).toISOString());
      await assert.rejects(
        t.sessions.verifyAccessToken(issued.token),
        rejectsWith("user_disabled", (err) => {
          assert.equal(err.data?.disabledUntil, until);
          assert.ok(!JSON.stringify(err.data).includes("cheating"), "the operator's reason stays private");
        }),
      );
      t.clock.advanceSec(60);
      assert.equal((await t.sessions.verifyAccessToken(issued.token)).user.status, 1);
    });
  });

  describe("refresh", () => {
    it("rotates the pair: same sid, grade and authTime; the old access token is revoked and the new one verifies", async () => {
      const login = await t.sessions.startSession(user, "default", "anonymous");
      const loginSec = Math.floor(t.clock.ms / 1000);
      t.clock.advanceSec(600);
      const rotated = await t.sessions.refresh(login.refreshToken);
      assert.equal(rotated.sid, login.sid);
      assert.notEqual(rotated.token, login.token);
      assert.notEqual(rotated.refreshToken, login.refreshToken);
      await assert.rejects(t.sessions.verifyAccessToken(login.token), rejectsWith("session_revoked"));
      const { auth } = await t.sessions.verifyAccessToken(rotated.token);
      assert.equal(auth.sid, login.sid);
      assert.equal(auth.grade, "anonymous", "a refresh never upgrades an anonymous session");
      assert.equal(auth.authTime, loginSec, "authTime is the login's, not the refresh's");
      assert.equal(auth.iat, loginSec + 600);
      assert.deepEqual(t.ended, [], "a rotation ends no session");
    });

    it("carries the full grade across several refreshes", async () => {
      let pair = await t.sessions.startSession(user, "default", "full");
      for (let i = 0; i < 3; i++) {
        t.clock.advanceSec(60);
        pair = await t.sessions.refresh(pair.refreshToken);
      }
      assert.equal((await t.sessions.verifyAccessToken(pair.token)).auth.grade, "full");
    });

    it("answers a replay within the grace window with the very pair its rotation produced", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      const rotated = await t.sessions.refresh(login.refreshToken);
      t.clock.advanceSec(REFRESH_GRACE_SEC - 1);
      assert.deepEqual(await t.sessions.refresh(login.refreshToken), rotated);
      await t.sessions.verifyAccessToken(rotated.token);
      assert.deepEqual(t.ended, []);
    });

    it("answers two concurrent refreshes of one token with one pair", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      const [a, b] = await Promise.all([t.sessions.refresh(login.refreshToken), t.sessions.refresh(login.refreshToken)]);
      assert.deepEqual(a, b);
      assert.equal(await t.cache.get(refreshTokenKey(user.id, "default")), a.refreshToken);
    });

    it("after the grace window, a replay ends the session with refresh_token_reused and tells listeners", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      const rotated = await t.sessions.refresh(login.refreshToken);
      t.clock.advanceSec(REFRESH_GRACE_SEC);
      await assert.rejects(t.sessions.refresh(login.refreshToken), rejectsWith("refresh_token_reused"));
      await assert.rejects(t.sessions.verifyAccessToken(rotated.token), rejectsWith("session_revoked"));
      await assert.rejects(t.sessions.refresh(rotated.refreshToken), rejectsWith("refresh_token_invalid"));
      assert.equal(await t.sessions.liveSessionId(user.id, "default"), null);
      assert.deepEqual(t.ended, [{ userId: user.id, reason: "refresh_reuse" }]);
    });

    it("gives no grace answer once the pair it produced has itself been rotated: the replay ends the session", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      const second = await t.sessions.refresh(login.refreshToken);
      const third = await t.sessions.refresh(second.refreshToken);
      await assert.rejects(t.sessions.refresh(login.refreshToken), rejectsWith("refresh_token_reused"));
      await assert.rejects(t.sessions.verifyAccessToken(third.token), rejectsWith("session_revoked"));
    });

    it("with no grace window, the first replay ends the session", async () => {
      await t.cache.close();
      t = unitSessions({ refreshGraceSec: 0 });
      user = await newUser();
      const login = await t.sessions.startSession(user, "default", "full");
      await t.sessions.refresh(login.refreshToken);
      await assert.rejects(t.sessions.refresh(login.refreshToken), rejectsWith("refresh_token_reused"));
      assert.equal(await t.sessions.liveSessionId(user.id, "default"), null);
    });

    it("answers refresh_token_invalid for another session's token, without ending the live one", async () => {
      const old = await t.sessions.startSession(user, "default", "full");
      const current = await t.sessions.startSession(user, "default", "full");
      t.ended.length = 0;
      await assert.rejects(t.sessions.refresh(old.refreshToken), rejectsWith("refresh_token_invalid"));
      await t.sessions.verifyAccessToken(current.token);
      assert.deepEqual(t.ended, []);
    });

    it("answers refresh_token_invalid for an access token or garbage, and user_disabled for a disabled user", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      await assert.rejects(t.sessions.refresh(login.token), rejectsWith("refresh_token_invalid"));
      await assert.rejects(t.sessions.refresh("x.y.z"), rejectsWith("refresh_token_invalid"));
      await t.store.setStatus(user.id, 2);
      await assert.rejects(t.sessions.refresh(login.refreshToken), rejectsWith("user_disabled"));
    });
  });

  describe("logout and endSession", () => {
    it("logout ends the session it names: both tokens stop working, the session key goes, listeners hear logout", async () => {
      const login = await t.sessions.startSession(user, "default", "full");
      await t.cache.set(sessionKeyKey(user.id, "default"), "{}", 3600);
      await t.sessions.logout(user.id, "default", login.sid);
      await assert.rejects(t.sessions.verifyAccessToken(login.token), rejectsWith("session_revoked"));
      await assert.rejects(t.sessions.refresh(login.refreshToken), rejectsWith("refresh_token_invalid"));
      assert.equal(await t.cache.get(sessionKeyKey(user.id, "default")), null);
      assert.deepEqual(t.ended, [{ userId: user.id, reason: "logout" }]);
    });

    it("a late logout of a replaced session leaves the new session alone", async () => {
      const old = await t.sessions.startSession(user, "default", "full");
      const current = await t.sessions.startSession(user, "default", "full");
      t.ended.length = 0;
      await t.sessions.logout(user.id, "default", old.sid);
      await t.sessions.verifyAccessToken(current.token);
      assert.deepEqual(t.ended, []);
    });

    it("endSession announces its reason to every listener", async () => {
      const heard: string[] = [];
      t.sessions.onSessionChange((userId, reason) => heard.push(`${userId}:${reason}`));
      await t.sessions.startSession(user, "default", "full");
      await t.sessions.endSession(user.id, "operator");
      assert.deepEqual(t.ended, [{ userId: user.id, reason: "operator" }]);
      assert.deepEqual(heard, [`${user.id}:operator`]);
    });
  });

  describe("per app", () => {
    /** A second service over the same signer, cache and store that knows the "puzzle" game too. */
    const studio = () => new SessionService(t.signer, t.cache, t.store, { refreshGraceSec: 10, apps: ["default", "puzzle"] });

    it("keeps one session per app under its own keys: the default app's are the spec's, another app's add it", async () => {
      const sessions = studio();
      const inDefault = await sessions.startSession(user, "default", "full");
      const inPuzzle = await sessions.startSession(user, "puzzle", "full");
      assert.equal(accessTokenKey(user.id, "puzzle"), `${accessTokenKey(user.id, "default")}:puzzle`);
      assert.equal(await t.cache.get(accessTokenKey(user.id, "default")), inDefault.token);
      assert.equal(await t.cache.get(refreshTokenKey(user.id, "puzzle")), inPuzzle.refreshToken);
      assert.equal((await sessions.verifyAccessToken(inDefault.token)).auth.app, "default");
      assert.equal((await sessions.verifyAccessToken(inPuzzle.token)).auth.app, "puzzle");
      assert.deepEqual(await sessions.liveApps(user.id), ["default", "puzzle"]);
      await sessions.logout(user.id, "puzzle", inPuzzle.sid);
      await assert.rejects(sessions.verifyAccessToken(inPuzzle.token), rejectsWith("session_revoked"));
      await sessions.verifyAccessToken(inDefault.token);
      assert.deepEqual(await sessions.liveApps(user.id), ["default"]);
    });

    it("a token without an app claim (issued before apps) is the default app's", async () => {
      const sessions = studio();
      const issued = await sessions.startSession(user, "default", "full");
      // JSON drops an undefined claim: the token carries no `app`, as tokens from before apps do.
      const old = t.signer.signAccess({ userId: user.id, app: undefined as unknown as string, username: user.username, email: user.email, sid: issued.sid, grade: "full" });
      assert.equal("app" in (JSON.parse(Buffer.from(old.token.split(".")[1], "base64url").toString()) as object), false);
      await t.cache.set(accessTokenKey(user.id, "default"), old.token, 60);
      assert.equal((await sessions.verifyAccessToken(old.token)).auth.app, "default");
    });

    it("endSession (ban, erase, operator) ends every app's session and session key", async () => {
      const sessions = studio();
      const a = await sessions.startSession(user, "default", "full");
      const b = await sessions.startSession(user, "puzzle", "full");
      await t.cache.set(sessionKeyKey(user.id, "puzzle"), "{}", 3600);
      await sessions.endSession(user.id, "user_disabled");
      for (const token of [a.token, b.token]) await assert.rejects(sessions.verifyAccessToken(token), rejectsWith("session_revoked"));
      assert.equal(await t.cache.get(sessionKeyKey(user.id, "puzzle")), null);
      assert.deepEqual(await sessions.liveApps(user.id), []);
    });
  });
});

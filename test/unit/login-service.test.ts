import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { IdentityTakenError, type NewUser } from "../../src/core/ports/user-store";
import type { PlatformIdentityKey, User } from "../../src/core/user";
import { createLogger } from "../../src/logging/logger";
import { Metrics } from "../../src/observability/metrics";
import { douyinPlatform } from "../../src/platforms/douyin/douyin-platform";
import type { LoginCodes, PlatformClient, PlatformIdentity, PlatformLoginResult } from "../../src/platforms/platform";
import { wechatPlatform } from "../../src/platforms/wechat/wechat-platform";
import { LoginService } from "../../src/services/login-service";
import { PlatformApps } from "../../src/services/platform-apps";
import { SessionKeyCustody } from "../../src/services/session-key-custody";
import { accessTokenKey } from "../../src/services/session-service";
import { rejectsWith } from "../support/app-error";
import { counterValue } from "../support/metric-counter";
import { MemoryUserStore } from "../support/memory-user-store";
import { unitSessions, type UnitSessions } from "../support/unit-sessions";

/** A platform's code exchange, scripted per test: answers the identity given, or throws. */
class ScriptedPlatform {
  answer: Partial<PlatformIdentity> | Error = {};
  exchanged: LoginCodes[] = [];

  constructor(readonly name: string) {}

  client(): PlatformClient {
    return {
      platform: this.name,
      tokenApi: "ordinary",
      fetchAccessToken: () => Promise.reject(new Error("not used")),
      exchangeCode: async (codes): Promise<PlatformLoginResult> => {
        this.exchanged.push(codes);
        if (this.answer instanceof Error) throw this.answer;
        const identity: PlatformIdentity = { openid: "", anonymousOpenid: "", unionid: "", sessionKey: "", ...this.answer };
        return {
          identity,
          responseFields: {
            openid: identity.openid,
            unionid: identity.unionid,
            anonymous_openid: identity.anonymousOpenid,
            session_key: identity.sessionKey,
          },
        };
      },
    };
  }
}

describe("LoginService (unit, fixed clock, fake platforms, in-memory store)", () => {
  let t: UnitSessions;
  let wechat: ScriptedPlatform;
  let douyin: ScriptedPlatform;
  let custody: SessionKeyCustody;
  let metrics: Metrics;

  function loginService(options: { exposeSessionKey?: boolean; store?: MemoryUserStore } = {}): LoginService {
    const platforms = new PlatformApps([
      { app: "default", appId: "wx-app", definition: wechatPlatform, client: wechat.client() },
      { app: "default", appId: "tt-app", definition: douyinPlatform, client: douyin.client() },
    ]);
    return new LoginService(platforms, options.store ?? t.store, t.sessions, custody, createLogger({ level: "silent" }), {
      exposeSessionKey: options.exposeSessionKey ?? false,
      placeholderEmailDomain: "players.invalid",
      now: () => t.clock.ms,
      metrics,
    });
  }

  const identity = (platform: string, platformId: string): PlatformIdentityKey => ({ platform, platformId });

  beforeEach(() => {
    t = unitSessions();
    wechat = new ScriptedPlatform("wechat");
    douyin = new ScriptedPlatform("douyin");
    custody = new SessionKeyCustody(t.cache, 3600);
    metrics = new Metrics();
  });
  afterEach(() => t.cache.close());

  describe("find-or-create", () => {
    it("creates a placeholder user for a new openid, dated by the clock, with a full session that verifies", async () => {
      wechat.answer = { openid: "o-1", sessionKey: "sk-1" };
      const response = await loginService().loginWithPlatform("wechat", "default", { code: "c1" });
      assert.deepEqual(wechat.exchanged, [{ code: "c1" }]);
      assert.match(response.user.username, /^mg_wechat_[a-z0-9]{10}$/);
      assert.match(response.user.email, /^wechat_[a-z0-9]{10}@players\.invalid$/);
      assert.equal(response.user.openid, "o-1");
      assert.equal(response.user.createdAt, new Date(t.clock.ms).toISOString());
      assert.equal(response.openid, "o-1", "the platform's own fields are in the response");
      const { auth } = await t.sessions.verifyAccessToken(response.token);
      assert.equal(auth.userId, response.user.id);
      assert.equal(auth.grade, "full");
      assert.equal(await counterValue(metrics, "logins_total", { platform: "wechat", outcome: "ok" }), 1);
    });

    it("finds the same user on the next login and replaces its session", async () => {
      wechat.answer = { openid: "o-1" };
      const service = loginService();
      const first = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      const second = await service.loginWithPlatform("wechat", "default", { code: "c2" });
      assert.equal(second.user.id, first.user.id);
      await assert.rejects(t.sessions.verifyAccessToken(first.token), rejectsWith("session_revoked"));
      assert.deepEqual(t.ended, [{ userId: first.user.id, reason: "new_login" }]);
    });

    it("keys the user by openid before unionid, and by unionid when the platform gives no openid", async () => {
      const service = loginService();
      wechat.answer = { openid: "o-1", unionid: "u-1" };
      const byOpenid = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      assert.deepEqual(await t.store.listIdentities(byOpenid.user.id), [identity("wechat", "o-1")]);

      wechat.answer = { unionid: "u-2" };
      const byUnionid = await service.loginWithPlatform("wechat", "default", { code: "c2" });
      assert.equal(byUnionid.user.openid, "u-2");
      assert.deepEqual(await t.store.listIdentities(byUnionid.user.id), [identity("wechat", "u-2")]);
      assert.equal((await t.sessions.verifyAccessToken(byUnionid.token)).auth.grade, "full");
    });

    it("keeps platforms apart: the same id on two platforms is two users", async () => {
      wechat.answer = { openid: "same" };
      douyin.answer = { openid: "same" };
      const service = loginService();
      const a = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      const b = await service.loginWithPlatform("douyin", "default", { code: "c1" });
      assert.notEqual(a.user.id, b.user.id);
      assert.match(b.user.username, /^mg_douyin_/);
    });

    it("looks again when a concurrent login created the same player first, and returns that player", async () => {
      const racing = new (class extends MemoryUserStore {
        raced = false;
        override async createUser(draft: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
          if (!this.raced) {
            this.raced = true;
            await super.createUser({ ...draft, id: "winner", username: "mg_wechat_winner", email: "winner@players.invalid" }, identities);
            throw new IdentityTakenError(identities[0]);
          }
          return super.createUser(draft, identities);
        }
      })(() => t.clock.ms);
      wechat.answer = { openid: "o-1" };
      const response = await loginService({ store: racing }).loginWithPlatform("wechat", "default", { code: "c1" });
      assert.equal(response.user.id, "winner");
    });
  });

  describe("Douyin's anonymous id", () => {
    it("an anonymous login creates a user keyed by the anonymous openid, with an anonymous session", async () => {
      douyin.answer = { anonymousOpenid: "anon-1" };
      const response = await loginService().loginWithPlatform("douyin", "default", { anonymousCode: "a1" });
      assert.equal(response.user.openid, "anon-1");
      assert.equal((await t.sessions.verifyAccessToken(response.token)).auth.grade, "anonymous");
    });

    it("both codes move the anonymous user to the openid: same user, both ids lead to it, a full session", async () => {
      const service = loginService();
      douyin.answer = { anonymousOpenid: "anon-1" };
      const anonymous = await service.loginWithPlatform("douyin", "default", { anonymousCode: "a1" });

      douyin.answer = { openid: "o-1", anonymousOpenid: "anon-1", sessionKey: "sk" };
      const both = await service.loginWithPlatform("douyin", "default", { code: "c1", anonymousCode: "a2" });
      assert.equal(both.user.id, anonymous.user.id, "progress is kept: no second user");
      assert.equal(both.user.openid, "o-1");
      assert.equal(both.user.version, anonymous.user.version + 1);
      assert.equal((await t.sessions.verifyAccessToken(both.token)).auth.grade, "full");
      assert.equal((await t.store.findByIdentity(identity("douyin", "anon-1")))?.id, anonymous.user.id);

      douyin.answer = { openid: "o-1" };
      assert.equal((await service.loginWithPlatform("douyin", "default", { code: "c2" })).user.id, anonymous.user.id);
      douyin.answer = { anonymousOpenid: "anon-1" };
      assert.equal((await service.loginWithPlatform("douyin", "default", { anonymousCode: "a3" })).user.id, anonymous.user.id);
    });

    it("keys by Douyin's order: openid, then anonymous openid, then unionid", async () => {
      const service = loginService();
      douyin.answer = { anonymousOpenid: "anon-1", unionid: "u-1" };
      const byAnonymous = await service.loginWithPlatform("douyin", "default", { anonymousCode: "a1" });
      assert.equal(byAnonymous.user.openid, "anon-1");
      assert.deepEqual(await t.store.listIdentities(byAnonymous.user.id), [identity("douyin", "anon-1")]);
      assert.equal((await t.sessions.verifyAccessToken(byAnonymous.token)).auth.grade, "anonymous");

      douyin.answer = { unionid: "u-2" };
      const byUnionid = await service.loginWithPlatform("douyin", "default", { code: "c1" });
      assert.equal(byUnionid.user.openid, "u-2");
      assert.equal((await t.sessions.verifyAccessToken(byUnionid.token)).auth.grade, "full");
    });

    it("both codes for a new player create one user holding both ids", async () => {
      douyin.answer = { openid: "o-1", anonymousOpenid: "anon-1" };
      const response = await loginService().loginWithPlatform("douyin", "default", { code: "c1", anonymousCode: "a1" });
      assert.deepEqual(await t.store.listIdentities(response.user.id), [identity("douyin", "o-1"), identity("douyin", "anon-1")]);
    });

    it("links a free anonymous id to the openid's user, but never takes one that belongs to another user", async () => {
      const service = loginService();
      douyin.answer = { openid: "o-1" };
      const known = await service.loginWithPlatform("douyin", "default", { code: "c1" });
      douyin.answer = { openid: "o-1", anonymousOpenid: "anon-free" };
      assert.equal((await service.loginWithPlatform("douyin", "default", { code: "c2", anonymousCode: "a1" })).user.id, known.user.id);
      assert.equal((await t.store.findByIdentity(identity("douyin", "anon-free")))?.id, known.user.id);

      douyin.answer = { anonymousOpenid: "anon-other" };
      const other = await service.loginWithPlatform("douyin", "default", { anonymousCode: "a2" });
      douyin.answer = { openid: "o-1", anonymousOpenid: "anon-other" };
      assert.equal((await service.loginWithPlatform("douyin", "default", { code: "c3", anonymousCode: "a3" })).user.id, known.user.id);
      assert.equal((await t.store.findByIdentity(identity("douyin", "anon-other")))?.id, other.user.id, "merging is the game's call");
    });
  });

  describe("refusals", () => {
    it("refuses a disabled user with user_disabled and the ban's end, issuing no token and keeping no session key", async () => {
      const service = loginService();
      wechat.answer = { openid: "o-1", sessionKey: "sk-old" };
      const first = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      const until = new Date(t.clock.ms + 3_600_000).toISOString();
      await t.store.disableUser(first.user.id, { reason: "abuse", until }, new Date(t.clock.ms).toISOString());
      const storedToken = await t.cache.get(accessTokenKey(first.user.id, "default"));

      wechat.answer = { openid: "o-1", sessionKey: "sk-new" };
      await assert.rejects(
        service.loginWithPlatform("wechat", "default", { code: "c2" }),
        rejectsWith("user_disabled", (err) => {
          assert.equal(err.data?.disabledUntil, until);
          assert.equal(err.data?.token, "");
          assert.equal(err.data?.user, null);
        }),
      );
      assert.equal(await t.cache.get(accessTokenKey(first.user.id, "default")), storedToken, "no session was started");
      assert.equal((await custody.read(first.user.id, "default"))?.sessionKey, "sk-old");
      assert.deepEqual(t.ended, []);
      assert.equal(await counterValue(metrics, "logins_total", { platform: "wechat", outcome: "user_disabled" }), 1);

      t.clock.advanceSec(3600);
      assert.equal((await service.loginWithPlatform("wechat", "default", { code: "c3" })).user.id, first.user.id, "the ban has ended");
    });

    it("answers platform_identity_missing when no field of the platform's key order is set", async () => {
      wechat.answer = { anonymousOpenid: "anon-only" }; // not a WeChat key
      await assert.rejects(
        loginService().loginWithPlatform("wechat", "default", { code: "c1" }),
        rejectsWith("platform_identity_missing", (err) => {
          assert.equal(err.data?.platform, "wechat");
          assert.equal(err.data?.token, "");
          assert.equal(err.data?.user, null);
        }),
      );
      assert.ok(!t.store.calls.includes("createUser"));
    });

    it("passes a platform's AppError through with its code and data, plus the empty session fields", async () => {
      wechat.answer = new AppError("platform_code_invalid", { data: { platform: "wechat", errcode: 40029 } });
      await assert.rejects(
        loginService().loginWithPlatform("wechat", "default", { code: "used" }),
        rejectsWith("platform_code_invalid", (err) => {
          assert.equal(err.status, 401);
          assert.deepEqual(err.data, { platform: "wechat", errcode: 40029, token: "", user: null });
        }),
      );
      wechat.answer = new AppError("platform_rate_limited", { headers: { "Retry-After": "5" } });
      await assert.rejects(
        loginService().loginWithPlatform("wechat", "default", { code: "c" }),
        rejectsWith("platform_rate_limited", (err) => assert.deepEqual(err.headers, { "Retry-After": "5" })),
      );
      assert.equal(await counterValue(metrics, "logins_total", { platform: "wechat", outcome: "platform_code_invalid" }), 1);
      assert.deepEqual(t.store.calls, [], "the store is not asked after a failed exchange");
    });

    it("lets a non-AppError failure through unchanged", async () => {
      const bug = new TypeError("boom");
      wechat.answer = bug;
      await assert.rejects(loginService().loginWithPlatform("wechat", "default", { code: "c" }), (err) => err === bug);
      assert.equal(await counterValue(metrics, "logins_total", { platform: "wechat", outcome: "error" }), 1);
    });

    it("answers unknown_platform for a platform it was not given", async () => {
      await assert.rejects(loginService().loginWithPlatform("qq", "default", { code: "c" }), rejectsWith("unknown_platform"));
    });
  });

  describe("session-key custody", () => {
    it("keeps the platform session key for the user, and shows it in the response only when configured", async () => {
      wechat.answer = { openid: "o-1", sessionKey: "sk-1" };
      const hidden = await loginService().loginWithPlatform("wechat", "default", { code: "c1" });
      assert.equal("session_key" in hidden, false);
      assert.deepEqual(await custody.read(hidden.user.id, "default"), { platform: "wechat", openid: "o-1", sessionKey: "sk-1", keptAt: t.clock.ms });

      wechat.answer = { openid: "o-1", sessionKey: "sk-2" };
      const shown = await loginService({ exposeSessionKey: true }).loginWithPlatform("wechat", "default", { code: "c2" });
      assert.equal(shown.session_key, "sk-2");
      assert.equal((await custody.read(shown.user.id, "default"))?.sessionKey, "sk-2", "a login replaces the kept key");
    });

    it("a login without a session key forgets the one an earlier login left", async () => {
      const service = loginService();
      douyin.answer = { openid: "o-1", anonymousOpenid: "anon-1", sessionKey: "sk-1" };
      const first = await service.loginWithPlatform("douyin", "default", { code: "c1", anonymousCode: "a1" });
      assert.equal((await custody.read(first.user.id, "default"))?.sessionKey, "sk-1");
      douyin.answer = { anonymousOpenid: "anon-1" };
      await service.loginWithPlatform("douyin", "default", { anonymousCode: "a2" });
      assert.equal(await custody.read(first.user.id, "default"), undefined);
    });
  });

  describe("apps", () => {
    let puzzle: ScriptedPlatform;
    beforeEach(() => {
      puzzle = new ScriptedPlatform("wechat");
    });

    /** The default app on WeChat and Douyin, and the "puzzle" game on WeChat. */
    function studioService(options: { linkAppsByUnionid?: boolean } = {}): LoginService {
      const apps = new PlatformApps(
        [
          { app: "default", appId: "wx-app", definition: wechatPlatform, client: wechat.client() },
          { app: "default", appId: "tt-app", definition: douyinPlatform, client: douyin.client() },
          { app: "puzzle", appId: "wx-puzzle", definition: wechatPlatform, client: puzzle.client() },
        ],
        ["default", "puzzle"],
      );
      return new LoginService(apps, t.store, t.sessions, custody, createLogger({ level: "silent" }), {
        exposeSessionKey: false,
        placeholderEmailDomain: "players.invalid",
        now: () => t.clock.ms,
        metrics,
        linkAppsByUnionid: options.linkAppsByUnionid,
      });
    }
    const namespaces = async (userId: string) => (await t.store.listIdentities(userId)).map((i) => `${i.platform}:${i.platformId}`).sort();

    it("one app per platform stores and finds exactly what it did before apps: no unionid identity", async () => {
      wechat.answer = { openid: "o-1", unionid: "u-1" };
      const first = await loginService().loginWithPlatform("wechat", "default", { code: "c1" });
      assert.deepEqual(await namespaces(first.user.id), ["wechat:o-1"]);
    });

    it("a player arriving in a second game with a linked unionid is the same user, found by that game's openid from then on", async () => {
      const service = studioService();
      wechat.answer = { openid: "o-default", unionid: "u-1", sessionKey: "sk-a" };
      const inDefault = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      puzzle.answer = { openid: "o-puzzle", unionid: "u-1", sessionKey: "sk-b" };
      const inPuzzle = await service.loginWithPlatform("wechat", "puzzle", { code: "c2" });
      assert.equal(inPuzzle.user.id, inDefault.user.id);
      assert.deepEqual(await namespaces(inDefault.user.id), ["wechat:o-default", "wechat:u-1", "wechat@wx-puzzle:o-puzzle"]);
      assert.equal((await t.sessions.verifyAccessToken(inPuzzle.token)).auth.app, "puzzle");
      assert.equal((await t.sessions.verifyAccessToken(inDefault.token)).auth.app, "default", "both sessions live");
      assert.deepEqual(await custody.read(inPuzzle.user.id, "puzzle"), { platform: "wechat", openid: "o-puzzle", sessionKey: "sk-b", keptAt: t.clock.ms });
      assert.equal(inPuzzle.user.openid, "o-puzzle", "the login shows this game's openid");
      assert.equal((await custody.read(inPuzzle.user.id, "default"))?.sessionKey, "sk-a", "each game keeps its own session key");
      assert.equal(await counterValue(metrics, "logins_total", { platform: "wechat", app: "puzzle", outcome: "ok" }), 1);
      puzzle.answer = { openid: "o-puzzle", unionid: "u-1" };
      assert.equal((await service.loginWithPlatform("wechat", "puzzle", { code: "c3" })).user.id, inDefault.user.id);
    });

    it("with LINK_APPS_BY_UNIONID=false each game has its own users, and a unionid key stays in its game", async () => {
      const service = studioService({ linkAppsByUnionid: false });
      wechat.answer = { openid: "o-default", unionid: "u-2" };
      const inDefault = await service.loginWithPlatform("wechat", "default", { code: "c1" });
      puzzle.answer = { openid: "o-puzzle", unionid: "u-2" };
      const inPuzzle = await service.loginWithPlatform("wechat", "puzzle", { code: "c2" });
      assert.notEqual(inPuzzle.user.id, inDefault.user.id);
      assert.deepEqual(await namespaces(inPuzzle.user.id), ["wechat@wx-puzzle:o-puzzle"]);
      puzzle.answer = { unionid: "u-2" }; // no openid: the unionid is the key, in the puzzle game's namespace
      const byUnion = await service.loginWithPlatform("wechat", "puzzle", { code: "c3" });
      assert.notEqual(byUnion.user.id, inDefault.user.id);
      assert.deepEqual(await namespaces(byUnion.user.id), ["wechat@wx-puzzle:u-2"]);
    });

    it("refuses an app that is not on the platform before calling anything", async () => {
      await assert.rejects(studioService().loginWithPlatform("douyin", "puzzle", { code: "c" }), rejectsWith("unknown_app"));
      assert.deepEqual(douyin.exchanged, []);
    });
  });
});

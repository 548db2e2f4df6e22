/**
 * Account deletion by the player and operators' disables and bans, against the booted app on
 * each backend: real HTTP and a real Colyseus client.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { SESSION_ENDED_CLOSE_CODE } from "../../rooms/session-guard";
import { buildUserExport } from "../../src/services/user-export";
import { AdminService } from "../../src/services/admin-service";
import { accessTokenKey, refreshTokenKey } from "../../src/services/session-service";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const HOUR = 3600_000;

function waitForLeave(room: Room, ms = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still connected after ${ms} ms`)), ms);
    room.onLeave((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

for (const backend of backends) {
  describe(`account deletion and bans — ${backend.name}`, () => {
    let h: Harness;
    let release: () => Promise<void>;
    let clock = Date.now();
    let admin: AdminService;
    const rooms: Room[] = [];

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => clock } });
      const { store, sessions, payments, economy } = h.services;
      admin = new AdminService(store, sessions, h.services.accounts, ["wechat", "douyin"], h.services.logger, buildUserExport({ store, sessions, ledger: async () => payments.ledger, economy: async () => economy.store, leaderboardRecords: async () => [] }));
    });
    afterEach(async () => {
      for (const room of rooms.splice(0)) if (room.connection.isOpen) await room.leave().catch(() => undefined);
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function wechatLogin(code: string) {
      return h.get(`/api/minigame/wechat/login?jsCode=${code}`);
    }
    async function loggedIn(code = unique("p")) {
      const res = await wechatLogin(code);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as { token: string; refreshToken: string; user: { id: string; username: string; openid: string; version: number } };
    }

    describe("DELETE /api/users/me", () => {
      it("erases the user, ends its session, kicks its room client, and a later login makes a new user", async () => {
        const player = unique("gone");
        const a = await loggedIn(`${player}.1`);
        const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: a.token });
        rooms.push(room);
        const left = waitForLeave(room);

        const res = await h.request("DELETE", "/api/users/me", undefined, bearer(a.token));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body, { success: true, message: "Account deleted", data: null });
        assert.equal(await left, SESSION_ENDED_CLOSE_CODE);

        assert.equal(await h.services.store.findById(a.user.id), null);
        assert.equal(await h.services.store.findByIdentity({ platform: "wechat", platformId: a.user.openid }), null);
        assert.equal(await h.services.cache.get(accessTokenKey(a.user.id, "default")), null);
        assert.equal(await h.services.cache.get(refreshTokenKey(a.user.id, "default")), null);
        assert.equal((await h.get("/api/users/me", bearer(a.token))).status, 403);
        assert.equal((await h.request("POST", "/api/auth/refresh", { refreshToken: a.refreshToken })).status, 403);

        const again = await loggedIn(`${player}.2`);
        assert.equal(again.user.openid, a.user.openid);
        assert.notEqual(again.user.id, a.user.id, "a new user");
        assert.equal(again.user.version, 1);
      });

      it("needs a recent login: 403 recent_login_required, and nothing is deleted", async () => {
        const a = await loggedIn();
        clock += h.config.recentLoginSec * 1000 + 1000;
        try {
          const res = await h.request("DELETE", "/api/users/me", undefined, bearer(a.token));
          assert.equal(res.status, 403);
          assert.equal(res.body.data.code, "recent_login_required");
          assert.ok(await h.services.store.findById(a.user.id));
          assert.equal((await h.get("/api/users/me", bearer(a.token))).status, 200);
        } finally {
          clock -= h.config.recentLoginSec * 1000 + 1000;
        }
      });

      it("lets an anonymous-grade session erase only an account whose one way in is that anonymous id", async () => {
        const device = unique("dev");
        const player = await h.get(`/api/minigame/douyin/login?code=${unique("pl")}.1&anonymous_code=${device}.1`);
        assert.equal(player.status, 200);
        const shared = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.2`);
        const refused = await h.request("DELETE", "/api/users/me", undefined, bearer(shared.body.data.token));
        assert.deepEqual([refused.status, refused.body.data.code], [403, "login_grade_insufficient"]);
        assert.ok(await h.services.store.findById(player.body.data.user.id), "the player's account is still there");

        const lonely = await h.get(`/api/minigame/douyin/login?anonymous_code=${unique("solo")}.1`);
        const erased = await h.request("DELETE", "/api/users/me", undefined, bearer(lonely.body.data.token));
        assert.equal(erased.status, 200, JSON.stringify(erased.body));
        assert.equal(await h.services.store.findById(lonely.body.data.user.id), null);
      });

      it("refuses without a token", async () => {
        const res = await h.request("DELETE", "/api/users/me");
        assert.deepEqual([res.status, res.body.data.code], [401, "token_missing"]);
      });
    });

    describe("disabled and banned users", () => {
      it("refuses a disabled user's mini-game login with 403 user_disabled and no token, then lets it in when enabled", async () => {
        const player = unique("bad");
        const a = await loggedIn(`${player}.1`);
        const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: a.token });
        rooms.push(room);
        const left = waitForLeave(room);
        await admin.disable(a.user.id, { reason: "cheating", until: null }, "tester");
        assert.equal(await left, SESSION_ENDED_CLOSE_CODE);

        const refused = await wechatLogin(`${player}.2`);
        assert.equal(refused.status, 403);
        assert.equal(refused.body.data.code, "user_disabled");
        assert.equal(refused.body.data.token, "");
        assert.equal(refused.body.data.user, null);
        assert.equal("disabledUntil" in refused.body.data, false, "indefinite: no end");
        assert.equal(await h.services.cache.get(accessTokenKey(a.user.id, "default")), null, "no session was started");
        const me = await h.get("/api/users/me", bearer(a.token));
        assert.deepEqual([me.status, me.body.data.code], [403, "user_disabled"]);

        await admin.enable(a.user.id, "tester");
        assert.equal((await wechatLogin(`${player}.3`)).status, 200);
      });

      it("says when a ban ends, on login, on a route and at password login, and lifts it by itself when the time passes", async () => {
        const player = unique("ban");
        const a = await loggedIn(`${player}.1`);
        const first = await h.request("PUT", "/api/users/me/password", { newPassword: "correct horse" }, bearer(a.token));
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const until = new Date(clock + 2 * HOUR).toISOString();
        await admin.disable(`wechat:${a.user.openid}`, { reason: "spam", until }, "tester");

        const login = await wechatLogin(`${player}.2`);
        assert.deepEqual([login.status, login.body.data.code, login.body.data.disabledUntil], [403, "user_disabled", until]);
        const byPassword = await h.request("POST", "/api/auth/login", { username: a.user.username, password: "correct horse" });
        assert.deepEqual([byPassword.status, byPassword.body.data.disabledUntil], [403, until]);
        const me = await h.get("/api/users/me", bearer(first.body.data.token));
        assert.deepEqual([me.status, me.body.data.disabledUntil], [403, until]);

        clock += 2 * HOUR;
        try {
          const lifted = await wechatLogin(`${player}.3`);
          assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
          assert.equal(lifted.body.data.user.status, 1);
          assert.equal((await h.get("/api/users/me", bearer(lifted.body.data.token))).status, 200);
        } finally {
          clock -= 2 * HOUR;
        }
      });

      it("does not block for a ban whose end is already past", async () => {
        const a = await loggedIn();
        await admin.disable(a.user.username, { reason: "old case", until: new Date(clock - 1000).toISOString() }, "tester");
        assert.equal((await h.get("/api/users/me", bearer(a.token))).status, 200, "the session was not ended either");
        assert.equal((await admin.find(a.user.id, "tester")).restriction, null);
      });

      it("refuses a banned user's room join", async () => {
        const a = await loggedIn();
        await admin.disable(a.user.id, { reason: "x", until: new Date(clock + HOUR).toISOString() }, "tester");
        await assert.rejects(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: a.token }), (err: Error) => {
          assert.equal(err.message, "user_disabled");
          return true;
        });
      });
    });

    it("writes one audit line per admin action, naming who, what and which user", async () => {
      const a = await loggedIn();
      const before = h.logs.length;
      await admin.find(a.user.id, "ops-alice");
      await admin.endSessions(a.user.id, "ops-alice");
      const audit = h.logs
        .slice(before)
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.event === "admin_action");
      assert.deepEqual(
        audit.map((e) => [e.by, e.action, e.userId]),
        [
          ["ops-alice", "find", a.user.id],
          ["ops-alice", "end-sessions", a.user.id],
        ],
      );
      assert.equal((await h.get("/api/users/me", bearer(a.token))).status, 401, "end-sessions ended it");
    });
  });
}

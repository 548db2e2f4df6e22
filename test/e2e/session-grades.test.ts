/**
 * Session grades over real HTTP: a Douyin login by anonymous id alone is anonymous grade, and an
 * anonymous-grade session cannot add a password (the shared-device takeover), even after refresh.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { requireGradeToErase } from "../../src/services/session-grade";
import { AppError } from "../../src/core/errors";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const name = (label: string) => `${label}${crypto.randomBytes(4).toString("hex")}`;
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8"));

for (const backend of backends) {
  describe(`session grades — ${backend.name}`, () => {
    const h = useHarness(backend);

    it("refuses a password from an anonymous login on a device the player used with their code, also after refresh", async () => {
      const device = name("dev");
      const player = name("pl");
      const owner = await h.get(`/api/minigame/douyin/login?code=${player}.1&anonymous_code=${device}.1`);
      assert.equal(owner.status, 200);
      assert.equal(claimsOf(owner.body.data.token).grade, "full");

      const intruder = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.2`);
      assert.equal(intruder.status, 200);
      assert.equal(intruder.body.data.user.id, owner.body.data.user.id, "the anonymous id still leads to the player's progress");
      assert.equal(claimsOf(intruder.body.data.token).grade, "anonymous");
      assert.equal(claimsOf(intruder.body.data.refreshToken).grade, "anonymous");

      const refused = await h.request("PUT", "/api/users/me/password", { newPassword: "taken over!" }, bearer(intruder.body.data.token));
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.data.code, "login_grade_insufficient");

      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken: intruder.body.data.refreshToken });
      assert.equal(refreshed.status, 200);
      assert.equal(claimsOf(refreshed.body.data.token).grade, "anonymous", "a refresh keeps the grade");
      const again = await h.request("PUT", "/api/users/me/password", { newPassword: "taken over!" }, bearer(refreshed.body.data.token));
      assert.equal(again.body.data.code, "login_grade_insufficient");

      // Nobody can log in by username with a password the intruder chose.
      const login = await h.request("POST", "/api/auth/login", { username: owner.body.data.user.username, password: "taken over!" });
      assert.equal(login.status, 401);

      // The player, logging in with their code, is full grade again and may set it.
      const back = await h.get(`/api/minigame/douyin/login?code=${player}.2`);
      const set = await h.request("PUT", "/api/users/me/password", { newPassword: "mine for sure" }, bearer(back.body.data.token));
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(claimsOf(set.body.data.token).grade, "full");
    });

    it("grades WeChat and password logins full", async () => {
      const wx = await h.get(`/api/minigame/wechat/login?jsCode=${name("wx")}.1`);
      assert.equal(claimsOf(wx.body.data.token).grade, "full");
      const username = name("gr");
      const reg = await h.request("POST", "/api/auth/register", { username, email: `${username}@example.com`, password: "correct horse" });
      assert.equal(claimsOf(reg.body.data.token).grade, "full");
      const login = await h.request("POST", "/api/auth/login", { username, password: "correct horse" });
      assert.equal(claimsOf(login.body.data.token).grade, "full");
    });

    it("lets an anonymous-grade session erase only an account whose one way in is that anonymous id", async () => {
      const { sessions, store } = h.services;
      const lonely = await h.get(`/api/minigame/douyin/login?anonymous_code=${name("solo")}.1`);
      const lonelyAuth = (await sessions.verifyAccessToken(lonely.body.data.token)).auth;
      assert.equal(lonelyAuth.grade, "anonymous");
      await requireGradeToErase(lonelyAuth, store);

      const device = name("dev");
      await h.get(`/api/minigame/douyin/login?code=${name("pl")}.1&anonymous_code=${device}.1`);
      const shared = await h.get(`/api/minigame/douyin/login?anonymous_code=${device}.2`);
      const sharedAuth = (await sessions.verifyAccessToken(shared.body.data.token)).auth;
      await assert.rejects(requireGradeToErase(sharedAuth, store), (err: unknown) => err instanceof AppError && err.code === "login_grade_insufficient");
    });
  });
}

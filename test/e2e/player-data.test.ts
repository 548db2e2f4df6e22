/**
 * Session-key custody and the player-data routes, end to end: the real app, the simulator over
 * HTTP, and each backend of the matrix.
 */
import assert from "node:assert/strict";
import { sessionKeyKey } from "../../src/services/session-key-custody";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";

let seq = 0;
const fresh = (label: string) => `${label}${Date.now().toString(36)}d${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

for (const backend of backends) {
  describe(`player data — ${backend.name}`, () => {
    let h: Harness;
    let release: () => Promise<void>;
    let backendEnv: Record<string, string>;

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      backendEnv = prepared.env;
      h = await startHarness({ env: prepared.env });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function wechatLogin(code: string) {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as { token: string; session_key: string; user: { id: string }; openid: string };
    }

    async function sealAt(sessionKey: string, data: Record<string, unknown>, watermarkAppId?: string) {
      const res = await fetch(`${h.simulator.url}/__simulator/encrypt`, {
        method: "POST",
        body: JSON.stringify({ session_key: sessionKey, data, ...(watermarkAppId ? { watermark_appid: watermarkAppId } : {}) }),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { encryptedData: string; iv: string };
    }

    const decrypt = (platform: string, token: string, body: unknown) => h.request("POST", `/api/minigame/${platform}/decrypt`, body, bearer(token));

    it("a player logs in, sends data encrypted under their session key and gets it back", async () => {
      const login = await wechatLogin(fresh("crypt"));
      const sealed = await sealAt(login.session_key, { nickName: "Band", score: 7 });
      const res = await decrypt("wechat", login.token, sealed);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.success, true);
      assert.equal(res.body.data.nickName, "Band");
      assert.equal(res.body.data.score, 7);
      assert.equal(res.body.data.watermark.appid, h.config.platforms.wechat.appId);
    });

    it("the same works on Douyin, whose key the server keeps even when the response hides it", async () => {
      const hidden = await startHarness({ env: { ...backendEnv, EXPOSE_SESSION_KEY: "false" }, simulator: h.simulator });
      try {
        const player = fresh("dy");
        const login = await hidden.get(`/api/minigame/douyin/login?code=${player}`);
        assert.equal(login.status, 200);
        assert.equal(login.body.data.session_key, undefined);
        // The kept key is reachable only on the server: read it the way a test may, from the cache.
        const kept = JSON.parse((await hidden.services.cache.get(sessionKeyKey(login.body.data.user.id, "default")))!);
        assert.equal(kept.platform, "douyin");
        assert.equal(kept.openid, login.body.data.openid);
        const sealed = await sealAt(kept.sessionKey, { hello: "douyin" });
        const res = await hidden.request("POST", "/api/minigame/douyin/decrypt", sealed, bearer(login.body.data.token));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data.hello, "douyin");
        assert.equal(res.body.data.watermark.appid, hidden.config.platforms.douyin.appId);
      } finally {
        await hidden.close();
      }
    });

    it("stale key, missing key, foreign appid and junk input get their distinct answers", async () => {
      const player = fresh("answers");
      const first = await wechatLogin(`${player}.1`);
      const sealedUnderFirst = await sealAt(first.session_key, { n: 1 });

      const junk = await decrypt("wechat", first.token, { encryptedData: "%%%not base64%%%", iv: "short" });
      assert.equal(junk.status, 400);
      assert.equal(junk.body.data.code, "invalid_request");
      assert.deepEqual(junk.body.data.fields.map((f: any) => f.field), ["encryptedData", "iv"]);
      assert.equal((await decrypt("wechat", first.token, { iv: sealedUnderFirst.iv })).body.data.code, "invalid_request");

      const foreign = await decrypt("wechat", first.token, await sealAt(first.session_key, { n: 2 }, "wx_someone_else"));
      assert.equal(foreign.status, 422);
      assert.equal(foreign.body.data.code, "watermark_mismatch");

      // The player calls login again: the server now keeps the new key, and old data no longer fits.
      const second = await wechatLogin(`${player}.2`);
      assert.notEqual(second.session_key, first.session_key);
      const stale = await decrypt("wechat", second.token, sealedUnderFirst);
      assert.equal(stale.status, 409);
      assert.equal(stale.body.data.code, "session_key_stale");
      assert.equal((await decrypt("wechat", second.token, await sealAt(second.session_key, { n: 3 }))).status, 200);

      // A player without a kept key: an account user, or a player whose key went with the logout.
      const name = fresh("acct");
      const account = await h.request("POST", "/api/auth/register", { username: name, email: `${name}@example.com`, password: "correct horse" });
      const missing = await decrypt("wechat", account.body.data.token, sealedUnderFirst);
      assert.equal(missing.status, 409);
      assert.equal(missing.body.data.code, "session_key_missing");
      // A Douyin route for a WeChat player's key: the key is kept per platform.
      assert.equal((await decrypt("douyin", second.token, sealedUnderFirst)).body.data.code, "session_key_missing");
    });

    it("keeps the key per user, replaces it at each login and removes it at logout and erase; it never reaches the logs", async () => {
      const player = fresh("custody");
      const first = await wechatLogin(`${player}.1`);
      const key = sessionKeyKey(first.user.id, "default");
      assert.equal(JSON.parse((await h.services.cache.get(key))!).sessionKey, first.session_key);
      const second = await wechatLogin(`${player}.2`);
      assert.equal(JSON.parse((await h.services.cache.get(key))!).sessionKey, second.session_key);

      const sealed = await sealAt(second.session_key, { n: 1 });
      assert.equal((await h.request("POST", "/api/auth/logout", undefined, bearer(second.token))).status, 200);
      assert.equal(await h.services.cache.get(key), null);
      const third = await wechatLogin(`${player}.3`);
      assert.equal((await decrypt("wechat", third.token, sealed)).body.data.code, "session_key_stale");

      // Erasing the account removes the key with everything else.
      assert.ok(await h.services.cache.get(key));
      assert.equal((await h.request("DELETE", "/api/users/me", undefined, bearer(third.token))).status, 200);
      assert.equal(await h.services.cache.get(key), null);

      const logs = h.logs.join("");
      for (const secret of [first.session_key, second.session_key, third.session_key]) assert.ok(!logs.includes(secret), "a session key reached the logs");
    });

    it("verifies a rawData signature in constant time: a match is valid, a mismatch is valid: false", async () => {
      const login = await wechatLogin(fresh("sig"));
      const rawData = JSON.stringify({ nickName: "Band", gender: 1 });
      const { createHash } = await import("node:crypto");
      const signature = createHash("sha1").update(rawData + login.session_key).digest("hex");
      const verify = (body: unknown) => h.request("POST", "/api/minigame/wechat/signature/verify", body, bearer(login.token));
      const good = await verify({ rawData, signature });
      assert.equal(good.status, 200);
      assert.deepEqual(good.body.data, { valid: true });
      assert.deepEqual((await verify({ rawData: rawData + " ", signature })).body.data, { valid: false });
      assert.deepEqual((await verify({ rawData, signature: "0".repeat(40) })).body.data, { valid: false });
      assert.equal((await verify({ rawData })).status, 400);
    });

    it("asks the platform whether the kept key is still valid", async () => {
      for (const platform of ["wechat", "douyin"]) {
        const query = platform === "wechat" ? "jsCode" : "code";
        const player = fresh(`check${platform}`);
        const login = await h.get(`/api/minigame/${platform}/login?${query}=${player}.1`);
        const check = () => h.get(`/api/minigame/${platform}/session_key/check`, bearer(login.body.data.token));
        const res = await check();
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body.data, { valid: true });
        // Another login at the platform (say, from a second server) replaces the key there.
        const direct =
          platform === "wechat"
            ? `${h.config.platforms.wechat.apiBaseUrl}/sns/jscode2session?appid=${h.config.platforms.wechat.appId}&secret=${h.config.platforms.wechat.appSecret}&js_code=${player}.2&grant_type=authorization_code`
            : `${h.config.platforms.douyin.apiBaseUrl}/mgplatform/api/apps/jscode2session?appid=${h.config.platforms.douyin.appId}&secret=${h.config.platforms.douyin.appSecret}&code=${player}.2`;
        await fetch(direct);
        assert.deepEqual((await check()).body.data, { valid: false }, platform);
      }
    });

    it("exchanges a WeChat phone-number code once, with countryCode as a string", async () => {
      const login = await wechatLogin(fresh("phone"));
      const code = `13800138000.${fresh("c")}`;
      const phone = (body: unknown) => h.request("POST", "/api/minigame/wechat/phone_number", body, bearer(login.token));
      const res = await phone({ code });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, { phoneNumber: "13800138000", purePhoneNumber: "13800138000", countryCode: "86" });
      const again = await phone({ code });
      assert.equal(again.status, 401);
      assert.equal(again.body.data.code, "platform_code_invalid");
      assert.equal((await phone({})).status, 400);
      assert.ok(!h.logs.join("").includes("13800138000"), "a phone number reached the logs");
    });

    it("answers route_not_found where the platform's module declares no such feature", async () => {
      const login = await wechatLogin(fresh("nf"));
      const res = await h.request("POST", "/api/minigame/douyin/phone_number", { code: "13800138000.1" }, bearer(login.token));
      assert.equal(res.status, 404);
      assert.equal(res.body.data.code, "route_not_found");
      assert.equal((await h.request("POST", "/api/minigame/nosuch/decrypt", {}, bearer(login.token))).body.data.code, "route_not_found");
    });

    it("requires a Bearer token on every player-data route", async () => {
      for (const [method, path] of [
        ["POST", "/api/minigame/wechat/decrypt"],
        ["POST", "/api/minigame/wechat/signature/verify"],
        ["GET", "/api/minigame/douyin/session_key/check"],
        ["POST", "/api/minigame/wechat/phone_number"],
      ]) {
        const res = await h.request(method, path, method === "POST" ? {} : undefined);
        assert.equal(res.status, 401, path);
        assert.equal(res.body.data.code, "token_missing");
      }
    });
  });
}

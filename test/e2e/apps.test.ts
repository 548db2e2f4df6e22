/**
 * Several games of one studio in one deployment (APPS_FILE): two WeChat apps (the default app and
 * "puzzle") and one Douyin app (the default app's), served by the embedded simulator, which accepts
 * every configured app. Real HTTP, real Colyseus clients, the server booted from app.config.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import jwt from "jsonwebtoken";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { AuthenticatedRoom } from "../../rooms/AuthenticatedRoom";
import { accessTokenKey, refreshTokenKey } from "../../src/services/session-service";
import { useHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { leaveRooms } from "../support/rooms";

const PUZZLE_APP_ID = "wx_puzzle_app";

/** An APPS_FILE with the "puzzle" game on WeChat, in a folder of its own. */
function puzzleAppsFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-"));
  const file = path.join(dir, "apps.json");
  fs.writeFileSync(file, JSON.stringify({ apps: [{ key: "puzzle", wechat: { appId: PUZZLE_APP_ID, appSecret: "puzzle-wechat-secret" } }] }));
  return file;
}

let seq = 0;
const player = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function login(h: Harness, name: string, n: number, appId?: string) {
  const res = await h.get(`/api/minigame/wechat/login?jsCode=${name}.${n}${appId ? `&appId=${appId}` : ""}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { token: string; refreshToken: string; openid: string; unionid: string; user: { id: string } };
}

const claimsOf = (token: string) => jwt.decode(token) as Record<string, unknown>;

/** A studio room someone defined without filterBy(APP_FILTER): matchmaking ignores apps there. */
class UnfilteredRoom extends AuthenticatedRoom {}

for (const backend of backends) {
  describe(`several apps in one deployment — ${backend.name}`, function () {
    this.timeout(30_000);
    const h = useHarness(backend, {
      env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", APPS_FILE: puzzleAppsFile(), REFRESH_GRACE_SEC: "0", PLAYGROUND_ENABLED: "true" },
    });
    const rooms: Room[] = [];
    afterEach(() => leaveRooms(rooms));

    async function joinLobby(token: string): Promise<Room> {
      const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token });
      rooms.push(room);
      return room;
    }

    it("logs one player in to both WeChat games: same user, each game its own app claim, openid and live session", async () => {
      const name = player("studio");
      const inDefault = await login(h, name, 1);
      const inPuzzle = await login(h, name, 2, PUZZLE_APP_ID);
      assert.equal(inPuzzle.user.id, inDefault.user.id, "the unionid leads to the same user");
      assert.notEqual(inPuzzle.openid, inDefault.openid, "each app has its own openid");
      assert.equal(inPuzzle.unionid, inDefault.unionid);
      assert.equal(claimsOf(inDefault.token).app, "default");
      assert.equal(claimsOf(inPuzzle.token).app, "puzzle");

      const meDefault = await h.get("/api/users/me", bearer(inDefault.token));
      const mePuzzle = await h.get("/api/users/me", bearer(inPuzzle.token));
      assert.equal(meDefault.status, 200, "the second game's login left the first game's session alone");
      assert.equal(meDefault.body.data.app, "default");
      assert.equal(mePuzzle.body.data.app, "puzzle");

      const cache = h.services.cache;
      const id = inDefault.user.id;
      assert.equal(await cache.get(accessTokenKey(id, "default")), inDefault.token);
      assert.match(accessTokenKey(id, "default"), new RegExp(`^access_token:\\{?${id}\\}?$`), "the default app keeps the spec's key");
      assert.equal(accessTokenKey(id, "puzzle"), `${accessTokenKey(id, "default")}:puzzle`, "another app's adds the app after the user id");
      assert.equal(await cache.get(accessTokenKey(id, "puzzle")), inPuzzle.token);
      assert.equal(await cache.get(refreshTokenKey(id, "puzzle")), inPuzzle.refreshToken);

      const identities = await h.services.store.listIdentities(id);
      assert.deepEqual(
        identities.map((i) => i.platform).sort(),
        ["wechat", "wechat", `wechat@${PUZZLE_APP_ID}`].sort(),
        "the default app's openid and the unionid under wechat, the puzzle's openid under its app id",
      );
    });

    it("a new login to one game replaces that game's session only", async () => {
      const name = player("relogin");
      const a1 = await login(h, name, 1);
      const b1 = await login(h, name, 2, PUZZLE_APP_ID);
      const a2 = await login(h, name, 3);
      assert.equal((await h.get("/api/users/me", bearer(a1.token))).body.data.code, "session_revoked");
      assert.equal((await h.get("/api/users/me", bearer(a2.token))).status, 200);
      assert.equal((await h.get("/api/users/me", bearer(b1.token))).status, 200);
    });

    it("logging out of one game leaves the other working over HTTP and in its room", async () => {
      const name = player("logout");
      const inDefault = await login(h, name, 1);
      const inPuzzle = await login(h, name, 2, PUZZLE_APP_ID);
      const defaultRoom = await joinLobby(inDefault.token);
      const puzzleRoom = await joinLobby(inPuzzle.token);
      const closed = new Promise<number>((resolve) => defaultRoom.onLeave((code) => resolve(code)));
      let puzzleLeft: number | undefined;
      puzzleRoom.onLeave((code) => (puzzleLeft = code));

      const out = await h.request("POST", "/api/auth/logout", undefined, bearer(inDefault.token));
      assert.equal(out.status, 200);
      assert.equal(await closed, 4401, "the logged-out game's room connection closes");
      assert.equal((await h.get("/api/users/me", bearer(inDefault.token))).status, 401);
      assert.equal((await h.get("/api/users/me", bearer(inPuzzle.token))).status, 200);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(puzzleLeft, undefined, "the other game's room connection stays");
      assert.ok(puzzleRoom.connection.isOpen);
    });

    it("refreshes each game's session by its own refresh token, and a replay ends only that game's", async () => {
      const name = player("refresh");
      const inDefault = await login(h, name, 1);
      const inPuzzle = await login(h, name, 2, PUZZLE_APP_ID);
      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken: inPuzzle.refreshToken });
      assert.equal(refreshed.status, 200);
      assert.equal(claimsOf(refreshed.body.data.token).app, "puzzle", "the app is kept across refreshes");
      assert.equal((await h.get("/api/users/me", bearer(refreshed.body.data.token))).body.data.app, "puzzle");
      // REFRESH_GRACE_SEC=0 here: a replay is theft at once.
      const replay = await h.request("POST", "/api/auth/refresh", { refreshToken: inPuzzle.refreshToken });
      assert.equal(replay.body.data.code, "refresh_token_reused");
      assert.equal((await h.get("/api/users/me", bearer(refreshed.body.data.token))).status, 401, "that game's session ended");
      assert.equal((await h.get("/api/users/me", bearer(inDefault.token))).status, 200, "the other game's goes on");
    });

    it("deleting the account ends every game's session", async () => {
      const name = player("erase");
      const inDefault = await login(h, name, 1);
      const inPuzzle = await login(h, name, 2, PUZZLE_APP_ID);
      const erased = await h.request("DELETE", "/api/users/me", undefined, bearer(inPuzzle.token));
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal((await h.get("/api/users/me", bearer(inDefault.token))).status, 403);
      assert.equal(await h.services.cache.get(accessTokenKey(inDefault.user.id, "default")), null);
      assert.equal(await h.services.cache.get(accessTokenKey(inDefault.user.id, "puzzle")), null);
    });

    it("lists each platform's games for the playground and in the start-up line, never a secret", async () => {
      const res = await fetch(`${h.baseUrl}/playground/platforms.json`);
      const text = await res.text();
      const list = JSON.parse(text) as Array<{ name: string; apps: Array<{ key: string; appId: string }> }>;
      assert.deepEqual(list.find((p) => p.name === "wechat")?.apps.map((a) => a.key), ["default", "puzzle"]);
      assert.deepEqual(list.find((p) => p.name === "wechat")?.apps[1], { key: "puzzle", appId: PUZZLE_APP_ID });
      assert.deepEqual(list.find((p) => p.name === "douyin")?.apps.map((a) => a.key), ["default"]);
      assert.ok(!text.includes("puzzle-wechat-secret"));
      const ready = h.logs.find((line) => line.includes("ready:"))!;
      assert.match(ready, new RegExp(`puzzle \\(wechat ${PUZZLE_APP_ID}\\)`));
      assert.ok(!h.logs.join("").includes("puzzle-wechat-secret"), "no log line holds the app secret");
      const docs = await fetch(`${h.baseUrl}/api-docs.json`).then((r) => r.text());
      assert.match(docs, /unknown_app/, "the API description lists the new error");
      assert.ok(!docs.includes("puzzle-wechat-secret") && !docs.includes(PUZZLE_APP_ID), "nor does the API description name an app");
    });

    it("refuses an app id the deployment does not serve with 400 unknown_app, before calling the platform", async () => {
      const before = h.services.simulator!.stats().code2session.wechat;
      const res = await h.get(`/api/minigame/wechat/login?jsCode=${player("stranger")}.1&appId=wx_not_ours`);
      assert.equal(res.status, 400);
      assert.equal(res.body.success, false);
      assert.equal(res.body.data.code, "unknown_app");
      const douyinPuzzle = await h.get(`/api/minigame/douyin/login?code=${player("tt")}.1&appId=${PUZZLE_APP_ID}`);
      assert.equal(douyinPuzzle.body.data.code, "unknown_app", "the puzzle game is not on Douyin");
      assert.equal(h.services.simulator!.stats().code2session.wechat, before, "nothing was sent upstream");
    });

    it("keeps a platform access token per app: one fetch each, and a cancelled one heals alone", async () => {
      h.services.simulator!.resetStats();
      const fetchToken = async (appId?: string) => {
        const res = await h.get(`/api/minigame/wechat/access_token${appId ? `?appId=${appId}` : ""}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data.access_token as string;
      };
      const [defaultToken, puzzleToken] = await Promise.all([fetchToken(), fetchToken(PUZZLE_APP_ID)]);
      assert.notEqual(defaultToken, puzzleToken);
      for (let i = 0; i < 5; i++) {
        assert.equal(await fetchToken(), defaultToken);
        assert.equal(await fetchToken(PUZZLE_APP_ID), puzzleToken);
      }
      assert.equal(h.services.simulator!.stats().accessToken.wechat, 2, "one upstream fetch per app");

      const healed = await h.request("POST", `/api/minigame/wechat/access_token/invalidate?appId=${PUZZLE_APP_ID}`, { access_token: puzzleToken });
      assert.equal(healed.status, 200);
      assert.equal(await fetchToken(), defaultToken, "the other app's token is untouched");
      assert.equal(await fetchToken(PUZZLE_APP_ID), healed.body.data.access_token);
      assert.equal((await h.get("/api/minigame/wechat/access_token?appId=wx_not_ours")).body.data.code, "unknown_app");
    });

    it("seats players of different games in different lobbies, of one game in the same, and refuses another game's room by id", async () => {
      const a = await login(h, player("roomA"), 1);
      const b = await login(h, player("roomB"), 1, PUZZLE_APP_ID);
      const c = await login(h, player("roomC"), 1, PUZZLE_APP_ID);
      const roomA = await joinLobby(a.token);
      const roomB = await joinLobby(b.token);
      const roomC = await joinLobby(c.token);
      assert.notEqual(roomB.roomId, roomA.roomId, "game B's lobby is not game A's");
      assert.equal(roomC.roomId, roomB.roomId, "players of one game meet");

      // The room lives in this process: onAuth reads its app from memory; the one driver lookup is Colyseus's own.
      const lookups: unknown[] = [];
      const findOne = matchMaker.driver.findOne.bind(matchMaker.driver);
      matchMaker.driver.findOne = ((conditions: unknown, ...rest: unknown[]) => {
        lookups.push(conditions);
        return (findOne as (...args: unknown[]) => unknown)(conditions, ...rest);
      }) as typeof matchMaker.driver.findOne;
      try {
        await assert.rejects(new Client(h.baseUrl).joinById(roomA.roomId, { accessToken: c.token }), (err: { code?: number; message?: string }) => {
          assert.equal(err.code, 403);
          assert.equal(err.message, "app_mismatch");
          return true;
        });
      } finally {
        matchMaker.driver.findOne = findOne;
      }
      assert.equal(lookups.length, 1, `driver lookups for a local room: ${JSON.stringify(lookups)}`);
      // A room defined without the filter: the seat still goes only to a player of the room's app.
      matchMaker.defineRoomType("unfiltered", UnfilteredRoom);
      const puzzleRoom = await new Client(h.baseUrl).joinOrCreate("unfiltered", { accessToken: b.token });
      rooms.push(puzzleRoom);
      await assert.rejects(new Client(h.baseUrl).join("unfiltered", { accessToken: a.token }), /app_mismatch/);
      await assert.rejects(new Client(h.baseUrl).joinById(puzzleRoom.roomId, { accessToken: a.token }), /app_mismatch/);
      await assert.rejects(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: a.token, app: "puzzle" }).then((r) => {
        rooms.push(r);
        assert.equal(r.roomId, roomA.roomId, "a client cannot pick another game's lobby with the app option");
        throw new Error("joined its own game's lobby");
      }), /joined its own game's lobby/);
    });
  });
}

describe("several apps with LINK_APPS_BY_UNIONID=false", function () {
  this.timeout(30_000);
  const h = useHarness(backends[0], {
    env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", APPS_FILE: puzzleAppsFile(), LINK_APPS_BY_UNIONID: "false" },
  });

  it("gives each game its own user", async () => {
    const name = player("unlinked");
    const inDefault = await login(h, name, 1);
    const inPuzzle = await login(h, name, 2, PUZZLE_APP_ID);
    assert.notEqual(inPuzzle.user.id, inDefault.user.id);
    assert.equal(inPuzzle.unionid, inDefault.unionid);
    const again = await login(h, name, 3, PUZZLE_APP_ID);
    assert.equal(again.user.id, inPuzzle.user.id, "and finds each game's user again");
  });
});

/**
 * The built drop-in client inside modelled WeChat and Douyin mini-game runtimes (see
 * runtime-context.ts and fake-platform.ts), against the real server and simulator, on every backend.
 */
import assert from "node:assert/strict";
import type { Room } from "@colyseus/sdk";
import type { GameClient } from "../../client/src/index";
import type { MiniGameApi } from "../../client/src/runtimes/minigame-runtime";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice, type TtApi, type WxApi } from "./fake-platform";
import { PLATFORM_GLOBAL, createMiniGameContext, type MiniGamePlatform } from "./runtime-context";

// Compile-time: the client's view of a platform object accepts the published WeChat and Douyin typings.
export const wxFitsClient = (api: WxApi): MiniGameApi => api;
export const ttFitsClient = (api: TtApi): MiniGameApi => api;

const SERVER_TTL_SEC = 7200;
const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

function waitFor<T>(register: (resolve: (value: T) => void) => void, what: string, ms = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

interface ChatLine {
  userId: string;
  name: string;
  text: string;
}

function nextChat(room: Room, text: string): Promise<ChatLine> {
  return waitFor<ChatLine>((resolve) => {
    const off = room.onMessage("chat", (line: ChatLine) => {
      if (line.text === text) {
        off();
        resolve(line);
      }
    });
  }, `chat "${text}"`);
}

async function chatRoundTrip(room: Room, text: string): Promise<ChatLine> {
  const heard = nextChat(room, text);
  room.send("chat", { text });
  return heard;
}

for (const backend of backends) {
  describe(`game client in mini-game runtimes, on ${backend.name}`, function () {
    this.timeout(60_000);
    let h: Harness;
    let release: () => Promise<void>;
    let dropIn: string;
    /** The server's clock runs this far ahead: tokens expire without waiting. */
    let serverSkewMs = 0;

    before(async () => {
      dropIn = ensureClientBuilt();
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => Date.now() + serverSkewMs } });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    /** Every access token issued so far is expired on the server. */
    const expireAccessTokens = () => {
      serverSkewMs += (SERVER_TTL_SEC + 5) * 1000;
    };

    for (const platform of ["wechat", "douyin", "qq", "kuaishou"] as MiniGamePlatform[]) {
      describe(`${platform} (${PLATFORM_GLOBAL[platform]})`, () => {
        const open: GameClient[] = [];
        const rooms: Room[] = [];
        afterEach(async () => {
          for (const room of rooms.splice(0)) if (room.connection?.isOpen) await room.leave().catch(() => undefined);
        });

        /** A game start on a device: a fresh runtime context, the device's storage as it was. */
        function start(device: FakeDevice, options: { reconnection?: false } = {}) {
          const game = createMiniGameContext(platform, device, dropIn);
          const client = game.library.createGameClient({ server: h.baseUrl, refreshRetryDelayMs: 50, ...options });
          open.push(client);
          return { game, client };
        }

        async function joinLobby(client: GameClient): Promise<Room> {
          const room = await client.joinOrCreate("lobby");
          rooms.push(room);
          return room;
        }

        it("first login → lobby → chat, with binary frames sent as ArrayBuffers only", async () => {
          const device = new FakeDevice(unique("first"));
          const { game, client } = start(device);
          for (const name of ["WebSocket", "XMLHttpRequest", "fetch", "URL", "Headers"]) assert.equal(game.run(`typeof ${name}`), "undefined");

          const user = await client.login();
          assert.equal(device.loginCalls, 1);
          assert.match(user.username, new RegExp(`^mg_${platform}_`));
          const stored = JSON.parse(String(device.storage.get("minigame-client.session")));
          assert.equal(stored.user.id, user.id);
          assert.ok(stored.token && stored.refreshToken && stored.expiresIn > 0, "token, refreshToken and expiresIn are kept in storage");
          assert.equal(stored.session_key, undefined);

          const room = await joinLobby(client);
          await waitFor<void>((resolve) => {
            const check = () => {
              const players = [...((room.state as any)?.players?.values() ?? [])] as Array<{ userId: string }>;
              if (players.some((p) => p.userId === user.id)) resolve();
            };
            room.onStateChange(check);
            check();
          }, "the player in the lobby state");
          const line = await chatRoundTrip(room, "hello from a mini-game");
          assert.equal(line.userId, user.id);
          assert.deepEqual(device.refusedSends, [], "the client never handed the socket a Uint8Array");
        });

        it("a restart with stored tokens needs no platform login", async () => {
          const device = new FakeDevice(unique("restart"));
          const first = start(device);
          const user = await first.client.login();

          const again = start(device);
          assert.ok(again.client.isLoggedIn);
          const restored = await again.client.login();
          assert.equal(restored.id, user.id);
          assert.equal(device.loginCalls, 1, "no second platform login");
          const me = await again.client.request("GET", "/api/users/me");
          assert.equal(me.id, user.id);
          const room = await joinLobby(again.client);
          await chatRoundTrip(room, "back again");
        });

        it("a stored token about to expire is refreshed before the join", async () => {
          const device = new FakeDevice(unique("stale"));
          await start(device).client.login();
          const stored = JSON.parse(String(device.storage.get("minigame-client.session")));
          // As if the game was last started almost two hours ago: 30 s of the access token left.
          stored.receivedAt -= (stored.expiresIn - 30) * 1000;
          device.storage.set("minigame-client.session", JSON.stringify(stored));

          const { client } = start(device);
          await joinLobby(client);
          const paths = device.requests.map((r) => r.path);
          assert.equal(device.count("/api/auth/refresh"), 1);
          assert.ok(paths.lastIndexOf("/api/auth/refresh") < paths.lastIndexOf("/matchmake/joinOrCreate/lobby"), "refreshed before matchmaking");
          assert.notEqual(client.session?.token, stored.token);
        });

        it("expiry → silent refresh on token_expired → still in the room", async () => {
          const device = new FakeDevice(unique("expiry"));
          const { client } = start(device);
          const ended: unknown[] = [];
          client.on("sessionEnded", (e) => ended.push(e));
          const user = await client.login();
          const room = await joinLobby(client);
          let left: number | undefined;
          room.onLeave((code) => (left = code));

          expireAccessTokens();
          const me = await client.request("GET", "/api/users/me");
          assert.equal(me.id, user.id);
          const meCalls = device.requests.filter((r) => r.path === "/api/users/me");
          assert.deepEqual(meCalls.map((r) => r.code ?? r.status), ["token_expired", 200]);
          assert.equal(device.count("/api/auth/refresh"), 1);

          await chatRoundTrip(room, "still here after the refresh");
          assert.equal(left, undefined, "the room connection was not closed");
          assert.deepEqual(ended, []);
          // A join with the refreshed token works too.
          await joinLobby(client);
        });

        it("two concurrent calls at expiry → one rotation, and the session lives on", async () => {
          const device = new FakeDevice(unique("concurrent"));
          const { client } = start(device);
          const ended: unknown[] = [];
          client.on("sessionEnded", (e) => ended.push(e));
          const user = await client.login();

          expireAccessTokens();
          const [a, b, room] = await Promise.all([
            client.request("GET", "/api/users/me"),
            client.request("GET", "/api/users/me"),
            joinLobby(client),
          ]);
          assert.equal(a.id, user.id);
          assert.equal(b.id, user.id);
          assert.ok(room.sessionId);
          assert.equal(device.count("/api/auth/refresh"), 1, "one rotation for all callers");
          assert.ok(!device.requests.some((r) => r.code === "refresh_token_reused"));
          // A later expiry rotates again from the kept pair: reuse detection never fired.
          expireAccessTokens();
          assert.equal((await client.request("GET", "/api/users/me")).id, user.id);
          assert.equal(device.count("/api/auth/refresh"), 2);
          assert.deepEqual(ended, []);
        });

        it("a refresh whose answer was lost is retried within the server's grace window", async () => {
          const device = new FakeDevice(unique("lost"));
          const { client } = start(device);
          const user = await client.login();
          expireAccessTokens();
          device.loseNextAnswer("/api/auth/refresh");
          assert.equal((await client.request("GET", "/api/users/me")).id, user.id);
          const refreshes = device.requests.filter((r) => r.path === "/api/auth/refresh");
          assert.deepEqual(refreshes.map((r) => r.status), [200, 200], "the retry got the rotation's pair, not refresh_token_reused");
          assert.equal((await client.request("GET", "/api/users/me")).id, user.id, "and that pair is the live one");
        });

        it("a login elsewhere ends the session: 4401 becomes a sessionEnded event", async () => {
          const device = new FakeDevice(unique("elsewhere"));
          const { client, game } = start(device);
          await client.login();
          const room = await joinLobby(client);
          const closed = waitFor<number>((resolve) => room.onLeave(resolve), "the room close");
          const ended = waitFor<{ code: string }>((resolve) => client.on("sessionEnded", resolve), "sessionEnded");

          // The same player logs in on another phone.
          const query = `${platform === "wechat" ? "jsCode" : "code"}=${device.player}.other1`;
          assert.equal((await h.get(`/api/minigame/${platform}/login?${query}`)).status, 200);

          assert.equal(await closed, game.library.SESSION_ENDED_CLOSE_CODE);
          assert.equal((await ended).code, "session_revoked");
          assert.equal(client.isLoggedIn, false);
          assert.equal(device.storage.has("minigame-client.session"), false, "the dead session is forgotten");
          await assert.rejects(client.request("GET", "/api/users/me"), (err: any) => err.code === "not_logged_in");
        });

        it("the same player taking the seat again: 4409 becomes a seatReplaced event, and the player stays logged in", async () => {
          const device = new FakeDevice(unique("seat"));
          const first = start(device);
          await first.client.login();
          const room = await joinLobby(first.client);
          const closed = waitFor<number>((resolve) => room.onLeave(resolve), "the room close");
          const replaced = waitFor<{ code: number }>((resolve) => first.client.on("seatReplaced", resolve), "seatReplaced");
          const ended: unknown[] = [];
          first.client.on("sessionEnded", (e) => ended.push(e));

          // The game starts again on the same phone (same stored session) and joins the same lobby.
          const second = start(device);
          const again = await second.client.joinById(room.roomId);
          rooms.push(again);

          assert.equal(await closed, first.game.library.SEAT_REPLACED_CLOSE_CODE);
          assert.equal((await replaced).code, 4409);
          assert.equal(first.client.isLoggedIn, true, "a replaced seat is not a logout");
          assert.deepEqual(ended, []);
          await chatRoundTrip(again, "one seat, still here");
        });

        it("logout() ends the session without a sessionEnded event", async () => {
          const device = new FakeDevice(unique("logout"));
          const { client } = start(device);
          await client.login();
          const token = client.session!.token;
          const room = await joinLobby(client);
          const closed = waitFor<number>((resolve) => room.onLeave(resolve), "the room close");
          const ended: unknown[] = [];
          client.on("sessionEnded", (e) => ended.push(e));
          assert.equal(await client.logout(), true, "the server confirmed");
          assert.equal(await closed, 4401);
          assert.equal(client.isLoggedIn, false);
          assert.equal((await h.get("/api/users/me", { authorization: `Bearer ${token}` })).body.data.code, "session_revoked");
          assert.deepEqual(ended, []);
        });

        it("deleteAccount() erases the player: the next login of the same identity is a new user", async () => {
          const device = new FakeDevice(unique("erase"));
          const { client } = start(device);
          const ended: unknown[] = [];
          client.on("sessionEnded", (e) => ended.push(e));
          const user = await client.login();
          const token = client.session!.token;
          const room = await joinLobby(client);
          const closed = waitFor<number>((resolve) => room.onLeave(resolve), "the room close");

          await client.deleteAccount();
          assert.equal(client.isLoggedIn, false);
          assert.equal(device.storage.has("minigame-client.session"), false);
          assert.equal(await closed, 4401, "the server ended the session and closed the room");
          assert.deepEqual(ended, [], "a deliberate deletion is no sessionEnded event");
          assert.equal((await h.get("/api/users/me", { authorization: `Bearer ${token}` })).status >= 401, true);
          const again = await client.login();
          assert.notEqual(again.id, user.id);
        });

        it("network drop with reconnection off → connectionLost → reconnect keeps the seat", async () => {
          const device = new FakeDevice(unique("drop"));
          const { client } = start(device, { reconnection: false });
          const user = await client.login();
          const room = await joinLobby(client);
          const lost = waitFor<{ code: number; reconnectionToken: string }>((resolve) => client.on("connectionLost", resolve), "connectionLost");
          device.dropConnections();
          const event = await lost;
          assert.equal(event.code, 1006);

          const back = await client.reconnect(event.reconnectionToken);
          rooms.push(back);
          assert.equal(back.sessionId, room.sessionId, "the same seat");
          const line = await chatRoundTrip(back, "reconnected");
          assert.equal(line.userId, user.id);
        });

        if (platform === "douyin") {
          it("an anonymous player who later logs into Douyin keeps the same user", async () => {
            const device = new FakeDevice(unique("anon"), false);
            const { client } = start(device);
            const anonymous = await client.login();
            const firstLogin = device.requests.find((r) => r.path === "/api/minigame/douyin/login");
            assert.ok(firstLogin && firstLogin.status === 200);

            device.hostLoggedIn = true;
            const identified = await client.login({ fresh: true });
            assert.equal(identified.id, anonymous.id, "the anonymous user moved to the openid");
            // And from now on a code alone finds that user.
            const elsewhere = await h.get(`/api/minigame/douyin/login?code=${device.player}.later1`);
            assert.equal(elsewhere.body.data.user.id, anonymous.id);
          });
        }
      });
    }
  });
}

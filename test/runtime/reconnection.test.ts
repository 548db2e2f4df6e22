/**
 * Players who step away come back to their seat: the built drop-in client in modelled mini-game
 * runtimes (app-lifecycle.ts: hiding freezes the game and the runtime cuts its sockets after 5 s;
 * a network switch leaves the server's side open), against the real server with its DEFAULT seat
 * hold (ROOM_RECONNECT_SECONDS unset: 60 s). The hold and the runtime's background timing run on a
 * controllable clock, so a 25 s background or a 30 s ad takes no real 25 or 30 s. The game code is
 * only the join (and its own handlers): reconnection is the client's.
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import type { Room } from "@colyseus/sdk";
import type { GameClient, GameClientOptions } from "../../client/src/index";
import type { LobbyRoom } from "../../rooms/LobbyRoom";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { ensureClientBuilt } from "../support/client-build";
import { ManualClock } from "../support/manual-clock";
import { FakeDevice } from "./fake-platform";
import { PLATFORM_GLOBAL, createMiniGameContext, type MiniGamePlatform } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Recorded {
  last?: "reconnecting" | "reconnected" | "reconnectFailed";
  reconnecting: number;
  reconnected: Array<{ attempts: number }>;
  failed: Array<{ reason: string; code: number }>;
  connectionLost: number;
}

function record(client: GameClient): Recorded {
  const seen: Recorded = { reconnecting: 0, reconnected: [], failed: [], connectionLost: 0 };
  client.on("reconnecting", () => {
    seen.reconnecting++;
    seen.last = "reconnecting";
  });
  client.on("reconnected", (e) => {
    seen.reconnected.push({ attempts: e.attempts });
    seen.last = "reconnected";
  });
  client.on("reconnectFailed", (e) => {
    seen.failed.push({ reason: e.reason, code: e.code });
    seen.last = "reconnectFailed";
  });
  client.on("connectionLost", () => seen.connectionLost++);
  if (process.env.DEBUG_RECONNECT) for (const e of ["reconnecting", "reconnected", "reconnectFailed"] as const) client.on(e, (p: any) => console.log(e, p.attempt ?? p.attempts ?? p.reason, p.code ?? ""));
  return seen;
}

function chatHeard(room: Room, text: string): Promise<{ userId: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chat "${text}" never arrived`)), 10_000);
    const off = room.onMessage("chat", (line: { userId: string; text: string }) => {
      if (line.text !== text) return;
      off();
      clearTimeout(timer);
      resolve(line);
    });
  });
}

for (const backend of backends) {
  describe(`rooms survive backgrounding, ads and network switches, on ${backend.name}`, function () {
    this.timeout(60_000);
    const clock = new ManualClock();
    let h: Harness;
    let release: () => Promise<void>;
    let dropIn: string;
    let serverSkewMs = 0;
    const devices: FakeDevice[] = [];
    const rooms: Room[] = [];

    before(async () => {
      dropIn = ensureClientBuilt();
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => Date.now() + serverSkewMs, roomHoldTimer: clock } });
    });
    afterEach(async () => {
      for (const device of devices) device.lifecycle.show();
      for (const room of rooms.splice(0)) if (room.connection?.isOpen) await room.leave().catch(() => undefined);
      for (const device of devices.splice(0)) device.dispose();
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    function start(platform: MiniGamePlatform, label: string, options: Partial<GameClientOptions> = {}) {
      const device = new FakeDevice(unique(label));
      device.lifecycle.clock = clock;
      devices.push(device);
      const game = createMiniGameContext(platform, device, dropIn);
      const client = game.library.createGameClient({ server: h.baseUrl, refreshRetryDelayMs: 50, ...options });
      return { device, game, client, events: record(client) };
    }

    async function joined(client: GameClient, roomId?: string): Promise<Room> {
      await client.login();
      const room = roomId ? await client.joinById(roomId) : await client.create("lobby");
      rooms.push(room);
      return room;
    }

    const serverRoom = (roomId: string) => matchMaker.getLocalRoomById(roomId) as unknown as LobbyRoom;
    const userIdOf = (client: GameClient) => client.user!.id;
    const playersIn = (room: Room) => [...((room.state as any).players?.keys() ?? [])].sort() as string[];
    /** The server has let the player's socket go and holds the seat. */
    const held = (roomId: string, userId: string) =>
      serverRoom(roomId).holdsUser(userId) && !serverRoom(roomId).clients.some((c: any) => c.auth?.userId === userId);

    /** Hidden for `awayMs` on the clock: the runtime cuts the sockets after 5 s, then the seat is held for the rest. */
    async function away(device: FakeDevice, room: Room, userId: string, awayMs: number, meanwhile: () => Promise<void> = async () => undefined, ad = false) {
      if (ad) device.lifecycle.playRewardedAd(awayMs);
      else device.lifecycle.hide();
      await clock.advance(5000);
      await until(() => held(room.roomId, userId), "the server holding the seat");
      await meanwhile();
      await clock.advance(awayMs - 5000);
    }

    it("uses the default hold: ROOM_RECONNECT_SECONDS unset is 60 s", () => {
      assert.equal(h.config.roomReconnectSeconds, 60);
    });

    for (const platform of ["wechat", "douyin", "qq", "kuaishou"] as MiniGamePlatform[]) {
      describe(`${platform} (${PLATFORM_GLOBAL[platform]})`, () => {
        for (const [what, awayMs, ad] of [
          ["25 s in the background", 25_000, false],
          ["a 30 s rewarded video ad", 30_000, true],
        ] as const) {
          it(`${what} → the same seat, the state missed meanwhile, messages both ways, no game code but the join`, async () => {
            const a = start(platform, "away");
            const b = start(platform, "leaver");
            const c = start(platform, "newcomer");
            const room = await joined(a.client);
            // What a game does anyway: handlers, and its view of the players kept by state callbacks.
            const tracked = new Set<string>();
            const $ = a.game.library.getStateCallbacks(room)!;
            ($(room.state as any) as any).players.onAdd((_p: unknown, key: string) => tracked.add(key));
            ($(room.state as any) as any).players.onRemove((_p: unknown, key: string) => tracked.delete(key));
            const leaver = await joined(b.client, room.roomId);
            await until(() => playersIn(room).length === 2, "both players in the state");
            const seat = room.sessionId;

            let newcomer: Room | undefined;
            await away(
              a.device,
              room,
              userIdOf(a.client),
              awayMs,
              async () => {
                await leaver.leave();
                newcomer = await joined(c.client, room.roomId);
              },
              ad,
            );
            assert.ok(serverRoom(room.roomId).holdsUser(userIdOf(a.client)), `the seat is still held after ${awayMs / 1000} s`);
            // The ad gives the game back by itself when it ends; from the background the player returns.
            if (ad) assert.equal(a.device.lifecycle.hidden, false, "the ad ended");
            else a.device.lifecycle.show();
            await until(() => a.events.reconnected.length === 1, "reconnected");

            assert.equal(room.sessionId, seat, "the same seat");
            assert.deepEqual(playersIn(room), [seat, newcomer!.sessionId].sort(), "the state is the server's: the leaver gone, the newcomer there");
            assert.equal((room.state as any).players.get(seat).userId, userIdOf(a.client));
            assert.deepEqual([...tracked].sort(), playersIn(room), "the game's state callbacks saw the removal and the addition");
            const toNewcomer = chatHeard(newcomer!, "back from the background");
            room.send("chat", { text: "back from the background" });
            assert.equal((await toNewcomer).userId, userIdOf(a.client));
            const toReturner = chatHeard(room, "welcome back");
            newcomer!.send("chat", { text: "welcome back" });
            assert.equal((await toReturner).userId, userIdOf(c.client));
            assert.deepEqual(a.events.failed, []);
            assert.equal(a.events.connectionLost, 0);
            assert.equal(serverRoom(room.roomId).clients.filter((cl: any) => cl.auth?.userId === userIdOf(a.client)).length, 1);
          });
        }
      });
    }

    it("a background longer than the hold → reconnectFailed (seat_expired), and joining again works", async () => {
      const a = start("wechat", "long");
      const room = await joined(a.client);
      const left: number[] = [];
      room.onLeave((code) => left.push(code));
      await away(a.device, room, userIdOf(a.client), 66_000);
      await until(() => !serverRoom(room.roomId) || !serverRoom(room.roomId).holdsUser(userIdOf(a.client)), "the hold to end");
      a.device.lifecycle.show();
      await until(() => a.events.failed.length === 1, "reconnectFailed");
      assert.deepEqual(a.events.failed, [{ reason: "seat_expired", code: 1000 }]);
      assert.deepEqual(left, [1000], "the room's onLeave heard the close that started it");
      assert.equal(a.events.reconnected.length, 0);

      const again = await a.client.joinOrCreate("lobby");
      rooms.push(again);
      assert.notEqual(again.sessionId, room.sessionId);
      const heard = chatHeard(again, "a clean rejoin");
      again.send("chat", { text: "a clean rejoin" });
      assert.equal((await heard).userId, userIdOf(a.client));
    });

    it("a session that ended while away releases the seat at once → reconnectFailed (session_ended) and sessionEnded", async () => {
      const a = start("douyin", "elsewhere");
      const ended: string[] = [];
      a.client.on("sessionEnded", (e) => ended.push(e.code));
      const room = await joined(a.client);
      await away(a.device, room, userIdOf(a.client), 10_000);
      // The same player logs in on another phone: the held seat goes now, not when the hold ends.
      assert.equal((await h.get(`/api/minigame/douyin/login?code=${a.device.player}.other1`)).status, 200);
      await until(() => !serverRoom(room.roomId) || !serverRoom(room.roomId).holdsUser(userIdOf(a.client)), "the seat to be released");
      a.device.lifecycle.show();
      await until(() => a.events.failed.length === 1, "reconnectFailed");
      assert.deepEqual(a.events.failed, [{ reason: "session_ended", code: 1000 }], JSON.stringify(a.device.requests.slice(-6)));
      assert.deepEqual(ended, ["session_revoked"]);
      assert.equal(a.client.isLoggedIn, false);
    });

    it("a network switch the server never heard of → back at once: the server cuts the stale connection", async () => {
      const a = start("douyin", "switch");
      const room = await joined(a.client);
      const seat = room.sessionId;
      a.device.switchNetwork();
      await until(() => a.events.reconnected.length === 1 || a.events.failed.length > 0, "the reconnection to end");
      assert.deepEqual(a.events.failed, []);
      // Colyseus 0.18 cuts the connection it still counts when its reconnection token comes back
      // (0.16 refused that first attempt, and the seat came back at the next one).
      assert.ok(a.events.reconnected[0].attempts <= 2, `attempts: ${a.events.reconnected[0].attempts}`);
      assert.equal(room.sessionId, seat);
      const heard = chatHeard(room, "on 4G now");
      room.send("chat", { text: "on 4G now" });
      await heard;
      assert.equal(serverRoom(room.roomId).clients.length, 1, "the stale connection is gone");
    });

    it("an access token that expired while away is refreshed before the seat is taken back", async () => {
      const a = start("qq", "expired");
      const room = await joined(a.client);
      const token = a.client.session!.token;
      await away(a.device, room, userIdOf(a.client), 25_000);
      serverSkewMs += (7200 + 5) * 1000;
      // The game's clock moved too: the stored token is past its lifetime.
      const stored = JSON.parse(String(a.device.storage.get("minigame-client.session")));
      (a.client.session as any).receivedAt = stored.receivedAt - 7205 * 1000;
      a.device.lifecycle.show();
      await until(() => a.events.reconnected.length === 1 || a.events.failed.length > 0, "the reconnection to end");
      assert.deepEqual(a.events.failed, []);
      const paths = a.device.requests.map((r) => r.path);
      const refresh = paths.lastIndexOf("/api/auth/refresh");
      assert.ok(refresh >= 0 && refresh < paths.findIndex((p) => p.startsWith("/matchmake/reconnect/")), paths.join(" "));
      assert.notEqual(a.client.session!.token, token);
      assert.equal((await a.client.request("GET", "/api/users/me")).id, userIdOf(a.client));
    });

    it("a socket dropped 20 times in a minute leaves one seat and no leaked reservation", async () => {
      const a = start("wechat", "flap");
      const room = await joined(a.client);
      const seat = room.sessionId;
      for (let i = 0; i < 20; i++) {
        // Half the drops wait for the room to be back; the others hit a reconnection under way.
        if (i % 2 === 0) await until(() => !!room.connection?.isOpen && a.events.last !== "reconnecting", `back before drop ${i + 1}`);
        a.device.dropConnections();
        // After an even drop, the next one comes within a few ms: into the reconnection's request or socket.
        await sleep(i % 2 === 0 ? Math.floor(Math.random() * 15) : 20);
      }
      await until(() => !!room.connection?.isOpen && a.events.last === "reconnected", "back after the last drop");
      await sleep(300);
      assert.deepEqual(a.events.failed, []);
      assert.equal(room.sessionId, seat);
      const server = serverRoom(room.roomId) as any;
      assert.equal(server.clients.length, 1, "one seat");
      assert.deepEqual(Object.keys(server._reservedSeats), [], "no seat reservation left");
      assert.deepEqual(Object.keys(server._reconnections), [], "no pending reconnection left");
      assert.equal(server._listing.clients, 1, "the listing counts one client");
      assert.deepEqual(playersIn(room), [seat]);
      const heard = chatHeard(room, "still one of me");
      room.send("chat", { text: "still one of me" });
      await heard;
    });

    for (const when of ["before", "after"] as const) {
      it(`a reconnection cut during its join (its answer lost ${when} reaching the game) keeps the seat`, async () => {
        const a = start("douyin", `cut${when}`);
        const room = await joined(a.client);
        const seat = room.sessionId;
        a.device.dropConnections();
        // The first attempt's socket dies as the server answers its join: the player may or may not
        // hold the new reconnection token, and the server never hears the join confirmed.
        a.device.cutNextSocketAtFirstMessage = when;
        await until(() => a.events.reconnected.length === 1 || a.events.failed.length > 0, "the reconnection to end");
        assert.deepEqual(a.events.failed, []);
        assert.ok(a.events.reconnected[0].attempts >= 2, `attempts: ${a.events.reconnected[0].attempts}`);
        assert.equal(room.sessionId, seat);
        const server = serverRoom(room.roomId) as any;
        assert.equal(server.clients.length, 1);
        await until(() => Object.keys(server._reservedSeats).length === 0, "no seat reservation left");
        const heard = chatHeard(room, `back after a cut ${when}`);
        room.send("chat", { text: `back after a cut ${when}` });
        await heard;
      });
    }

    it("a reconnection cut while the server checks its session (onReconnect) keeps the seat", async () => {
      const a = start("qq", "cutcheck");
      const room = await joined(a.client);
      const seat = room.sessionId;
      const server = serverRoom(room.roomId) as any;
      const check = server.isLiveSession.bind(server);
      let cuts = 0;
      // The first check after the hold is in place is onReconnect's: the network drops during it
      // (Colyseus then calls onLeave, not onDrop, for that client).
      server.isLiveSession = async (auth: unknown) => {
        if (cuts === 0 && server.pendingReconnections.size === 0 && server.clients.length === 1 && a.events.last === "reconnecting") {
          cuts++;
          a.device.dropConnections();
          await until(() => server.clients[0]?.ref?.readyState !== 1, "the server seeing the socket closed");
        }
        return check(auth);
      };
      a.device.dropConnections();
      await until(() => a.events.reconnected.length === 1 || a.events.failed.length > 0, "the reconnection to end");
      assert.equal(cuts, 1, "the session check was cut once");
      assert.deepEqual(a.events.failed, []);
      assert.equal(room.sessionId, seat);
      assert.equal(server.clients.length, 1);
      await until(() => Object.keys(server._reservedSeats).length === 0, "no seat reservation left");
      const heard = chatHeard(room, "back after a cut check");
      room.send("chat", { text: "back after a cut check" });
      await heard;
    });

    it("room.leave() during a reconnection stops it: onLeave hears 4000, and the room does not come back", async () => {
      const a = start("wechat", "quitter", { reconnection: { minDelayMs: 20, maxDelayMs: 40 } });
      const room = await joined(a.client);
      const left: number[] = [];
      room.onLeave((code) => left.push(code));
      a.device.offline = true;
      a.device.dropConnections();
      await until(() => a.events.reconnecting >= 2, "reconnection attempts");
      assert.equal(await room.leave(), 4000);
      assert.deepEqual(left, [4000]);
      const attempts = a.events.reconnecting;
      a.device.offline = false;
      await sleep(300);
      assert.equal(a.events.reconnecting, attempts, "no attempt after the leave");
      assert.deepEqual([a.events.reconnected.length, a.events.failed.length], [0, 0]);
    });

    it("a game can bound reconnection: with no network, reconnectFailed (gave_up) after maxAttempts", async () => {
      const a = start("kuaishou", "bounded", { reconnection: { maxAttempts: 2, minDelayMs: 20 } });
      const room = await joined(a.client);
      a.device.offline = true;
      a.device.dropConnections();
      await until(() => a.events.failed.length === 1, "reconnectFailed");
      assert.deepEqual(a.events.failed, [{ reason: "gave_up", code: 1006 }]);
      assert.equal(a.events.reconnecting, 2);
      a.device.offline = false;
      const again = await a.client.joinById(room.roomId);
      rooms.push(again);
      assert.ok(again.sessionId);
    });
  });
}

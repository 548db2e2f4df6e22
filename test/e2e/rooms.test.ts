/**
 * Rooms with auth, joined from Node by the official Colyseus 0.18 client (@colyseus/sdk, as a studio's
 * own client would): a login through our HTTP routes, then a join with `accessToken`, `client.auth.token`
 * (Bearer) or `token`; refusals with their codes; session ends closing seats with 4401; reconnection.
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { AuthenticatedRoom, type PlayerClient } from "../../rooms/AuthenticatedRoom";
import { SESSION_ENDED_CLOSE_CODE } from "../../rooms/session-guard";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { leaveRooms } from "../support/rooms";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

/** A room used only here, to show what any subclass receives: options without the token, client.auth. */
class ProbeRoom extends AuthenticatedRoom {
  static seenCreateOptions: unknown[] = [];
  static seenJoinOptions: unknown[] = [];
  static seenAuth: unknown[] = [];
  override onCreate(options: unknown) {
    super.onCreate(options);
    ProbeRoom.seenCreateOptions.push(structuredClone(options));
    this.setMetadata({ mode: "probe" });
  }
  override onJoin(client: PlayerClient, options: unknown) {
    ProbeRoom.seenJoinOptions.push(structuredClone(options));
    ProbeRoom.seenAuth.push(client.auth);
  }
}

async function expectJoinError(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (err: { code?: number; message?: string }) => {
    assert.equal(err.message, code);
    assert.ok(err.code !== undefined && err.code < 500, `status ${err.code}`);
    return true;
  });
}

function waitForLeave(room: Room, ms = 1000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still connected after ${ms} ms`)), ms);
    room.onLeave((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends) {
  describe(`rooms — ${backend.name}`, function () {
    this.timeout(30_000);
    let h: Harness;
    let release: () => Promise<void>;
    let clock = Date.now();
    const rooms: Room[] = [];

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => clock } });
      matchMaker.defineRoomType("probe", ProbeRoom);
    });
    afterEach(async () => {
      await leaveRooms(rooms);
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function login(code = unique("p")) {
      const res = await h.get(`/api/minigame/wechat/login?jsCode=${code}`);
      assert.equal(res.status, 200);
      return res.body.data as { token: string; refreshToken: string; user: { id: string; username: string } };
    }
    async function join(options: Record<string, unknown>, client = new Client(h.baseUrl), name = "lobby") {
      const room = await client.joinOrCreate(name, options);
      rooms.push(room);
      return room;
    }

    it("joins with the accessToken option, with client.auth.token (Bearer), and with the token option", async () => {
      const a = await login();
      const viaOption = await join({ accessToken: a.token });
      assert.ok(viaOption.sessionId);
      const b = await login();
      const sdk = new Client(h.baseUrl);
      sdk.auth.token = b.token;
      const viaBearer = await join({}, sdk);
      assert.ok(viaBearer.sessionId);
      const c = await login();
      assert.ok((await join({ token: c.token })).sessionId);
    });

    it("rejects missing, malformed, other-secret, expired and ended-session tokens with their codes", async () => {
      await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", {}), "token_missing");
      await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: "nope" }), "token_invalid");
      const forged =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiJ4Iiwic2lkIjoieSIsImp0aSI6InoiLCJ1c2VybmFtZSI6IiIsImVtYWlsIjoiIn0.c2lnbmF0dXJl";
      await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: forged }), "token_invalid");
      const ended = await login();
      await h.request("POST", "/api/auth/logout", undefined, { authorization: `Bearer ${ended.token}` });
      await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: ended.token }), "session_revoked");
      const expiring = await login();
      clock += 7201_000;
      try {
        await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: expiring.token }), "token_expired");
      } finally {
        clock -= 7201_000;
      }
    });

    it("gives rooms client.auth and never the token, in options or metadata", async () => {
      const a = await login();
      ProbeRoom.seenCreateOptions = [];
      ProbeRoom.seenJoinOptions = [];
      ProbeRoom.seenAuth = [];
      const room = await join({ accessToken: a.token, token: "also-a-token", color: "red" }, undefined, "probe");
      // The token is gone; `app` is the token's app, set by onAuth for matchmaking (APP_FILTER).
      assert.deepEqual(ProbeRoom.seenCreateOptions, [{ color: "red", app: "default" }]);
      assert.deepEqual(ProbeRoom.seenJoinOptions, [{ color: "red", app: "default" }]);
      const auth = ProbeRoom.seenAuth[0] as Record<string, unknown>;
      assert.equal(auth.userId, a.user.id);
      assert.equal(auth.username, a.user.username);
      assert.equal(typeof auth.sid, "string");
      assert.ok(!JSON.stringify(auth).includes(a.token));
      const listing = await matchMaker.query({ roomId: room.roomId });
      assert.ok(!JSON.stringify(listing).includes(a.token), "no token in the room listing");
      assert.deepEqual(listing[0].metadata, { mode: "probe" });
    });

    it("lists present players and takes the chat sender from the session, not the message", async () => {
      const a = await login();
      const b = await login();
      const roomA = await join({ accessToken: a.token });
      const roomB = await new Client(h.baseUrl).joinById(roomA.roomId, { accessToken: b.token });
      rooms.push(roomB);
      roomB.onMessage("chat", () => undefined);
      await sleep(100);
      const present = [...(roomA.state as any).players.values()].map((p: any) => p.userId).sort();
      assert.deepEqual(present, [a.user.id, b.user.id].sort());

      const received = new Promise<any>((resolve) => roomA.onMessage("chat", resolve));
      roomB.send("chat", { text: "  hello  ", userId: a.user.id, name: "admin" });
      const chat = await received;
      assert.equal(chat.userId, b.user.id);
      assert.equal(chat.name, b.user.username);
      assert.equal(chat.text, "hello");
    });

    it("refuses invalid and flooding chat messages without disconnecting", async () => {
      const a = await login();
      const room = await join({ accessToken: a.token });
      const errors: any[] = [];
      room.onMessage("error", (e) => errors.push(e));
      let chats = 0;
      room.onMessage("chat", () => chats++);
      room.send("chat", { text: "x".repeat(201) });
      room.send("chat", { text: 42 });
      for (let i = 0; i < 8; i++) room.send("chat", { text: `m${i}` });
      // Until the five arrive (a loaded machine takes its time), then a moment for any sixth.
      for (let i = 0; i < 60 && (chats < 5 || !errors.some((e) => e.code === "rate_limited")); i++) await sleep(50);
      await sleep(200);
      assert.equal(chats, 5);
      assert.ok(errors.some((e) => e.code === "invalid_message"));
      assert.ok(errors.some((e) => e.code === "rate_limited"));
      assert.equal(room.connection.isOpen, true);
    });

    it("disconnects the old session's client on logout and on a second login, but not on refresh", async () => {
      const code = unique("kick");
      const first = await login(`${code}.1`);
      const room = await join({ accessToken: first.token });
      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken: first.refreshToken });
      assert.equal(refreshed.status, 200);
      await sleep(300);
      assert.equal(room.connection.isOpen, true, "a refresh keeps the session and the seat");

      const left = waitForLeave(room);
      await login(`${code}.2`);
      assert.equal(await left, SESSION_ENDED_CLOSE_CODE);

      const third = await login(`${code}.3`);
      const room2 = await join({ accessToken: third.token });
      const left2 = waitForLeave(room2);
      await h.request("POST", "/api/auth/logout", undefined, { authorization: `Bearer ${third.token}` });
      assert.equal(await left2, SESSION_ENDED_CLOSE_CODE);
    });

    it("disconnects a user's client when an operator disables the user", async () => {
      const a = await login();
      const room = await join({ accessToken: a.token });
      const left = waitForLeave(room);
      await h.services.accounts.setUserStatus(a.user.id, 2);
      assert.equal(await left, SESSION_ENDED_CLOSE_CODE);
      await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: a.token }), "user_disabled");
    });

    it("accepts a reconnection after a refresh and refuses one after logout", async () => {
      const a = await login();
      const room = await join({ accessToken: a.token });
      const token = room.reconnectionToken;
      await room.leave(false); // a dropped connection, not a consented leave
      const refreshed = await h.request("POST", "/api/auth/refresh", { refreshToken: a.refreshToken });
      const back = await new Client(h.baseUrl).reconnect(token);
      rooms.push(back);
      assert.equal(back.roomId, room.roomId);

      const againToken = back.reconnectionToken;
      await back.leave(false);
      await h.request("POST", "/api/auth/logout", undefined, { authorization: `Bearer ${refreshed.body.data.token}` });
      await sleep(100);
      await assert.rejects(new Client(h.baseUrl).reconnect(againToken));
    });

    it("kicks players who joined or came back after the room last told the guard whom it holds", async () => {
      const resident = await login();
      const lobby = await join({ accessToken: resident.token });
      const bystander = unique("bystander");
      let bystanderLogins = 0;
      // Another player's session change makes every room answer whom it holds (and remember it).
      const askTheRooms = async () => {
        await login(`${bystander}.${++bystanderLogins}`);
        await sleep(50);
      };
      await askTheRooms();
      await askTheRooms();

      const newcomer = await login();
      const joined = await new Client(h.baseUrl).joinById(lobby.roomId, { accessToken: newcomer.token });
      rooms.push(joined);
      assert.equal(joined.roomId, lobby.roomId);
      await askTheRooms();
      const kicked = waitForLeave(joined);
      await h.request("POST", "/api/auth/logout", undefined, { authorization: `Bearer ${newcomer.token}` });
      assert.equal(await kicked, SESSION_ENDED_CLOSE_CODE, "a newcomer's ended session closes its seat");

      const returning = await login();
      const seat = await new Client(h.baseUrl).joinById(lobby.roomId, { accessToken: returning.token });
      rooms.push(seat);
      const reconnectionToken = seat.reconnectionToken;
      await seat.leave(false); // dropped: the room waits for it
      await askTheRooms();
      const back = await new Client(h.baseUrl).reconnect(reconnectionToken);
      rooms.push(back);
      await askTheRooms();
      const kickedBack = waitForLeave(back);
      await h.request("POST", "/api/auth/logout", undefined, { authorization: `Bearer ${returning.token}` });
      assert.equal(await kickedBack, SESSION_ENDED_CLOSE_CODE, "a reconnected player's ended session closes its seat");
      assert.equal(lobby.connection.isOpen, true, "the resident stays");
    });

    it("authenticates a matchmaking retry of the same request, whose options no longer hold the token", async () => {
      const a = await login();
      const options: Record<string, unknown> = { accessToken: a.token };
      const context = { headers: new Headers(), ip: "127.0.0.1" };
      const first = await ProbeRoom.onAuth(undefined, options, context);
      assert.equal("accessToken" in options, false);
      const retried = await ProbeRoom.onAuth(undefined, options, context);
      assert.deepEqual(retried, first);
      await assert.rejects(ProbeRoom.onAuth(undefined, {}, context), /token_missing/);
    });

    it("lets 100 clients with valid tokens join at once", async () => {
      const sessions = await Promise.all(Array.from({ length: 100 }, () => login()));
      const joined = await Promise.all(sessions.map((s) => join({ accessToken: s.token })));
      assert.equal(joined.length, 100);
      assert.ok(joined.every((r) => r.sessionId));
    });
  });
}

describe("room matchmaking limits", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { RATE_LIMIT_USER_MAX: "2" } });
  });
  after(() => h?.close());

  it("refuses a user's matchmaking requests past the per-user limit with rate_limited", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("mm")}`);
    const token = login.body.data.token;
    const joined: Room[] = [];
    for (let i = 0; i < 2; i++) joined.push(await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token }));
    await expectJoinError(new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token }), "rate_limited");
    await Promise.all(joined.map((r) => r.leave()));
  });
});

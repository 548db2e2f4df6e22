/**
 * Issue 11, the account and room half: one password budget per account, case-insensitive
 * usernames and emails, one seat per player per room, and the text rule for names, avatars and
 * chat. Real HTTP and real colyseus.js clients, on every configured backend.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { SEAT_REPLACED_CLOSE_CODE } from "../../rooms/AuthenticatedRoom";
import { useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { leaveRooms } from "../support/rooms";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const ACCOUNT_MAX = 4;

/** Resolves with the close code once the room's connection closes. */
function closeCode(room: Room): Promise<number> {
  return new Promise((resolve) => room.onLeave((code) => resolve(code)));
}

async function until(condition: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(20);
  }
}

for (const backend of backends) {
  describe(`account and room abuse — ${backend.name}`, function () {
    this.timeout(30_000);
    const h = useHarness(backend, {
      env: { RATE_LIMIT_ACCOUNT_MAX: String(ACCOUNT_MAX), RATE_LIMIT_ACCOUNT_WINDOW_SEC: "60", RATE_LIMIT_IP_MAX: "10000" },
    });
    const rooms: Room[] = [];

    afterEach(async () => {
      await leaveRooms(rooms);
    });

    async function register(username: string, email: string, password = "right password") {
      const res = await h.request("POST", "/api/auth/register", { username, email, password });
      return res;
    }
    const login = (body: Record<string, string>) => h.request("POST", "/api/auth/login", body);

    describe("password budget", () => {
      it("is one budget per account across username, email, letter case and the password-change route", async () => {
        const name = unique("Budget");
        const registered = await register(name, `${name}@example.com`);
        assert.equal(registered.status, 201);
        const token = registered.body.data.token as string;

        const guesses = [
          await login({ username: name.toLowerCase(), password: "wrong 1" }),
          await login({ username: name.toUpperCase(), password: "wrong 2" }),
          await login({ email: `${name}@Example.com`, password: "wrong 3" }),
          await h.request("PUT", "/api/users/me/password", { currentPassword: "wrong 4", newPassword: "another password" }, bearer(token)),
        ];
        assert.deepEqual(
          guesses.map((g) => g.status),
          [401, 401, 401, 401],
        );
        const fifth = await login({ username: name, password: "right password" });
        assert.equal(fifth.status, 429, "the fifth guess at one account, whatever the route, is over the budget");
        assert.equal(fifth.body.data.code, "rate_limited");
        const viaRoute = await h.request("PUT", "/api/users/me/password", { currentPassword: "right password", newPassword: "another password" }, bearer(token));
        assert.equal(viaRoute.status, 429);
      });

      it("limits guesses at an unknown identifier too, without touching a real account's budget", async () => {
        const ghost = unique("ghost");
        const statuses = [];
        for (let i = 0; i <= ACCOUNT_MAX; i++) statuses.push((await login({ username: i % 2 ? ghost.toUpperCase() : ghost, password: "x" })).status);
        assert.deepEqual(statuses, [...Array(ACCOUNT_MAX).fill(401), 429]);

        const name = unique("Real");
        assert.equal((await register(name, `${name}@example.com`)).status, 201);
        for (let i = 0; i < ACCOUNT_MAX - 1; i++) assert.equal((await login({ username: name, password: "wrong" })).status, 401);
        assert.equal((await login({ email: `${name}@example.com`, password: "right password" })).status, 200);
      });
    });

    describe("case-insensitive accounts", () => {
      it("keeps Alice, alice and ALICE one account, with the display form as registered", async () => {
        const name = unique("Alice");
        const first = await register(name, `${name}@example.com`);
        assert.equal(first.status, 201);
        assert.equal(first.body.data.user.username, name);
        for (const variant of [name.toLowerCase(), name.toUpperCase()]) {
          const again = await register(variant, `${unique("other")}@example.com`);
          assert.equal(again.status, 409, variant);
          assert.equal(again.body.data.code, "account_exists");
        }
        const sameEmail = await register(unique("Bob"), `${name.toUpperCase()}@EXAMPLE.COM`);
        assert.equal(sameEmail.status, 409);

        const loggedIn = await login({ username: name.toUpperCase(), password: "right password" });
        assert.equal(loggedIn.status, 200);
        assert.equal(loggedIn.body.data.user.id, first.body.data.user.id);
        assert.equal(loggedIn.body.data.user.username, name);
        const byEmail = await login({ email: `${name.toUpperCase()}@example.com`, password: "right password" });
        assert.equal(byEmail.body.data.user.id, first.body.data.user.id);
      });

      it("still logs platform users in with their generated usernames", async () => {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=${unique("ci")}`);
        assert.equal(res.status, 200);
        assert.match(res.body.data.user.username, /^mg_wechat_/);
      });
    });

    describe("text rule", () => {
      async function platformSession() {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=${unique("txt")}`);
        assert.equal(res.status, 200);
        return res.body.data as { token: string; user: { id: string; version: number } };
      }

      it("refuses nicknames with controls, bidi overrides and invisible characters, and unsafe avatars, with 400 invalid_request", async () => {
        const s = await platformSession();
        const refused: Record<string, unknown>[] = [
          { nickname: "evil\u202Egnp.exe" },
          { nickname: "iso\u2066late\u2069" },
          { nickname: "two\nlines" },
          { nickname: "tab\there" },
          { nickname: "nul\u0000byte" },
          { nickname: "c1\u0085char" },
          { nickname: "zero\u200Bwidth" },
          { nickname: "\u3164" },
          { avatar: "https://x/<img src=x onerror=alert(1)>" },
          { avatar: "https://cdn.example.com/a b.png" },
          { avatar: 'https://cdn.example.com/a".png' },
          { avatar: "https://cdn.example.com/a'.png" },
          { avatar: "https://cdn.example.com/\u0007.png" },
          { avatar: "http://cdn.example.com/a.png" },
          { avatar: "javascript:alert(1)" },
        ];
        for (const change of refused) {
          const res = await h.request("PATCH", "/api/users/me", { ...change, version: s.user.version }, bearer(s.token));
          assert.equal(res.status, 400, JSON.stringify(change));
          assert.equal(res.body.data.code, "invalid_request");
        }
        const accepted = await h.request(
          "PATCH",
          "/api/users/me",
          { nickname: "小明 👨\u200D👩\u200D👧", avatar: "https://cdn.example.com/avatars/42.png?size=64", version: s.user.version },
          bearer(s.token),
        );
        assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
        assert.equal(accepted.body.data.nickname, "小明 👨\u200D👩\u200D👧");
      });

      it("refuses the same characters in lobby chat with invalid_message, and broadcasts clean text", async () => {
        const s = await platformSession();
        const room = await new Client(h.baseUrl).create("lobby", { accessToken: s.token });
        rooms.push(room);
        const errors: { code: string }[] = [];
        const chats: { text: string }[] = [];
        room.onMessage("error", (e) => errors.push(e));
        room.onMessage("chat", (c) => chats.push(c));
        room.send("chat", { text: "\u202Eevil" });
        room.send("chat", { text: "two\nlines" });
        room.send("chat", { text: "hi\u200B" });
        room.send("chat", { text: "hello 👨\u200D👩\u200D👧" });
        room.send("chat", { text: "trimmed like a nickname\n" });
        await until(() => chats.length + errors.length >= 5);
        assert.deepEqual(
          errors.map((e) => e.code),
          ["invalid_message", "invalid_message", "invalid_message"],
        );
        assert.deepEqual(
          chats.map((c) => c.text),
          ["hello 👨\u200D👩\u200D👧", "trimmed like a nickname"],
        );
      });
    });

    describe("one seat per player per room", () => {
      async function platformSession() {
        const res = await h.get(`/api/minigame/wechat/login?jsCode=${unique("seat")}`);
        assert.equal(res.status, 200);
        return res.body.data as { token: string; user: { id: string } };
      }

      it("leaves one seat after 50 joins by one player, closing the first with the seat-replaced code", async () => {
        const a = await platformSession();
        const b = await platformSession();
        const first = await new Client(h.baseUrl).create("lobby", { accessToken: a.token });
        rooms.push(first);
        const firstClosed = closeCode(first);
        const other = await new Client(h.baseUrl).joinById(first.roomId, { accessToken: b.token });
        rooms.push(other);
        let otherClosed = false;
        other.onLeave(() => (otherClosed = true));

        const settled = await Promise.allSettled(
          Array.from({ length: 49 }, () => new Client(h.baseUrl).joinById(first.roomId, { accessToken: a.token })),
        );
        const joined = settled.filter((r): r is PromiseFulfilledResult<Room> => r.status === "fulfilled").map((r) => r.value);
        rooms.push(...joined);
        assert.equal(await firstClosed, SEAT_REPLACED_CLOSE_CODE);

        await until(() => joined.filter((r) => r.connection.isOpen).length === 1);
        const playersOf = (userId: string) => [...(other.state as any).players.values()].filter((p: any) => p.userId === userId).length;
        await until(() => playersOf(a.user.id) === 1);
        assert.equal(playersOf(b.user.id), 1);
        await sleep(200);
        assert.equal(joined.filter((r) => r.connection.isOpen).length, 1, "exactly one seat is left");
        assert.equal(other.connection.isOpen, true, "another player keeps their seat");
        assert.equal(otherClosed, false);

        // The player is still logged in: the token still works.
        assert.equal((await h.get("/api/users/me", bearer(a.token))).status, 200);
      });

      it("does not let a dropped seat waiting for reconnection come back once the player joined again", async () => {
        const a = await platformSession();
        const dropped = await new Client(h.baseUrl).create("lobby", { accessToken: a.token });
        const reconnectionToken = dropped.reconnectionToken;
        await dropped.leave(false); // a lost connection: the server keeps the seat for a reconnection
        await sleep(100);

        const again = await new Client(h.baseUrl).joinById(dropped.roomId, { accessToken: a.token });
        rooms.push(again);
        await sleep(100);
        await assert.rejects(new Client(h.baseUrl).reconnect(reconnectionToken));
        await sleep(100);
        assert.equal(again.connection.isOpen, true);
        const players = [...(again.state as any).players.values()].filter((p: any) => p.userId === a.user.id);
        assert.equal(players.length, 1);
      });
    });
  });
}

/**
 * Leaderboards end to end (issue 37): the real app on each backend, real colyseus.js clients. A
 * match room's results land on `highscores`; the HTTP routes' contract (403 client_submit_disabled,
 * 400 score_out_of_bounds, the per-player rate, 404 no_record, pages with a cursor, around-me,
 * userIds=, period=previous after a reset); a tournament's join and size.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { MatchRoom } from "../../rooms/MatchRoom";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends } from "../support/backends";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";
import { leaveRooms } from "../support/rooms";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const BOARDS = {
  default: [
    { id: "highscores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1000, clientSubmitsPerMinute: 5 },
    { id: "server-only", order: "asc", operator: "best" },
    { id: "cup", operator: "increment", clientSubmit: true, tournament: { startsAt: "2020-01-01T00:00:00Z", endsAt: "2099-01-01T00:00:00Z", joinRequired: true, maxSize: 2 } },
  ],
};

for (const backend of storeBackends) {
  describe(`leaderboards — ${backend.name}`, function () {
    this.timeout(60_000);
    let h: Harness;
    let release: () => Promise<void>;
    const rooms: Room[] = [];

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-boards-")), "leaderboards.json");
      fs.writeFileSync(file, JSON.stringify(BOARDS));
      h = await startHarness({ env: { ...prepared.env, LEADERBOARDS_FILE: file } });
      matchMaker.defineRoomType("match", MatchRoom);
    });
    afterEach(() => leaveRooms(rooms));
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function login(): Promise<{ token: string; user: { id: string; username: string } }> {
      const wechat = platformDefinitions.find((p) => p.name === "wechat")!;
      const res = await h.get(loginPath(wechat, `${freshPlayer("lb")}.1`));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    }
    const get = (p: { token: string }, url: string) => h.get(url, bearer(p.token));
    const submit = (p: { token: string }, board: string, body: unknown) => h.request("POST", `/api/leaderboards/${board}/scores`, body, bearer(p.token));

    it("a match room's results fill highscores: ranks, names, the player's own record", async () => {
      const [alice, bob] = [await login(), await login()];
      const a = await new Client(h.baseUrl).joinOrCreate("match", { accessToken: alice.token });
      rooms.push(a);
      const b = await new Client(h.baseUrl).joinById(a.roomId, { accessToken: bob.token });
      rooms.push(b);
      let done = false;
      for (const r of [a, b]) {
        r.onMessage("points", () => undefined);
        r.onMessage("results", () => (done = true));
      }
      for (let i = 0; i < 7; i++) a.send("hit");
      for (let i = 0; i < 4; i++) b.send("hit");
      await sleep(150);
      a.send("finish");
      for (let i = 0; !done && i < 200; i++) await sleep(25);
      assert.ok(done, "results arrived");
      const ids = new Set([alice.user.id, bob.user.id]);
      const page = await get(alice, `/api/leaderboards/highscores/records?userIds=${alice.user.id},${bob.user.id}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      const mine = page.body.data.records.filter((r: { userId: string }) => ids.has(r.userId));
      assert.deepEqual(mine.map((r: { userId: string; score: number; name: string }) => [r.userId, r.score, r.name]), [
        [alice.user.id, 7, alice.user.username],
        [bob.user.id, 4, bob.user.username],
      ]);
      assert.ok(mine[0].rank < mine[1].rank);
      const me = await get(bob, "/api/leaderboards/highscores/me");
      assert.deepEqual([me.status, me.body.data.score, me.body.data.rank], [200, 4, mine[1].rank]);
    });

    it("refuses client scores where the board does not allow them, out of bounds, or too often", async () => {
      const p = await login();
      const refused = await submit(p, "server-only", { score: 1 });
      assert.deepEqual([refused.status, refused.body.data.code], [403, "client_submit_disabled"]);
      const high = await submit(p, "highscores", { score: 1001 });
      assert.deepEqual([high.status, high.body.data.code], [400, "score_out_of_bounds"]);
      const fraction = await submit(p, "highscores", { score: 1.5 });
      assert.deepEqual([fraction.status, fraction.body.data.code], [400, "invalid_request"]);
      const unknown = await submit(p, "nope", { score: 1 });
      assert.deepEqual([unknown.status, unknown.body.data.code], [404, "board_not_found"]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await submit(p, "highscores", { score: 10 + i })).status);
      assert.deepEqual(statuses.slice(0, 4), [200, 200, 200, 200]);
      assert.equal(statuses[5], 429);
    });

    it("answers 404 no_record for a player without one, pages the top with a cursor and reads around the player", async () => {
      const players = await Promise.all(Array.from({ length: 7 }, () => login()));
      const board = "highscores";
      const none = await get(players[0], `/api/leaderboards/${board}/me`);
      assert.deepEqual([none.status, none.body.data.code], [404, "no_record"]);
      const around404 = await get(players[0], `/api/leaderboards/${board}/records/around-me`);
      assert.equal(around404.status, 404);
      for (const [i, p] of players.entries()) assert.equal((await submit(p, board, { score: 900 + i })).status, 200);
      const first = await get(players[0], `/api/leaderboards/${board}/records?limit=3`);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.data.records.map((r: { score: number }) => r.score), [906, 905, 904]);
      assert.deepEqual(first.body.data.records.map((r: { rank: number }) => r.rank), [1, 2, 3]);
      const second = await get(players[0], `/api/leaderboards/${board}/records?limit=3&cursor=${first.body.data.next}`);
      assert.deepEqual(second.body.data.records.map((r: { score: number; rank: number }) => [r.rank, r.score]), [[4, 903], [5, 902], [6, 901]]);
      const bad = await get(players[0], `/api/leaderboards/${board}/records?cursor=notacursor`);
      assert.deepEqual([bad.status, bad.body.data.code], [400, "invalid_request"]);
      const around = await get(players[3], `/api/leaderboards/${board}/records/around-me?limit=3`);
      assert.deepEqual(around.body.data.records.map((r: { score: number }) => r.score), [904, 903, 902]);
      const me = await get(players[3], `/api/leaderboards/${board}/me`);
      assert.deepEqual([me.body.data.rank, me.body.data.score], [4, 903]);
    });

    it("a player who deletes their account leaves no record on any board, nor in the ranks others read", async () => {
      const [gone, stays] = [await login(), await login()];
      await h.services.leaderboards.submit("default", gone.user.id, "server-only", 77);
      await h.services.leaderboards.submit("default", stays.user.id, "server-only", 5);
      assert.equal((await submit(gone, "highscores", { score: 999 })).status, 200);
      assert.equal((await h.request("DELETE", "/api/users/me", undefined, bearer(gone.token))).status, 200);
      assert.deepEqual(await h.services.leaderboards.recordsOf("default", gone.user.id), []);
      const top = await get(stays, "/api/leaderboards/server-only/records?limit=100");
      assert.ok(!top.body.data.records.some((r: { userId: string }) => r.userId === gone.user.id), "the erased player still ranks");
      assert.equal((await get(stays, "/api/leaderboards/server-only/me")).body.data.score, 5);
    });

    it("keeps the last period as previous after a manual reset", async () => {
      const p = await login();
      await h.services.leaderboards.submit("default", p.user.id, "server-only", 42);
      const before = await get(p, "/api/leaderboards/server-only/me");
      assert.equal(before.body.data.score, 42);
      await h.services.leaderboards.reset("default", "server-only", "test");
      assert.equal((await get(p, "/api/leaderboards/server-only/me")).status, 404);
      const previous = await get(p, "/api/leaderboards/server-only/me?period=previous");
      assert.deepEqual([previous.status, previous.body.data.score, previous.body.data.period.seq], [200, 42, before.body.data.period.seq]);
    });

    it("a tournament needs a join and seats at most its size", async () => {
      const [a, b, c] = [await login(), await login(), await login()];
      const early = await submit(a, "cup", { score: 1 });
      assert.deepEqual([early.status, early.body.data.code], [403, "tournament_join_required"]);
      for (const p of [a, b]) assert.equal((await h.request("POST", "/api/leaderboards/cup/join", {}, bearer(p.token))).status, 200);
      const full = await h.request("POST", "/api/leaderboards/cup/join", {}, bearer(c.token));
      assert.deepEqual([full.status, full.body.data.code], [409, "tournament_full"]);
      await submit(a, "cup", { score: 3 });
      const added = await submit(a, "cup", { score: 4 });
      assert.deepEqual([added.status, added.body.data.score, added.body.data.rank], [200, 7, 1]);
      const list = await get(a, "/api/leaderboards");
      assert.deepEqual(list.body.data.boards.map((x: { id: string }) => x.id), ["highscores", "server-only", "cup"]);
    });
  });
}

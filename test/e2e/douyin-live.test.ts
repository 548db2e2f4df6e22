/**
 * Douyin live-stream games end to end, on every store backend: the simulator plays Douyin (streamer
 * token, webcastmate/info, tasks, signed pushes with duplicates and lost likes, failed data), the
 * server's push route and the `douyin_live` room. Every gift reaches the room once; refused pushes
 * deliver nothing; gifts pushed while the receiver was unreachable come back from the failed-data
 * query; two streamers never see each other's viewers.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { signLivePush } from "../../src/platforms/douyin/douyin-live";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { freePort, startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { Conformance } from "../support/openapi-conformance";
import { leaveRooms } from "../support/rooms";

const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits (up to 10 s) until `done()`, then a little longer so that anything extra would have arrived too. */
async function settled(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await sleep(100);
  await sleep(300);
}

interface Seen {
  gift: Array<{ msgId: string; secOpenid: string }>;
  comment: Array<{ msgId: string; secOpenid: string }>;
  like: Array<{ msgId: string; secOpenid: string }>;
}

for (const backend of backends) {
  describe(`douyin live — ${backend.name}`, function () {
    this.timeout(60_000);
    let h: Harness;
    let simulator: RunningSimulator;
    let conformance: Conformance;
    let release: () => Promise<void>;
    const rooms: Room[] = [];
    const sim = (path: string, body: unknown) => fetch(`${h.simulator.url}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

    async function launch(name: string): Promise<{ room: Room; seen: Seen; liveRoomId: string }> {
      const { token, roomId } = await sim("streamer", { name });
      const res = conformance.check("POST", "/api/douyin-live/sessions", await h.request("POST", "/api/douyin-live/sessions", { token }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.live_room_id, roomId);
      assert.deepEqual(res.body.data.tasks, ["live_comment", "live_gift", "live_like"]);
      const room = await new Client(h.baseUrl).joinOrCreate("douyin_live", { liveRoomId: roomId, ticket: res.body.data.ticket });
      rooms.push(room);
      const seen: Seen = { gift: [], comment: [], like: [] };
      for (const type of ["gift", "comment", "like"] as const) room.onMessage(type, (m: { msgId: string; secOpenid: string }) => seen[type].push(m));
      room.onMessage("*", () => undefined);
      return { room, seen, liveRoomId: roomId };
    }

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      simulator = await startSimulator({ port: 0 });
      h = await startHarness({
        env: {
          ...prepared.env,
          DOUYIN_LIVE_ENABLED: "true",
          DOUYIN_LIVE_SECRET_COMMENT: SECRETS.live_comment,
          DOUYIN_LIVE_SECRET_GIFT: SECRETS.live_gift,
          DOUYIN_LIVE_SECRET_LIKE: SECRETS.live_like,
          DOUYIN_LIVE_API_BASE_URL: simulator.url,
        },
        simulator,
      });
    });
    beforeEach(async () => {
      await sim("register", { url: `${h.baseUrl}/api/douyin-live/push`, secrets: SECRETS });
      if (!conformance) conformance = new Conformance((await h.get("/api-docs.json")).body);
    });
    after(async () => {
      await leaveRooms(rooms);
      await h?.close();
      await simulator?.close();
      await release?.();
    });

    it("delivers every gift once through duplicates, comments and likes at most once, and keeps two streamers apart", async () => {
      const a = await launch("streamer-a");
      const b = await launch("streamer-b");
      const [ra, rb] = await Promise.all([
        sim("emit", { roomId: a.liveRoomId, gifts: 60, comments: 40, likes: 20, ratePerSec: 100, duplicateRate: 0.2, lostLikeRate: 0.3 }),
        sim("emit", { roomId: b.liveRoomId, gifts: 20, ratePerSec: 100, duplicateRate: 0.2 }),
      ]);
      assert.equal(ra.failed + rb.failed, 0);
      assert.ok(ra.duplicates > 0, "the simulator sent duplicates");
      await settled(() => a.seen.gift.length >= ra.giftIds.length && b.seen.gift.length >= rb.giftIds.length && a.seen.comment.length >= 40 && a.seen.like.length >= 20 - ra.lostLikes);
      assert.deepEqual(a.seen.gift.map((g) => g.msgId).sort(), [...ra.giftIds].sort(), "each of A's gifts exactly once");
      assert.deepEqual(b.seen.gift.map((g) => g.msgId).sort(), [...rb.giftIds].sort());
      assert.equal(new Set(a.seen.comment.map((c) => c.msgId)).size, a.seen.comment.length);
      assert.equal(a.seen.comment.length, 40);
      assert.equal(a.seen.like.length, 20 - ra.lostLikes);
      assert.ok([...a.seen.gift, ...a.seen.comment].every((m) => m.secOpenid.includes(a.liveRoomId)), "no viewer of B in A's room");
      assert.ok(b.seen.gift.every((m) => m.secOpenid.includes(b.liveRoomId)));
    });

    it("a second room refused for a live room another room serves leaves that room's push tasks running", async () => {
      const a = await launch("streamer-refused");
      await assert.rejects(new Client(h.baseUrl).create("douyin_live", { liveRoomId: a.liveRoomId }), /another room already serves/);
      await settled(() => true);
      const detail = await h.services.douyinLive!.monitor.room(a.liveRoomId);
      assert.deepEqual(detail?.taskStatus.map((t) => t.status), ["running", "running", "running"], "the refused room stopped no task");
      const report = await sim("emit", { roomId: a.liveRoomId, gifts: 5, ratePerSec: 100 });
      assert.equal(report.giftIds.length, 5, "Douyin still pushes to the room");
      await settled(() => a.seen.gift.length >= 5);
      assert.deepEqual(a.seen.gift.map((g) => g.msgId).sort(), [...report.giftIds].sort());
    });

    it("refuses forged, wrongly keyed, stale and non-array pushes before any work", async () => {
      const { seen, liveRoomId } = await launch("streamer-c");
      const gift = JSON.stringify([{ msg_id: "forged-1", sec_openid: "x", sec_gift_id: "g", gift_num: 1, gift_value: 100000 }]);
      const post = (headers: Record<string, string>, body: string) => fetch(`${h.baseUrl}/api/douyin-live/push`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      const cases: Array<[string, Record<string, string>, string, number]> = [
        ["forged", { ...signLivePush("guess", liveRoomId, "live_gift", gift, Date.now()) }, gift, 401],
        ["comment secret on a gift", signLivePush(SECRETS.live_comment, liveRoomId, "live_gift", gift, Date.now()), gift, 401],
        ["stale", signLivePush(SECRETS.live_gift, liveRoomId, "live_gift", gift, Date.now() - 3600_000), gift, 400],
        ["object body", signLivePush(SECRETS.live_gift, liveRoomId, "live_gift", gift.slice(1, -1), Date.now()), gift.slice(1, -1), 400],
        ["huge", signLivePush(SECRETS.live_gift, liveRoomId, "live_gift", " ".repeat(300_000) + gift, Date.now()), " ".repeat(300_000) + gift, 413],
      ];
      for (const [what, headers, body, status] of cases) {
        const res = await post(headers, body);
        conformance.check("POST", "/api/douyin-live/push", { status: res.status, body: await res.json(), headers: res.headers });
        assert.equal(res.status, status, what);
      }
      const expired = await h.request("POST", "/api/douyin-live/sessions", { token: "not-a-launch-token" });
      conformance.check("POST", "/api/douyin-live/sessions", expired);
      assert.equal(expired.status, 401);
      assert.equal(expired.body.data.code, "live_token_invalid");
      await sleep(300);
      assert.deepEqual(seen.gift, []);
      assert.deepEqual(await h.services.douyinLive!.sessions.roundEntries(liveRoomId, 0), []);
    });

    it("recovers gifts pushed while the receiver was unreachable from the failed-data query", async () => {
      const { seen, liveRoomId } = await launch("streamer-d");
      await sim("register", { url: `http://127.0.0.1:${await freePort()}/down`, secrets: SECRETS });
      const lost = await sim("emit", { roomId: liveRoomId, gifts: 15, ratePerSec: 100 });
      assert.equal(lost.failed, 15);
      await sim("register", { url: `${h.baseUrl}/api/douyin-live/push`, secrets: SECRETS });
      // 10 failures in a row opened Douyin's circuit: these are not pushed either, they wait in the failed data.
      const later = await sim("emit", { roomId: liveRoomId, gifts: 5, ratePerSec: 100 });
      assert.equal(later.failed, 5);
      assert.equal(await h.services.douyinLive!.sessions.pollFailedData(liveRoomId), 20);
      await settled(() => seen.gift.length >= 20);
      assert.deepEqual(seen.gift.map((g) => g.msgId).sort(), [...lost.giftIds, ...later.giftIds].sort());
    });
  });
}

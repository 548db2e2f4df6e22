/**
 * The Douyin live service on a real ledger (every store) with two intakes standing for two receiver
 * processes sharing the ledger and the cache: every gift reaches its room exactly once through
 * duplicates and both processes, two streamers never see each other's viewers, gifts missed during an
 * outage come back from the failed-data query (its cursor not repeated after a restart), and messages
 * for a room not yet bound wait for it.
 */
import assert from "node:assert/strict";
import pino from "pino";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { createLiveGiftLedger, type ClosableLiveGiftLedger } from "../../src/adapters/store/create-live-gift-ledger";
import type { LiveMessage } from "../../src/platforms/douyin/douyin-live";
import type { FailedDataPage } from "../../src/platforms/douyin/douyin-live-client";
import { LiveIntake } from "../../src/services/douyin-live/live-intake";
import type { DouyinLiveApi, LiveRoomMessage } from "../../src/services/douyin-live/live-ports";
import { DouyinLiveSessions } from "../../src/services/douyin-live/live-sessions";
import { storeImplementations } from "../support/store-configs";

const logger = pino({ level: "silent" });
let seq = 0;
const gift = (viewer: string, value = 10): Extract<LiveMessage, { type: "gift" }> => ({
  type: "gift",
  msgId: `g-${Date.now().toString(36)}-${++seq}`,
  secOpenid: viewer,
  nickname: viewer,
  avatarUrl: "",
  timestamp: 0,
  secGiftId: "rose",
  giftNum: 1,
  giftValue: value,
  test: false,
});
const comment = (viewer: string): LiveMessage => ({ type: "comment", msgId: `c-${++seq}`, secOpenid: viewer, nickname: viewer, avatarUrl: "", timestamp: 0, content: "1" });

/** A fake webcast API: two live rooms by launch token, and failed data served from a list. */
function fakeApi(failed: Map<string, unknown[]>): DouyinLiveApi & { started: string[]; stopped: string[]; failedPagesRead: string[] } {
  const api = {
    started: [] as string[],
    stopped: [] as string[],
    failedPagesRead: [] as string[],
    liveInfo: async (_t: string, launch: string) => ({ roomId: launch === "streamer-a" ? "9001" : "9002", anchorOpenId: `anchor-${launch}`, nickName: launch, avatarUrl: "" }),
    startTask: async (_t: string, room: string, type: string) => (api.started.push(`${room}:${type}`), "task"),
    stopTask: async (_t: string, room: string, type: string) => void api.stopped.push(`${room}:${type}`),
    taskStatus: async () => "running" as const,
    failedData: async (_t: string, room: string, type: string, page: number, size = 100): Promise<FailedDataPage> => {
      api.failedPagesRead.push(`${type}:${page}`);
      const all = type === "live_gift" ? (failed.get(room) ?? []) : [];
      const items = all.slice((page - 1) * size, page * size).map((payload) => ({ msgType: "live_gift", payload }));
      return { pageNum: page, totalCount: all.length, items };
    },
    topGift: async () => [],
    syncRoundStatus: async () => undefined,
    ack: async () => undefined,
  };
  return api;
}

for (const impl of storeImplementations("live-intake")) {
  describe(`Douyin live intake and sessions: ${impl.name}`, function () {
    this.timeout(30_000);
    let ledger: ClosableLiveGiftLedger;
    let release: () => Promise<void>;
    let cache: MemoryCache;
    let rooms: Map<string, LiveRoomMessage[]>;
    let intakes: LiveIntake[];
    let sessions: DouyinLiveSessions;
    let failed: Map<string, unknown[]>;
    let api: ReturnType<typeof fakeApi>;

    /** Live rooms whose game room has no client now (the game reconnecting, or its process dead): nothing is taken. */
    let away: Set<string>;
    // As the game room does: what reaches a client is kept, and its gifts and fan-club events confirmed.
    const delivery = {
      deliver: async (room: string, messages: LiveRoomMessage[]) => {
        if (away.has(room)) return;
        (rooms.get(room) ?? rooms.set(room, []).get(room)!).push(...messages);
        await intakes[0].confirmDelivered(messages.filter((m) => m.type === "gift" || m.type === "fansclub").map((m) => m.msgId));
      },
    };
    const options = { pendingMs: 60_000, maxQueued: 10_000, redeliverAfterMs: 60_000, seenTtlMs: 600_000 };
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 10));
      for (let i = 0; i < 200 && intakes.some((x) => x.busy); i++) await new Promise((r) => setTimeout(r, 10));
    };

    beforeEach(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      ledger = await createLiveGiftLedger(prepared.config);
      cache = new MemoryCache();
      rooms = new Map();
      away = new Set();
      failed = new Map();
      api = fakeApi(failed);
      intakes = [new LiveIntake(ledger, cache, delivery, logger, options), new LiveIntake(ledger, cache, delivery, logger, options)];
      const settings = { msgTypes: ["live_comment", "live_gift", "live_like", "live_fansclub"] as const, topGiftIds: [], bindingTtlMs: 60_000, failedDataPageSize: 3 };
      sessions = new DouyinLiveSessions(api, (call) => call("app-token"), ledger, intakes[0], cache, logger, settings);
    });
    afterEach(async () => {
      await ledger?.close();
      await release?.();
    });

    it("delivers every gift once across duplicates pushed to two processes, and never to another streamer's room", async () => {
      const a = await sessions.start("streamer-a");
      const b = await sessions.start("streamer-b");
      assert.deepEqual([a.liveRoomId, b.liveRoomId], ["9001", "9002"]);
      assert.equal(api.started.length, 8);
      await sessions.bind("9001", "room-a");
      await sessions.bind("9002", "room-b");
      const giftsA = Array.from({ length: 30 }, (_, i) => gift(`viewer-a${i % 3}`));
      const giftsB = Array.from({ length: 10 }, () => gift("viewer-b"));
      await Promise.all([
        intakes[0].accept("9001", "live_gift", giftsA),
        intakes[1].accept("9001", "live_gift", giftsA), // the same push, to the other process
        intakes[1].accept("9001", "live_gift", giftsA.slice(0, 5)), // and a duplicate batch
        intakes[0].accept("9002", "live_gift", giftsB),
        intakes[1].accept("9002", "live_gift", giftsB),
      ]);
      await settle();
      const gotA = rooms.get("9001")!.map((m) => m.msgId).sort();
      assert.deepEqual(gotA, giftsA.map((g) => g.msgId).sort(), "each of A's gifts exactly once");
      assert.ok(rooms.get("9001")!.every((m) => m.secOpenid.startsWith("viewer-a")));
      assert.deepEqual(rooms.get("9002")!.map((m) => m.msgId).sort(), giftsB.map((g) => g.msgId).sort());
      assert.deepEqual(await ledger.undelivered("9001", 100), []);
    });

    it("delivers a comment once across both processes", async () => {
      await sessions.bind("9001", "room-a");
      const c = comment("v");
      await Promise.all([intakes[0].accept("9001", "live_comment", [c]), intakes[1].accept("9001", "live_comment", [c])]);
      await settle();
      assert.equal(rooms.get("9001")!.length, 1);
    });

    it("holds messages for a live room whose game room is not bound yet, and delivers held gifts when it binds", async () => {
      const g = gift("early");
      await intakes[0].accept("9001", "live_gift", [g]);
      await settle();
      assert.equal(rooms.get("9001"), undefined);
      await sessions.bind("9001", "room-a");
      assert.deepEqual(rooms.get("9001")!.map((m) => m.msgId), [g.msgId]);
      await intakes[0].sweep();
      await settle();
      assert.equal(rooms.get("9001")!.length, 1, "the held copy is not delivered again");
    });

    it("a gift sent while the game room has no client stays undelivered, and reaches the game when it joins again", async () => {
      await sessions.bind("9001", "room-a");
      away.add("9001");
      const g = gift("while-away");
      await intakes[1].accept("9001", "live_gift", [g]);
      await settle();
      assert.equal(rooms.get("9001"), undefined);
      assert.deepEqual((await ledger.undelivered("9001", 10)).map((e) => e.msgId), [g.msgId], "published, but no client took it");
      away.delete("9001");
      assert.equal(await intakes[0].redeliver("9001"), 1, "what the room asks when a client joins");
      assert.deepEqual(rooms.get("9001")!.map((m) => m.msgId), [g.msgId]);
      assert.deepEqual(await ledger.undelivered("9001", 10), []);
      await intakes[1].sweep();
      assert.equal(rooms.get("9001")!.length, 1, "confirmed: the sweep does not send it again");
    });

    it("recovers gifts pushed during an outage from the failed-data query, without repeating pages after a restart", async () => {
      await sessions.start("streamer-a");
      await sessions.bind("9001", "room-a");
      const pushed = gift("v1");
      await intakes[0].accept("9001", "live_gift", [pushed]);
      const lost = Array.from({ length: 7 }, () => gift("v2", 100));
      // Douyin's failed data holds the lost ones, and one that did arrive (a push whose answer was lost).
      failed.set("9001", [...lost, pushed].map((g) => ({ msg_id: g.msgId, sec_openid: g.secOpenid, sec_gift_id: g.secGiftId, gift_num: 1, gift_value: g.giftValue })));
      assert.equal(await sessions.pollFailedData("9001"), 8);
      await settle();
      assert.deepEqual(rooms.get("9001")!.map((m) => m.msgId).sort(), [pushed, ...lost].map((g) => g.msgId).sort());
      // Pages of 3: gift pages 1 and 2 were full and are not read again; page 3 (partial) is.
      api.failedPagesRead.length = 0;
      await sessions.pollFailedData("9001");
      assert.deepEqual(api.failedPagesRead, ["live_gift:3", "live_fansclub:1"]);
      await settle();
      assert.equal(rooms.get("9001")!.length, 8);
    });

    it("counts a round's gifts per viewer from the ledger and stops the tasks when the session ends", async () => {
      await sessions.start("streamer-a");
      await sessions.bind("9001", "room-a");
      await intakes[0].accept("9001", "live_gift", [gift("before", 1)]);
      const round = await sessions.startRound("9001");
      await intakes[0].accept("9001", "live_gift", [gift("x", 100), gift("x", 50), gift("y", 20)]);
      await intakes[1].accept("9002", "live_gift", [gift("x", 999)]);
      const result = await sessions.endRound("9001", [{ groupId: "red", result: 1 }]);
      assert.equal(result!.roundId, round);
      assert.deepEqual(result!.totals.map((t) => [t.secOpenid, t.valueFen]), [
        ["x", 150],
        ["y", 20],
      ]);
      await sessions.stop("9001");
      assert.deepEqual(api.stopped.sort(), ["9001:live_comment", "9001:live_fansclub", "9001:live_gift", "9001:live_like"]);
    });
  });
}

/** client.douyinLive: the launch call, the seat with its ticket, typed events and rounds over the room. */
import assert from "node:assert/strict";
import type { Room } from "@colyseus/sdk";
import { DouyinLive } from "../../client/src/douyin-live";

class FakeRoom {
  readonly sent: Array<[string, unknown]> = [];
  private readonly listeners = new Map<string, Set<(m: unknown) => void>>();
  onMessage(type: string, listener: (m: unknown) => void): () => void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }
  emit(type: string, m: unknown): void {
    for (const l of [...(this.listeners.get(type) ?? [])]) l(m);
  }
  send(type: string, body?: unknown): void {
    this.sent.push([type, body]);
    if (type === "round_start") queueMicrotask(() => this.emit("round_started", { roundId: 4 }));
    if (type === "round_end") queueMicrotask(() => this.emit("round_ended", { roundId: 4, totals: [{ secOpenid: "v", nickname: "V", giftNum: 1, valueFen: 100 }] }));
  }
}

describe("client.douyinLive", () => {
  it("launches with the token, joins douyin_live with the ticket, and hands typed events and rounds", async () => {
    const calls: unknown[] = [];
    const joins: unknown[] = [];
    const room = new FakeRoom();
    const live = new DouyinLive(
      async (r) => (calls.push(r), { live_room_id: "7001", anchor_open_id: "anchor", nickname: "Streamer", ticket: "t".repeat(24) }),
      async (name, options) => (joins.push([name, options]), room as unknown as Room),
    );
    const session = await live.start("launch-token");
    assert.deepEqual(calls, [{ method: "POST", path: "/api/douyin-live/sessions", body: { token: "launch-token" } }]);
    assert.deepEqual(joins, [["douyin_live", { liveRoomId: "7001", ticket: "t".repeat(24) }]]);
    const gifts: unknown[] = [];
    session.onGift((g) => gifts.push(g.giftValue));
    room.emit("gift", { type: "gift", giftValue: 520 });
    room.emit("comment", { type: "comment" });
    assert.deepEqual(gifts, [520]);
    assert.equal(await session.startRound(), 4);
    const ended = await session.endRound([{ groupId: "red", result: 1 }]);
    assert.equal(ended.totals[0].valueFen, 100);
    assert.deepEqual(room.sent, [["round_start", undefined], ["round_end", { groups: [{ groupId: "red", result: 1 }] }]]);
  });

  it("hands each gift once, also one the server sends again after the game launched again", async () => {
    const rooms = [new FakeRoom(), new FakeRoom()];
    const live = new DouyinLive(
      async () => ({ live_room_id: "7001", anchor_open_id: "anchor", nickname: "Streamer", ticket: "t".repeat(24) }),
      async () => rooms.shift() as unknown as Room,
    );
    const [first, second] = [rooms[0], rooms[1]];
    const heard: string[] = [];
    const before = await live.start("launch-token");
    before.onGift((g) => heard.push(`a:${g.msgId}`));
    first.emit("gift", { type: "gift", msgId: "g1", giftValue: 10 });
    first.emit("gift", { type: "gift", msgId: "g1", giftValue: 10 });
    const after = await live.start("launch-token");
    after.onGift((g) => heard.push(`b:${g.msgId}`));
    after.onGift((g) => heard.push(`c:${g.msgId}`));
    second.emit("gift", { type: "gift", msgId: "g1", giftValue: 10 });
    second.emit("gift", { type: "gift", msgId: "g2", giftValue: 10 });
    assert.deepEqual(heard, ["a:g1", "b:g2", "c:g2"]);
  });
});

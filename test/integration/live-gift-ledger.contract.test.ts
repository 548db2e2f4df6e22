/**
 * The Douyin live gift ledger on every store (SQLite; PostgreSQL and MongoDB/FerretDB when their
 * test URLs are set): a msg_id is recorded once whatever the concurrency, the delivered mark, round
 * totals per viewer kept per live room, and the failed-data cursor that only moves forward.
 */
import assert from "node:assert/strict";
import { createLiveGiftLedger, type ClosableLiveGiftLedger } from "../../src/adapters/store/create-live-gift-ledger";
import type { LiveLedgerEntry } from "../../src/core/ports/live-gift-ledger";
import { storeImplementations } from "../support/store-configs";

let seq = 0;
function gift(overrides: Partial<LiveLedgerEntry> = {}): LiveLedgerEntry {
  seq++;
  return {
    msgId: `msg-${Date.now().toString(36)}-${seq}`,
    kind: "gift",
    roomId: "7001",
    roundId: 1,
    secOpenid: "viewer-a",
    nickname: "A",
    secGiftId: "g-rose",
    giftNum: 1,
    valueFen: 10,
    source: "push",
    receivedAt: new Date(1_760_000_000_000 + seq),
    ...overrides,
  };
}

for (const impl of storeImplementations("live-ledger")) {
  describe(`LiveGiftLedger contract: ${impl.name}`, function () {
    this.timeout(30_000);
    let ledger: ClosableLiveGiftLedger;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      ledger = await createLiveGiftLedger(prepared.config);
    });
    after(async () => {
      await ledger?.close();
      await release?.();
    });

    it("records a msg_id once; a repeat reads back whether it was delivered", async () => {
      const g = gift();
      assert.deepEqual(await ledger.record(g), { recorded: true });
      assert.deepEqual(await ledger.record({ ...g, valueFen: 999 }), { recorded: false, delivered: false });
      await ledger.markDelivered(g.msgId);
      assert.deepEqual(await ledger.record(g), { recorded: false, delivered: true });
      const [stored] = await ledger.entries(g.roomId, g.roundId, 10).then((all) => all.filter((e) => e.msgId === g.msgId));
      assert.equal(stored.valueFen, 10, "the first record stands");
    });

    it("lets exactly one of many concurrent writers of a msg_id record it", async () => {
      const g = gift({ roomId: "7002" });
      const outcomes = await Promise.all(Array.from({ length: 12 }, () => ledger.record(g)));
      assert.equal(outcomes.filter((o) => o.recorded).length, 1);
      assert.equal((await ledger.entries("7002", 1, 100)).length, 1);
    });

    it("lists a room's undelivered entries, oldest first, and forgets them once delivered", async () => {
      const a = gift({ roomId: "7003" });
      const b = gift({ roomId: "7003", kind: "fansclub", secGiftId: "", valueFen: 0 });
      await ledger.record(b);
      await ledger.record(a);
      await ledger.record(gift({ roomId: "7004" }));
      assert.deepEqual((await ledger.undelivered("7003", 10)).map((e) => e.msgId), [a.msgId, b.msgId]);
      await ledger.markDelivered(a.msgId);
      assert.deepEqual((await ledger.undelivered("7003", 10)).map((e) => [e.msgId, e.kind]), [[b.msgId, "fansclub"]]);
    });

    it("totals a round's gifts per viewer in fen, highest first, never mixing rooms, rounds or fan-club events", async () => {
      await ledger.record(gift({ roomId: "7005", roundId: 3, secOpenid: "v1", nickname: "One", giftNum: 2, valueFen: 200 }));
      await ledger.record(gift({ roomId: "7005", roundId: 3, secOpenid: "v1", nickname: "One", giftNum: 1, valueFen: 52_000 }));
      await ledger.record(gift({ roomId: "7005", roundId: 3, secOpenid: "v2", nickname: "Two", giftNum: 5, valueFen: 500 }));
      await ledger.record(gift({ roomId: "7005", roundId: 3, secOpenid: "v2", kind: "fansclub", secGiftId: "", giftNum: 0, valueFen: 0 }));
      await ledger.record(gift({ roomId: "7005", roundId: 4, secOpenid: "v2", valueFen: 1 }));
      await ledger.record(gift({ roomId: "7006", roundId: 3, secOpenid: "v1", valueFen: 7 }));
      assert.deepEqual(await ledger.roundTotals("7005", 3), [
        { secOpenid: "v1", nickname: "One", giftNum: 3, valueFen: 52_200 },
        { secOpenid: "v2", nickname: "Two", giftNum: 5, valueFen: 500 },
      ]);
      assert.deepEqual(await ledger.roundTotals("7006", 4), []);
    });

    it("keeps the failed-data page per room and type, moving forward only", async () => {
      assert.equal(await ledger.failedDataPage("7007", "live_gift"), 1);
      await ledger.saveFailedDataPage("7007", "live_gift", 3);
      await ledger.saveFailedDataPage("7007", "live_gift", 2);
      await ledger.saveFailedDataPage("7007", "live_gift", 3);
      assert.equal(await ledger.failedDataPage("7007", "live_gift"), 3);
      assert.equal(await ledger.failedDataPage("7007", "live_fansclub"), 1);
      assert.equal(await ledger.failedDataPage("7008", "live_gift"), 1);
    });
  });
}

/**
 * The Douyin live gift ledger on MongoDB / FerretDB. Insert-only claims (ferretdb-notes.md: updates
 * are not compare-and-set): a gift is one document whose `_id` is its msg_id, so exactly one insert
 * wins; the failed-data cursor is one document per page reached (`_id` room:type:page), the cursor
 * being the highest, so no writer ever moves it back. `delivered` is a plain idempotent $set.
 */
import type { Collection, Connection } from "mongoose";
import type { LiveGiftLedger, LiveLedgerEntry, LiveLedgerKind, LiveRecordOutcome, ViewerRoundTotal } from "../../../core/ports/live-gift-ledger";
import { insertOrReadBack } from "./unknown-outcome";

interface LedgerDoc {
  _id: string;
  kind: string;
  roomId: string;
  roundId: number;
  secOpenid: string;
  nickname: string;
  secGiftId: string;
  giftNum: number;
  valueFen: number;
  source: string;
  delivered: boolean;
  receivedAt: Date;
}

interface CursorDoc {
  _id: string;
  roomId: string;
  msgType: string;
  page: number;
}

function entryOf(d: LedgerDoc): LiveLedgerEntry {
  return {
    msgId: d._id,
    kind: d.kind as LiveLedgerKind,
    roomId: d.roomId,
    roundId: d.roundId,
    secOpenid: d.secOpenid,
    nickname: d.nickname,
    secGiftId: d.secGiftId,
    giftNum: d.giftNum,
    valueFen: d.valueFen,
    source: d.source === "failed_data" ? "failed_data" : "push",
    receivedAt: new Date(d.receivedAt),
  };
}

export class MongoLiveGiftLedger implements LiveGiftLedger {
  private readonly ledger: Collection<LedgerDoc>;
  private readonly cursors: Collection<CursorDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.ledger = connection.collection<LedgerDoc>("douyin_live_ledger");
    this.cursors = connection.collection<CursorDoc>("douyin_live_fail_cursors");
  }

  async migrate(): Promise<void> {
    await this.ledger.createIndex({ roomId: 1, roundId: 1 });
    await this.ledger.createIndex({ roomId: 1, delivered: 1, receivedAt: 1 });
    await this.cursors.createIndex({ roomId: 1, msgType: 1, page: -1 });
  }

  async record(e: LiveLedgerEntry): Promise<LiveRecordOutcome> {
    const doc: LedgerDoc = {
      _id: e.msgId,
      kind: e.kind,
      roomId: e.roomId,
      roundId: e.roundId,
      secOpenid: e.secOpenid,
      nickname: e.nickname,
      secGiftId: e.secGiftId,
      giftNum: e.giftNum,
      valueFen: e.valueFen,
      source: e.source,
      delivered: false,
      receivedAt: e.receivedAt,
    };
    // "Ours" is never assumed from content: a retry after a lost answer reads as already recorded and
    // undelivered, which the caller delivers (the room drops a msg_id it already took).
    const outcome = await insertOrReadBack(this.ledger, doc, () => false);
    return outcome.kind === "inserted" ? { recorded: true } : { recorded: false, delivered: outcome.holder.delivered === true };
  }

  async markDelivered(msgId: string): Promise<void> {
    await this.ledger.updateOne({ _id: msgId }, { $set: { delivered: true } });
  }

  async undelivered(roomId: string, limit: number): Promise<LiveLedgerEntry[]> {
    const docs = await this.ledger.find({ roomId, delivered: false }).sort({ receivedAt: 1, _id: 1 }).limit(limit).toArray();
    return docs.map(entryOf);
  }

  async roundTotals(roomId: string, roundId: number): Promise<ViewerRoundTotal[]> {
    // Summed here rather than by $group: a round holds at most a few thousand gifts, and FerretDB's
    // aggregation support varies by version.
    const totals = new Map<string, ViewerRoundTotal>();
    for await (const d of this.ledger.find({ roomId, roundId, kind: "gift" }, { projection: { secOpenid: 1, nickname: 1, giftNum: 1, valueFen: 1 } })) {
      const t = totals.get(d.secOpenid) ?? { secOpenid: d.secOpenid, nickname: d.nickname, giftNum: 0, valueFen: 0 };
      t.giftNum += d.giftNum;
      t.valueFen += d.valueFen;
      if (d.nickname > t.nickname) t.nickname = d.nickname;
      totals.set(d.secOpenid, t);
    }
    return [...totals.values()].sort((a, b) => b.valueFen - a.valueFen || (a.secOpenid < b.secOpenid ? -1 : 1));
  }

  async entries(roomId: string, roundId: number, limit: number): Promise<LiveLedgerEntry[]> {
    const docs = await this.ledger.find({ roomId, roundId }).sort({ receivedAt: 1, _id: 1 }).limit(limit).toArray();
    return docs.map(entryOf);
  }

  async failedDataPage(roomId: string, msgType: string): Promise<number> {
    const top = await this.cursors.find({ roomId, msgType }).sort({ page: -1 }).limit(1).toArray();
    return top[0]?.page ?? 1;
  }

  async saveFailedDataPage(roomId: string, msgType: string, page: number): Promise<void> {
    await insertOrReadBack(this.cursors, { _id: `${roomId}:${msgType}:${page}`, roomId, msgType, page }, () => true);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

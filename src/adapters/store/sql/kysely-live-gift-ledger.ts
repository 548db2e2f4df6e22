/**
 * The Douyin live gift ledger over Kysely (SQLite, PostgreSQL). A record is one INSERT … ON CONFLICT
 * DO NOTHING on the msg_id primary key: exactly one of any number of concurrent writers inserts; the
 * others (and a retry whose first answer was lost) read the row back.
 */
import { sql, type ColumnType, type Kysely, type Selectable } from "kysely";
import type { LiveGiftLedger, LiveLedgerEntry, LiveLedgerKind, LiveRecordOutcome, ViewerRoundTotal } from "../../../core/ports/live-gift-ledger";
import { migrateToLatest, type SqlDialect } from "./migrations";

interface LedgerTable {
  msg_id: string;
  kind: string;
  room_id: string;
  /** bigint: pg answers it as text. */
  round_id: ColumnType<number | string, number, number>;
  sec_openid: string;
  nickname: string;
  sec_gift_id: string;
  gift_num: ColumnType<number | string, number, number>;
  value_fen: ColumnType<number | string, number, number>;
  source: string;
  delivered: ColumnType<number, number | undefined, number>;
  received_at: ColumnType<Date | string, string, string>;
}

interface CursorTable {
  room_id: string;
  msg_type: string;
  page_num: number;
}

export interface LiveLedgerDatabase {
  douyin_live_ledger: LedgerTable;
  douyin_live_fail_cursors: CursorTable;
}

type Row = Selectable<LedgerTable>;

function entryOf(row: Row): LiveLedgerEntry {
  return {
    msgId: row.msg_id,
    kind: row.kind as LiveLedgerKind,
    roomId: row.room_id,
    roundId: Number(row.round_id),
    secOpenid: row.sec_openid,
    nickname: row.nickname,
    secGiftId: row.sec_gift_id,
    giftNum: Number(row.gift_num),
    valueFen: Number(row.value_fen),
    source: row.source === "failed_data" ? "failed_data" : "push",
    receivedAt: new Date(row.received_at),
  };
}

export class KyselyLiveGiftLedger implements LiveGiftLedger {
  constructor(
    private readonly db: Kysely<LiveLedgerDatabase>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
  }

  async record(e: LiveLedgerEntry): Promise<LiveRecordOutcome> {
    const inserted = await this.db
      .insertInto("douyin_live_ledger")
      .values({
        msg_id: e.msgId,
        kind: e.kind,
        room_id: e.roomId,
        round_id: e.roundId,
        sec_openid: e.secOpenid,
        nickname: e.nickname,
        sec_gift_id: e.secGiftId,
        gift_num: e.giftNum,
        value_fen: e.valueFen,
        source: e.source,
        delivered: 0,
        received_at: e.receivedAt.toISOString(),
      })
      .onConflict((oc) => oc.column("msg_id").doNothing())
      .returning("msg_id")
      .executeTakeFirst();
    if (inserted) return { recorded: true };
    const held = await this.db.selectFrom("douyin_live_ledger").select("delivered").where("msg_id", "=", e.msgId).executeTakeFirst();
    return { recorded: false, delivered: Number(held?.delivered ?? 0) === 1 };
  }

  async markDelivered(msgId: string): Promise<void> {
    await this.db.updateTable("douyin_live_ledger").set({ delivered: 1 }).where("msg_id", "=", msgId).execute();
  }

  async undelivered(roomId: string, limit: number): Promise<LiveLedgerEntry[]> {
    const rows = await this.db
      .selectFrom("douyin_live_ledger")
      .selectAll()
      .where("room_id", "=", roomId)
      .where("delivered", "=", 0)
      .orderBy("received_at")
      .orderBy("msg_id")
      .limit(limit)
      .execute();
    return rows.map(entryOf);
  }

  async roundTotals(roomId: string, roundId: number): Promise<ViewerRoundTotal[]> {
    const rows = await this.db
      .selectFrom("douyin_live_ledger")
      .select(["sec_openid", sql<string>`max(nickname)`.as("nickname"), sql<string>`sum(gift_num)`.as("gift_num"), sql<string>`sum(value_fen)`.as("value_fen")])
      .where("room_id", "=", roomId)
      .where("round_id", "=", roundId)
      .where("kind", "=", "gift")
      .groupBy("sec_openid")
      .execute();
    return rows
      .map((r) => ({ secOpenid: r.sec_openid, nickname: r.nickname ?? "", giftNum: Number(r.gift_num), valueFen: Number(r.value_fen) }))
      .sort((a, b) => b.valueFen - a.valueFen || (a.secOpenid < b.secOpenid ? -1 : 1));
  }

  async entries(roomId: string, roundId: number, limit: number): Promise<LiveLedgerEntry[]> {
    const rows = await this.db
      .selectFrom("douyin_live_ledger")
      .selectAll()
      .where("room_id", "=", roomId)
      .where("round_id", "=", roundId)
      .orderBy("received_at")
      .orderBy("msg_id")
      .limit(limit)
      .execute();
    return rows.map(entryOf);
  }

  async failedDataPage(roomId: string, msgType: string): Promise<number> {
    const row = await this.db.selectFrom("douyin_live_fail_cursors").select("page_num").where("room_id", "=", roomId).where("msg_type", "=", msgType).executeTakeFirst();
    return row ? Number(row.page_num) : 1;
  }

  async saveFailedDataPage(roomId: string, msgType: string, page: number): Promise<void> {
    await this.db
      .insertInto("douyin_live_fail_cursors")
      .values({ room_id: roomId, msg_type: msgType, page_num: page })
      .onConflict((oc) =>
        oc
          .columns(["room_id", "msg_type"])
          .doUpdateSet({ page_num: page })
          .where("douyin_live_fail_cursors.page_num", "<", page),
      )
      .execute();
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

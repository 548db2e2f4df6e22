/**
 * The Douyin live gift ledger: every gift (and fan-club event) a live room received, once, keyed by
 * Douyin's `msg_id`. The insert is the cross-process dedupe claim (insert-only: FerretDB has no
 * compare-and-set), so a push delivered twice, to two receiver processes, or again by the failed-data
 * query is recorded once. `delivered` is set after the message reached its room, so a receiver that died
 * in between leaves it for the redelivery sweep; rooms drop a msg_id they already took.
 */
export type LiveLedgerKind = "gift" | "fansclub";

export interface LiveLedgerEntry {
  msgId: string;
  kind: LiveLedgerKind;
  /** Douyin's live room id (digits). */
  roomId: string;
  /** The game's round running when the gift arrived; 0 outside a round. */
  roundId: number;
  secOpenid: string;
  nickname: string;
  /** "" for fan-club events. */
  secGiftId: string;
  giftNum: number;
  /** Total value in fen (Douyin's `gift_value`). */
  valueFen: number;
  /** "push" or "failed_data" (recovered by the failed-data query). */
  source: "push" | "failed_data";
  receivedAt: Date;
}

export type LiveRecordOutcome = { recorded: true } | { recorded: false; delivered: boolean };

export interface ViewerRoundTotal {
  secOpenid: string;
  nickname: string;
  giftNum: number;
  valueFen: number;
}

export interface LiveGiftLedger {
  /** Records the entry unless its msg_id is already there; a lost answer is resolved by calling again. */
  record(entry: LiveLedgerEntry): Promise<LiveRecordOutcome>;
  markDelivered(msgId: string): Promise<void>;
  /** Entries of a room not yet marked delivered, oldest first. */
  undelivered(roomId: string, limit: number): Promise<LiveLedgerEntry[]>;
  /** A round's gifts per viewer, highest value first. */
  roundTotals(roomId: string, roundId: number): Promise<ViewerRoundTotal[]>;
  /** A room's entries in a round, oldest first (the console's and a studio's reconciliation view). */
  entries(roomId: string, roundId: number, limit: number): Promise<LiveLedgerEntry[]>;
  /** The failed-data query's next page for (room, type): 1 until a page was saved. */
  failedDataPage(roomId: string, msgType: string): Promise<number>;
  /** Moves the cursor forward only (a late writer never moves it back). */
  saveFailedDataPage(roomId: string, msgType: string, page: number): Promise<void>;
}

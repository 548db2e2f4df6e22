/**
 * What support people see of Douyin live games (the console's live pages): which streamers are live
 * and the game room serving each, the push tasks as Douyin reports them, per-round counts of what
 * reached the room, and a round's gift ledger.
 *
 * The counts and the list of live rooms live in the shared cache, so every process adds to the same
 * numbers and sees the same rooms. A count is taken where a message is known to be new (a gift's
 * ledger insert, a comment's or like's dedupe claim), so a duplicate Douyin pushed twice is counted
 * once. Counting is best effort: a cache that fails to count never fails a push.
 */
import type { Cache } from "../../core/ports/cache";
import type { LiveGiftLedger, LiveLedgerEntry, ViewerRoundTotal } from "../../core/ports/live-gift-ledger";
import type { Logger } from "../../logging/logger";
import type { LiveTaskStatus } from "../../platforms/douyin/douyin-live-client";
import type { LiveMsgType } from "../../platforms/douyin/douyin-live";
import { liveKeys } from "./live-keys";
import type { DouyinLiveApi, LiveRoomMessage, WithAccessToken } from "./live-ports";

export const LIVE_COUNT_TYPES = ["gift", "comment", "like", "fansclub"] as const;
export type LiveCountType = (typeof LIVE_COUNT_TYPES)[number];
/** Messages per type (a like message carries several taps: Douyin's `like_num`), and the gifts' value from the ledger. */
export type LiveCounts = Record<LiveCountType, number> & { giftValueFen: number };

export interface LiveRoomView {
  liveRoomId: string;
  anchorOpenId: string;
  nickName: string;
  startedAt: string;
  /** The `douyin_live` room serving it, when one is bound. */
  gameRoomId: string | null;
  /** Distinct viewers whose comment, gift, like or fan-club event reached the room. */
  viewers: number;
  /** The round running now (0: none) and the last one started. */
  currentRound: number;
  lastRound: number;
  tasks: LiveMsgType[];
}

export interface LiveRoomDetail extends LiveRoomView {
  /** Douyin's own answer per task type (`task/get`), or `unknown` when it could not be asked. */
  taskStatus: Array<{ msgType: LiveMsgType; status: LiveTaskStatus | "unknown" }>;
  /** Round 0 holds what arrived outside any round; newest round first. */
  rounds: Array<{ roundId: number; counts: LiveCounts }>;
}

export interface RoundLedger {
  liveRoomId: string;
  roundId: number;
  entries: Array<LiveLedgerEntry & { delivered: boolean }>;
  totals: ViewerRoundTotal[];
}

const TTL_SEC = 12 * 3600;
/** Rounds shown per room on the console (the newest). */
const ROUNDS_SHOWN = 20;

type Listed = { liveRoomId: string; startedAt: string };

export class DouyinLiveMonitor {
  constructor(
    private readonly cache: Cache,
    private readonly ledger: LiveGiftLedger,
    private readonly api: DouyinLiveApi,
    private readonly withToken: WithAccessToken,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A session started: listed until it stops (or its session expires). */
  async opened(liveRoomId: string): Promise<void> {
    await this.updateList((list) => (list.some((l) => l.liveRoomId === liveRoomId) ? list : [...list, { liveRoomId, startedAt: new Date(this.now()).toISOString() }]));
  }

  async closed(liveRoomId: string): Promise<void> {
    await this.updateList((list) => list.filter((l) => l.liveRoomId !== liveRoomId));
  }

  /** Counts messages that just reached the room for the first time, in the round running now. */
  async count(liveRoomId: string, messages: readonly LiveRoomMessage[]): Promise<void> {
    if (messages.length === 0) return;
    try {
      const round = await this.currentRound(liveRoomId);
      for (const m of messages) {
        const roundOf = m.type === "gift" || m.type === "fansclub" ? (m.roundId ?? round) : round;
        await this.cache.increment(countKey(liveRoomId, roundOf, m.type), TTL_SEC);
        if (await this.cache.setIfAbsent(`douyin_live:viewer:${liveRoomId}:${m.secOpenid}`, "1", TTL_SEC * 1000)) {
          await this.cache.increment(`douyin_live:viewers:${liveRoomId}`, TTL_SEC);
        }
      }
    } catch (err) {
      this.logger.warn({ err, liveRoomId }, "douyin live: messages not counted (the console's counts are short)");
    }
  }

  /** The live rooms of every process, oldest first; rooms whose session expired are left out. */
  async liveRooms(): Promise<LiveRoomView[]> {
    const list = await this.readList();
    const views = await Promise.all(list.map((l) => this.view(l)));
    return views.filter((v): v is LiveRoomView => v !== undefined);
  }

  async room(liveRoomId: string): Promise<LiveRoomDetail | undefined> {
    const listed = (await this.readList()).find((l) => l.liveRoomId === liveRoomId);
    const view = await this.view(listed ?? { liveRoomId, startedAt: "" });
    if (!view) return undefined;
    const taskStatus = await Promise.all(
      view.tasks.map(async (msgType) => {
        const status = await this.withToken((t) => this.api.taskStatus(t, liveRoomId, msgType)).catch((err: unknown) => {
          this.logger.warn({ err, liveRoomId, msgType }, "douyin live: task status not answered");
          return "unknown" as const;
        });
        return { msgType, status };
      }),
    );
    const roundIds = [];
    for (let r = view.lastRound; r >= 1 && roundIds.length < ROUNDS_SHOWN; r--) roundIds.push(r);
    roundIds.push(0);
    const rounds = await Promise.all(roundIds.map(async (roundId) => ({ roundId, counts: await this.counts(liveRoomId, roundId) })));
    return { ...view, taskStatus, rounds };
  }

  /** A round's gifts and fan-club events, each msg_id once, oldest first, with the per-viewer totals. */
  async roundLedger(liveRoomId: string, roundId: number, limit = 500): Promise<RoundLedger> {
    const [entries, totals, undelivered] = await Promise.all([
      this.ledger.entries(liveRoomId, roundId, limit),
      this.ledger.roundTotals(liveRoomId, roundId),
      this.ledger.undelivered(liveRoomId, 500),
    ]);
    const waiting = new Set(undelivered.map((e) => e.msgId));
    return { liveRoomId, roundId, entries: entries.map((e) => ({ ...e, delivered: !waiting.has(e.msgId) })), totals };
  }

  private async counts(liveRoomId: string, roundId: number): Promise<LiveCounts> {
    const keys = LIVE_COUNT_TYPES.map((t) => countKey(liveRoomId, roundId, t));
    const values = (await this.cache.getMany(keys)).map((v) => Number(v ?? 0) || 0);
    const totals = await this.ledger.roundTotals(liveRoomId, roundId);
    return { gift: values[0], comment: values[1], like: values[2], fansclub: values[3], giftValueFen: totals.reduce((sum, t) => sum + t.valueFen, 0) };
  }

  private async view(listed: Listed): Promise<LiveRoomView | undefined> {
    const { liveRoomId } = listed;
    const [session, binding, viewers, round, seq] = await this.cache.getMany([
      liveKeys.session(liveRoomId),
      liveKeys.binding(liveRoomId),
      `douyin_live:viewers:${liveRoomId}`,
      liveKeys.round(liveRoomId),
      liveKeys.roundSeq(liveRoomId),
    ]);
    if (!session) return undefined;
    const s = JSON.parse(session) as { anchorOpenId: string; nickName: string; tasks: LiveMsgType[] };
    return {
      liveRoomId,
      anchorOpenId: s.anchorOpenId,
      nickName: s.nickName,
      startedAt: listed.startedAt,
      gameRoomId: binding,
      viewers: Number(viewers ?? 0) || 0,
      currentRound: round ? Number(JSON.parse(round).roundId) || 0 : 0,
      lastRound: Number(seq ?? 0) || 0,
      tasks: s.tasks,
    };
  }

  private async currentRound(liveRoomId: string): Promise<number> {
    const raw = await this.cache.get(liveKeys.round(liveRoomId));
    return raw ? Number(JSON.parse(raw).roundId) || 0 : 0;
  }

  private async readList(): Promise<Listed[]> {
    const raw = await this.cache.get(LIST_KEY);
    return raw ? (JSON.parse(raw) as Listed[]) : [];
  }

  /** Compare-and-set on the one list key, so two processes starting sessions at once both land. */
  private async updateList(change: (list: Listed[]) => Listed[]): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const raw = await this.cache.get(LIST_KEY);
      const next = JSON.stringify(change(raw ? (JSON.parse(raw) as Listed[]) : []).slice(-500));
      const done = raw === null ? await this.cache.setIfAbsent(LIST_KEY, next, TTL_SEC * 1000) : await this.cache.replaceIfEquals(LIST_KEY, raw, [{ key: LIST_KEY, value: next, ttlSec: TTL_SEC }]);
      if (done) return;
    }
    this.logger.warn("douyin live: the list of live rooms was not updated (too many writers at once)");
  }
}

const LIST_KEY = "douyin_live:rooms";
const countKey = (liveRoomId: string, roundId: number, what: string) => `douyin_live:count:${liveRoomId}:${roundId}:${what}`;

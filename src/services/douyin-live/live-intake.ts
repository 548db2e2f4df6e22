/**
 * Douyin live pushes after their signature was checked: dedupe by msg_id across processes, gifts and
 * fan-club events into the ledger, everything into the game room bound to its live room.
 *
 * Gifts and fan-club events are money (or worth it): `claim` records them in the ledger BEFORE the
 * push is answered (one insert each, well inside Douyin's 3 s), so a receiver killed after answering
 * loses none; a ledger that cannot answer fails the push and Douyin keeps it for the failed-data query.
 * Only the inserter delivers at once. An entry is marked delivered by the game room once it has sent
 * it to a game client (confirmDelivered), not when it was published: a room whose process died, or one
 * with no client at the moment (the game reconnecting), leaves it undelivered, and the sweep, the room's
 * binding and a client's join deliver it again; the room drops msg_ids it already sent.
 * Comments and likes may be lost (Douyin says so): their dedupe is a short cache claim, their work is
 * queued after the answer, and a full queue drops them, counted.
 */
import type { Cache } from "../../core/ports/cache";
import type { LiveGiftLedger, LiveLedgerEntry } from "../../core/ports/live-gift-ledger";
import type { Logger } from "../../logging/logger";
import type { LiveMessage, LiveMsgType } from "../../platforms/douyin/douyin-live";
import type { LiveRoomDelivery, LiveRoomMessage } from "./live-ports";
import { liveKeys } from "./live-keys";

export interface LiveIntakeOptions {
  /** How long a message for a room not (yet) bound is kept before it is dropped (gifts stay in the ledger). */
  pendingMs: number;
  /** Messages waiting for delivery in this process, all rooms together. */
  maxQueued: number;
  /** An undelivered ledger entry older than this is redelivered by the sweep. */
  redeliverAfterMs: number;
  /** How long a comment's or like's msg_id is remembered. */
  seenTtlMs: number;
  now?: () => number;
  /** Counts what was dropped, by reason (metrics). */
  dropped?: (reason: "duplicate" | "no_room" | "queue_full", type: string, n: number) => void;
  /** Hears each message once, when it is known to be new (the console's counts); must not throw. */
  counted?: (liveRoomId: string, messages: LiveRoomMessage[]) => Promise<void>;
}

type Queued = { liveRoomId: string; message: LiveRoomMessage; ledger: boolean; since: number };

export function roomMessageOf(m: LiveMessage, roundId = 0): LiveRoomMessage {
  const base = { type: m.type, msgId: m.msgId, secOpenid: m.secOpenid, nickname: m.nickname, avatarUrl: m.avatarUrl, timestamp: m.timestamp };
  switch (m.type) {
    case "comment":
      return { ...base, content: m.content };
    case "gift":
      return { ...base, secGiftId: m.secGiftId, giftNum: m.giftNum, giftValue: m.giftValue, roundId };
    case "like":
      return { ...base, likeNum: m.likeNum };
    case "fansclub":
      return { ...base, reasonType: m.reasonType, level: m.level, roundId };
  }
}

export function roomMessageOfEntry(e: LiveLedgerEntry): LiveRoomMessage {
  const base = { type: e.kind, msgId: e.msgId, secOpenid: e.secOpenid, nickname: e.nickname, avatarUrl: "", timestamp: e.receivedAt.getTime(), roundId: e.roundId };
  return e.kind === "gift" ? { ...base, secGiftId: e.secGiftId, giftNum: e.giftNum, giftValue: e.valueFen } : base;
}

export class LiveIntake {
  private readonly queue: Queued[] = [];
  private draining = false;
  /** Live rooms this process took pushes for lately: the sweep's list. */
  private readonly recentRooms = new Map<string, number>();
  private readonly now: () => number;

  constructor(
    private readonly ledger: LiveGiftLedger,
    private readonly cache: Cache,
    private readonly delivery: LiveRoomDelivery,
    private readonly logger: Logger,
    private readonly options: LiveIntakeOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The part done before the push is answered: gifts and fan-club events claimed in the ledger. Throws
   * when the ledger cannot answer (the push then fails and Douyin keeps it). Then queues the delivery.
   */
  async accept(liveRoomId: string, msgType: LiveMsgType, messages: LiveMessage[], source: "push" | "failed_data" = "push"): Promise<void> {
    this.recentRooms.set(liveRoomId, this.now());
    if (msgType === "live_gift" || msgType === "live_fansclub") {
      const roundId = await this.currentRound(liveRoomId);
      const fresh: Queued[] = [];
      for (const m of messages) {
        const outcome = await this.ledger.record(this.entryOf(liveRoomId, m, roundId, source));
        if (outcome.recorded) fresh.push({ liveRoomId, message: roomMessageOf(m, roundId), ledger: true, since: this.now() });
        else this.options.dropped?.("duplicate", m.type, 1);
      }
      if (fresh.length > 0) void this.options.counted?.(liveRoomId, fresh.map((q) => q.message));
      this.enqueue(fresh);
      return;
    }
    // Comments and likes: after the answer, claimed in the shared cache (at most once).
    this.enqueue(messages.map((m) => ({ liveRoomId, message: roomMessageOf(m), ledger: false, since: this.now() })));
  }

  /** Delivers what the ledger holds undelivered for a room (a room just bound, a client joined, the sweep). */
  async redeliver(liveRoomId: string, olderThanMs = 0): Promise<number> {
    const entries = (await this.ledger.undelivered(liveRoomId, 500)).filter((e) => this.now() - e.receivedAt.getTime() >= olderThanMs);
    if (entries.length === 0 || !(await this.isBound(liveRoomId))) return 0;
    await this.delivery.deliver(liveRoomId, entries.map(roomMessageOfEntry));
    return entries.length;
  }

  /** The game room sent these gifts or fan-club events to a game client: they leave the redelivery. */
  async confirmDelivered(msgIds: string[]): Promise<void> {
    for (const msgId of msgIds) await this.ledger.markDelivered(msgId);
  }

  /** One sweep over the live rooms this process heard of in the last hour. */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const [room, seen] of this.recentRooms) {
      if (now - seen > 3600_000) {
        this.recentRooms.delete(room);
        continue;
      }
      await this.redeliver(room, this.options.redeliverAfterMs).catch((err: unknown) => this.logger.warn({ err, liveRoomId: room }, "douyin live: redelivery failed; the next sweep tries again"));
    }
    void this.drain();
  }

  /** Messages waiting or being delivered in this process. */
  get busy(): boolean {
    return this.draining || this.queue.length > 0;
  }

  private entryOf(roomId: string, m: LiveMessage, roundId: number, source: "push" | "failed_data"): LiveLedgerEntry {
    const gift = m.type === "gift" ? m : undefined;
    return {
      msgId: m.msgId,
      kind: m.type === "gift" ? "gift" : "fansclub",
      roomId,
      roundId,
      secOpenid: m.secOpenid,
      nickname: m.nickname,
      secGiftId: gift?.secGiftId ?? "",
      giftNum: gift?.giftNum ?? 0,
      valueFen: gift?.giftValue ?? 0,
      source,
      receivedAt: new Date(this.now()),
    };
  }

  private async currentRound(liveRoomId: string): Promise<number> {
    const raw = await this.cache.get(liveKeys.round(liveRoomId));
    const round = raw ? Number(JSON.parse(raw).roundId) : 0;
    return Number.isSafeInteger(round) ? round : 0;
  }

  private isBound(liveRoomId: string): Promise<boolean> {
    return this.cache.get(liveKeys.binding(liveRoomId)).then((v) => v !== null);
  }

  private enqueue(items: Queued[]): void {
    const room = this.options.maxQueued - this.queue.length;
    const taken = items.slice(0, Math.max(0, room));
    const lost = items.length - taken.length;
    // A gift past the bound stays in the ledger undelivered: the sweep delivers it.
    if (lost > 0) this.options.dropped?.("queue_full", "any", lost);
    this.queue.push(...taken);
    void this.drain();
  }

  /** Delivers queued messages room by room; one at a time per process, so order is kept. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length);
        const keep: Queued[] = [];
        for (const [liveRoomId, items] of groupByRoom(batch)) {
          try {
            await this.deliverRoom(liveRoomId, items, keep);
          } catch (err) {
            this.logger.warn({ err, liveRoomId }, "douyin live: delivery failed; gifts stay in the ledger for the sweep");
          }
        }
        if (keep.length > 0) {
          this.queue.unshift(...keep);
          break; // waiting for rooms to bind: the sweep drains again
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async deliverRoom(liveRoomId: string, items: Queued[], keep: Queued[]): Promise<void> {
    if (!(await this.isBound(liveRoomId))) {
      // Gifts and fan-club events wait in the ledger, undelivered: the room's binding delivers them
      // (redeliver), whichever process it runs in; holding them here too would deliver them twice.
      const now = this.now();
      const held = items.filter((q) => !q.ledger);
      const expired = held.filter((q) => now - q.since > this.options.pendingMs);
      if (expired.length > 0) this.options.dropped?.("no_room", "any", expired.length);
      keep.push(...held.filter((q) => now - q.since <= this.options.pendingMs));
      return;
    }
    const send: Queued[] = [];
    for (const q of items) {
      if (q.ledger || (await this.cache.setIfAbsent(liveKeys.seen(q.message.msgId), "1", this.options.seenTtlMs))) send.push(q);
      else this.options.dropped?.("duplicate", q.message.type, 1);
    }
    if (send.length === 0) return;
    const firstSeen = send.filter((q) => !q.ledger).map((q) => q.message);
    if (firstSeen.length > 0) void this.options.counted?.(liveRoomId, firstSeen);
    // Gifts stay undelivered in the ledger until the room confirms it sent them to a client.
    await this.delivery.deliver(liveRoomId, send.map((q) => q.message));
  }
}

function groupByRoom(items: Queued[]): Map<string, Queued[]> {
  const rooms = new Map<string, Queued[]>();
  for (const q of items) {
    const list = rooms.get(q.liveRoomId) ?? [];
    list.push(q);
    rooms.set(q.liveRoomId, list);
  }
  return rooms;
}

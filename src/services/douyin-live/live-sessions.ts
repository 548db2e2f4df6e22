/**
 * A streamer's live session: the launch token → the live room (webcastmate/info), the push tasks
 * started for the configured message types, gifts pinned, the game room bound to the live room (one
 * per live room across processes: a cache claim), rounds, and the tasks stopped when the room ends.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import type { Cache } from "../../core/ports/cache";
import type { LiveGiftLedger, LiveLedgerEntry, ViewerRoundTotal } from "../../core/ports/live-gift-ledger";
import type { Logger } from "../../logging/logger";
import { readLivePayload, type LiveMsgType } from "../../platforms/douyin/douyin-live";
import type { LiveIntake } from "./live-intake";
import { liveKeys } from "./live-keys";
import type { DouyinLiveApi, WithAccessToken } from "./live-ports";

export interface LiveSessionSettings {
  msgTypes: readonly LiveMsgType[];
  topGiftIds: readonly string[];
  /** How long a binding lives without being refreshed (a room refreshes it while it runs). */
  bindingTtlMs: number;
  /** Failed-data page size (≤ 100). */
  failedDataPageSize: number;
  /** Keeps the list of live rooms the console shows (DouyinLiveMonitor). */
  listing?: { opened(liveRoomId: string): Promise<void>; closed(liveRoomId: string): Promise<void> };
}

export interface LiveSession {
  liveRoomId: string;
  anchorOpenId: string;
  nickName: string;
  avatarUrl: string;
  tasks: LiveMsgType[];
}

/** What the game gets back from a launch: the session and a one-use seat ticket for its `douyin_live` room. */
export interface LaunchedSession extends LiveSession {
  ticket: string;
}

const TICKET_TTL_SEC = 120;

export interface RoundResult {
  roundId: number;
  totals: ViewerRoundTotal[];
}

const SESSION_TTL_MS = 12 * 3600_000;

export class DouyinLiveSessions {
  constructor(
    private readonly api: DouyinLiveApi,
    private readonly withToken: WithAccessToken,
    private readonly ledger: LiveGiftLedger,
    private readonly intake: LiveIntake,
    private readonly cache: Cache,
    private readonly logger: Logger,
    private readonly settings: LiveSessionSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves the streamer's launch token and starts the push tasks (idempotent upstream: a second launch repeats them harmlessly). */
  async start(launchToken: string): Promise<LaunchedSession> {
    if (!/^[\x21-\x7e]{1,1024}$/.test(launchToken)) throw new AppError("live_token_invalid");
    const info = await this.withToken((t) => this.api.liveInfo(t, launchToken));
    const tasks: LiveMsgType[] = [];
    for (const msgType of this.settings.msgTypes) {
      await this.withToken((t) => this.api.startTask(t, info.roomId, msgType));
      tasks.push(msgType);
    }
    if (this.settings.topGiftIds.length > 0) {
      // Pinning is a convenience: a refusal is logged, the session goes on.
      await this.withToken((t) => this.api.topGift(t, info.roomId, [...this.settings.topGiftIds])).catch((err: unknown) =>
        this.logger.warn({ err, liveRoomId: info.roomId }, "douyin live: gifts could not be pinned"),
      );
    }
    const session: LiveSession = { liveRoomId: info.roomId, anchorOpenId: info.anchorOpenId, nickName: info.nickName, avatarUrl: info.avatarUrl, tasks };
    await this.cache.set(liveKeys.session(info.roomId), JSON.stringify(session), SESSION_TTL_MS / 1000);
    await this.settings.listing?.opened(info.roomId).catch((err: unknown) => this.logger.warn({ err, liveRoomId: info.roomId }, "douyin live: not listed on the console"));
    const ticket = crypto.randomBytes(18).toString("base64url");
    await this.cache.set(liveKeys.ticket(ticket), info.roomId, TICKET_TTL_SEC);
    return { ...session, ticket };
  }

  /** The live room a seat ticket was issued for, once: a ticket is consumed by the seat it buys. */
  async redeemTicket(ticket: string, liveRoomId: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(ticket)) return false;
    return this.cache.deleteIfEquals(liveKeys.ticket(ticket), liveRoomId);
  }

  async session(liveRoomId: string): Promise<LiveSession | undefined> {
    const raw = await this.cache.get(liveKeys.session(liveRoomId));
    return raw ? (JSON.parse(raw) as LiveSession) : undefined;
  }

  /** Stops the tasks (Douyin finishes what it holds first); each is tried even when another fails. */
  async stop(liveRoomId: string): Promise<void> {
    const session = await this.session(liveRoomId);
    for (const msgType of session?.tasks ?? this.settings.msgTypes) {
      await this.withToken((t) => this.api.stopTask(t, liveRoomId, msgType)).catch((err: unknown) =>
        this.logger.warn({ err, liveRoomId, msgType }, "douyin live: a push task could not be stopped (it stops with the stream)"),
      );
    }
    await this.cache.delete(liveKeys.session(liveRoomId), liveKeys.round(liveRoomId));
    await this.settings.listing?.closed(liveRoomId).catch(() => undefined);
  }

  /**
   * Binds `gameRoomId` to the live room unless another live game room holds it: answers the holder.
   * A room calls it on create and then every bindingTtlMs/3 to keep it.
   */
  async bind(liveRoomId: string, gameRoomId: string): Promise<string> {
    const key = liveKeys.binding(liveRoomId);
    if (await this.cache.setIfAbsent(key, gameRoomId, this.settings.bindingTtlMs)) {
      await this.intake.redeliver(liveRoomId).catch((err: unknown) => this.logger.warn({ err, liveRoomId }, "douyin live: held gifts could not be delivered yet"));
      return gameRoomId;
    }
    const holder = await this.cache.get(key);
    if (holder === gameRoomId) await this.cache.set(key, gameRoomId, this.settings.bindingTtlMs / 1000);
    return holder ?? (await this.bind(liveRoomId, gameRoomId));
  }

  async bindingOf(liveRoomId: string): Promise<string | undefined> {
    return (await this.cache.get(liveKeys.binding(liveRoomId))) ?? undefined;
  }

  async unbind(liveRoomId: string, gameRoomId: string): Promise<void> {
    await this.cache.deleteIfEquals(liveKeys.binding(liveRoomId), gameRoomId);
  }

  /** Starts a round: gifts from now on are counted in it; Douyin is told (best effort). */
  async startRound(liveRoomId: string): Promise<number> {
    const { count: roundId } = await this.cache.increment(liveKeys.roundSeq(liveRoomId), SESSION_TTL_MS / 1000);
    const startTime = Math.floor(this.now() / 1000);
    await this.cache.set(liveKeys.round(liveRoomId), JSON.stringify({ roundId, startTime }), SESSION_TTL_MS / 1000);
    await this.syncRound(liveRoomId, roundId, startTime, 0, 1, []);
    return roundId;
  }

  /**
   * Ends the running round: Douyin gets its status and the teams' results (1 win, 2 lose, 3 draw);
   * answers the round's gift totals per viewer from the ledger.
   */
  async endRound(liveRoomId: string, groupResults: Array<{ groupId: string; result: 1 | 2 | 3 }>): Promise<RoundResult | undefined> {
    const raw = await this.cache.get(liveKeys.round(liveRoomId));
    if (!raw) return undefined;
    const { roundId, startTime } = JSON.parse(raw) as { roundId: number; startTime: number };
    await this.cache.deleteIfEquals(liveKeys.round(liveRoomId), raw);
    await this.syncRound(liveRoomId, roundId, startTime, Math.floor(this.now() / 1000), 2, groupResults);
    return { roundId, totals: await this.ledger.roundTotals(liveRoomId, roundId) };
  }

  roundTotals(liveRoomId: string, roundId: number): Promise<ViewerRoundTotal[]> {
    return this.ledger.roundTotals(liveRoomId, roundId);
  }

  roundEntries(liveRoomId: string, roundId: number, limit = 500): Promise<LiveLedgerEntry[]> {
    return this.ledger.entries(liveRoomId, roundId, limit);
  }

  /**
   * Reads the failed-data query from the stored page on, for gifts and fan-club events; what it
   * returns joins the same dedupe. A page is saved as reached only once it is full (a partial last
   * page is read again next time, since Douyin may still add to it), so a restart repeats nothing
   * past the dedupe. One process at a time per room (a cache lock).
   */
  async pollFailedData(liveRoomId: string): Promise<number> {
    const lock = liveKeys.pollLock(liveRoomId);
    const holder = `${process.pid}:${this.now()}`;
    if (!(await this.cache.setIfAbsent(lock, holder, 60_000))) return 0;
    let taken = 0;
    try {
      for (const msgType of ["live_gift", "live_fansclub"] as const) {
        if (!this.settings.msgTypes.includes(msgType)) continue;
        let page = await this.ledger.failedDataPage(liveRoomId, msgType);
        for (let guard = 0; guard < 50; guard++) {
          const size = this.settings.failedDataPageSize;
          const got = await this.withToken((t) => this.api.failedData(t, liveRoomId, msgType, page, size));
          const messages = got.items.map((i) => readLivePayload(msgType, i.payload)).filter((m) => m !== undefined);
          if (messages.length > 0) await this.intake.accept(liveRoomId, msgType, messages, "failed_data");
          taken += messages.length;
          if (got.items.length < size) break;
          page++;
          await this.ledger.saveFailedDataPage(liveRoomId, msgType, page);
        }
      }
    } finally {
      await this.cache.deleteIfEquals(lock, holder);
    }
    return taken;
  }

  private async syncRound(liveRoomId: string, roundId: number, startTime: number, endTime: number, status: 1 | 2, groupResults: Array<{ groupId: string; result: 1 | 2 | 3 }>): Promise<void> {
    const session = await this.session(liveRoomId);
    await this.withToken((t) => this.api.syncRoundStatus(t, { anchorOpenId: session?.anchorOpenId ?? "", roomId: liveRoomId, roundId, startTime, endTime, status, groupResults })).catch((err: unknown) =>
      this.logger.warn({ err, liveRoomId, roundId }, "douyin live: round status not reported to Douyin"),
    );
  }
}

/**
 * `douyin_live`: one room per Douyin live room (docs/douyin-live.md). The streamer's game joins it with
 * the seat ticket POST /api/douyin-live/sessions gave it; viewers' events arrive as room messages
 * `comment`, `gift`, `like`, `fansclub` (each msg_id once: the room drops one it already sent).
 *
 * One per live room across processes: the room binds its live room in the shared cache at creation
 * (DouyinLiveSessions.bind) and refuses to exist when another room holds it, so the client's retry
 * finds that one (filterBy liveRoomId). Messages reach it over presence from whichever process got
 * the push. The game drives rounds: `round_start` → `round_started {roundId}`, `round_end {groups:
 * [{groupId, result: 1 win | 2 lose | 3 draw}]}` → `round_ended {roundId, totals}` (gift totals per
 * viewer from the ledger). When the room ends, the push tasks are stopped.
 */
import { Room, ServerError, type Client, type Presence } from "@colyseus/core";
import type { Logger } from "../src/logging/logger";
import type { LiveRoomMessage } from "../src/services/douyin-live/live-ports";
import type { DouyinLiveSessions } from "../src/services/douyin-live/live-sessions";

export const DOUYIN_LIVE_ROOM = "douyin_live";

export interface DouyinLiveRoomServices {
  sessions: DouyinLiveSessions;
  /** Gifts and fan-club events this room sent to a game client (the ledger stops redelivering them). */
  confirmDelivered(msgIds: string[]): Promise<void>;
  /** Sends the room what the ledger holds undelivered for its live room. */
  redeliver(liveRoomId: string): Promise<number>;
  watch(liveRoomId: string): void;
  unwatch(liveRoomId: string): void;
  logger: Logger;
  /** Pub/sub channels carry no key prefix: the deployment's is in the name (player-notices.ts says why). */
  keyPrefix: string;
}

let services: DouyinLiveRoomServices | undefined;

export function setDouyinLiveRoomServices(s: DouyinLiveRoomServices | undefined): void {
  services = s;
}

function required(): DouyinLiveRoomServices {
  if (!services) throw new ServerError(503, "douyin live is not enabled on this server");
  return services;
}

export const liveChannel = (keyPrefix: string, liveRoomId: string) => `${keyPrefix}douyin_live:${liveRoomId}`;

/** The delivery the intake uses: one publish to the live room's channel, heard by its room wherever it runs. */
export function publishToLiveRoom(presence: Presence, keyPrefix: string) {
  return async (liveRoomId: string, messages: LiveRoomMessage[]): Promise<void> => {
    await presence.publish(liveChannel(keyPrefix, liveRoomId), messages);
  };
}

const LIVE_ROOM_ID = /^\d{1,20}$/;
/** msg_ids remembered per room; Douyin's duplicates arrive within seconds, the sweep's within minutes. */
const SEEN_MAX = 100_000;
const BIND_REFRESH_MS = 10_000;

export class DouyinLiveRoom extends Room {
  override maxClients = 4;
  private liveRoomId = "";
  private readonly seen = new Set<string>();
  private refresh?: NodeJS.Timeout;
  private channel = "";
  /** Whether this room took the live room's binding: a room refused at creation must not stop its tasks. */
  private bound = false;

  override async onCreate(options: { liveRoomId?: unknown }): Promise<void> {
    const s = required();
    const liveRoomId = typeof options?.liveRoomId === "string" ? options.liveRoomId : "";
    if (!LIVE_ROOM_ID.test(liveRoomId)) throw new ServerError(400, "liveRoomId is required");
    this.liveRoomId = liveRoomId;
    this.channel = liveChannel(s.keyPrefix, liveRoomId);
    await this.presence.subscribe(this.channel, this.onLiveMessages);
    const holder = await s.sessions.bind(liveRoomId, this.roomId);
    if (holder !== this.roomId) {
      await this.presence.unsubscribe(this.channel, this.onLiveMessages);
      throw new ServerError(409, "another room already serves this live room; join again");
    }
    this.bound = true;
    s.watch(liveRoomId);
    this.refresh = setInterval(() => void s.sessions.bind(liveRoomId, this.roomId).catch(() => undefined), BIND_REFRESH_MS);
    this.onMessage("round_start", () => void this.startRound());
    this.onMessage("round_end", (_c: Client, body: unknown) => void this.endRound(body));
  }

  override async onAuth(_client: Client, options: { ticket?: unknown; liveRoomId?: unknown }): Promise<boolean> {
    const ticket = typeof options?.ticket === "string" ? options.ticket : "";
    if (options?.liveRoomId !== this.liveRoomId || !(await required().sessions.redeemTicket(ticket, this.liveRoomId))) {
      throw new ServerError(401, "a seat ticket from POST /api/douyin-live/sessions is required");
    }
    return true;
  }

  override async onDispose(): Promise<void> {
    clearInterval(this.refresh);
    const s = services;
    // A room refused at creation (another room holds the live room) leaves the holder's tasks,
    // watch and binding alone: stopping them would cut the stream the other room serves.
    if (!s || !this.bound) return;
    await this.presence.unsubscribe(this.channel, this.onLiveMessages);
    s.unwatch(this.liveRoomId);
    await s.sessions.unbind(this.liveRoomId, this.roomId).catch(() => undefined);
    await s.sessions.stop(this.liveRoomId).catch((err: unknown) => s.logger.warn({ err, liveRoomId: this.liveRoomId }, "douyin live: tasks not stopped"));
  }

  /** The streamer's game (re)joined: gifts that arrived while it was away, or while no room served the live room, now. */
  override onJoin(): void {
    const s = required();
    void s.redeliver(this.liveRoomId).catch((err: unknown) => s.logger.warn({ err, liveRoomId: this.liveRoomId }, "douyin live: held gifts not sent on join; the sweep sends them"));
  }

  /**
   * Broadcasts what it has not sent yet, and confirms gifts and fan-club events as delivered only when a
   * game client was there to receive them: with none (the game reconnecting after its host died or its
   * network dropped), nothing is taken, and the ledger's redelivery brings gifts again once it is back.
   */
  private readonly onLiveMessages = (messages: LiveRoomMessage[]): void => {
    if (!Array.isArray(messages) || this.clients.length === 0) return;
    const confirmed: string[] = [];
    for (const m of messages) {
      if (m.type === "gift" || m.type === "fansclub") confirmed.push(m.msgId);
      if (this.seen.has(m.msgId)) continue;
      if (this.seen.size >= SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
      this.seen.add(m.msgId);
      this.broadcast(m.type, m);
    }
    if (confirmed.length === 0) return;
    const s = required();
    void s.confirmDelivered(confirmed).catch((err: unknown) => s.logger.warn({ err, liveRoomId: this.liveRoomId }, "douyin live: delivery not confirmed; the sweep sends the gifts again (the room drops them)"));
  };

  private async startRound(): Promise<void> {
    const roundId = await required().sessions.startRound(this.liveRoomId);
    this.broadcast("round_started", { roundId });
  }

  private async endRound(body: unknown): Promise<void> {
    const groups = (body as { groups?: unknown } | undefined)?.groups;
    const results = Array.isArray(groups)
      ? groups
          .filter((g): g is { groupId: string; result: 1 | 2 | 3 } => typeof g?.groupId === "string" && g.groupId.length <= 64 && [1, 2, 3].includes(g?.result))
          .slice(0, 16)
      : [];
    const ended = await required().sessions.endRound(this.liveRoomId, results);
    if (ended) this.broadcast("round_ended", ended);
  }
}


/**
 * Douyin live-stream games (docs/douyin-live.md): the streamer's game hands the launch `token` Douyin
 * gave it to `client.douyinLive.start(token)` and gets its `douyin_live` room, where viewers' events
 * arrive as typed messages. No player login is needed: the launch token is the streamer's credential.
 *
 *   const live = await client.douyinLive.start(launchToken);
 *   live.onGift((g) => addPoints(g.secOpenid, g.giftValue));
 *   live.room.send("round_start");
 */
import type { Room } from "@colyseus/sdk";

interface Viewer {
  msgId: string;
  secOpenid: string;
  nickname: string;
  avatarUrl: string;
  timestamp: number;
}
export type LiveComment = Viewer & { type: "comment"; content: string };
/** `giftValue` is the total value in fen; `roundId` the round it counted in (0: none). */
export type LiveGift = Viewer & { type: "gift"; secGiftId: string; giftNum: number; giftValue: number; roundId: number };
export type LiveLike = Viewer & { type: "like"; likeNum: number };
export type LiveFansclub = Viewer & { type: "fansclub"; reasonType: number; level: number; roundId: number };
export interface LiveRoundEnded {
  roundId: number;
  totals: Array<{ secOpenid: string; nickname: string; giftNum: number; valueFen: number }>;
}

export interface LiveSession {
  liveRoomId: string;
  anchorOpenId: string;
  nickname: string;
  room: Room;
  onComment(listener: (m: LiveComment) => void): () => void;
  onGift(listener: (m: LiveGift) => void): () => void;
  onLike(listener: (m: LiveLike) => void): () => void;
  onFansclub(listener: (m: LiveFansclub) => void): () => void;
  /** Starts a round: gifts from now on count in it. */
  startRound(): Promise<number>;
  /** Ends it with the teams' results (1 win, 2 lose, 3 draw); answers the round's gift totals per viewer. */
  endRound(groups: Array<{ groupId: string; result: 1 | 2 | 3 }>): Promise<LiveRoundEnded>;
}

type Call = (request: { method: "POST"; path: string; body: unknown }) => Promise<any>;
/** msg_ids remembered per live room: the server sends a gift again when it cannot know the game had it. */
const SEEN_MAX = 20_000;
type Join = (roomName: string, options: Record<string, unknown>) => Promise<Room>;

export class DouyinLive {
  /** Per live room, across launches: a game that launches again after losing its room keeps its memory. */
  private readonly seen = new Map<string, Set<string>>();

  constructor(
    private readonly call: Call,
    private readonly join: Join,
  ) {}

  async start(token: string): Promise<LiveSession> {
    const data = await this.call({ method: "POST", path: "/api/douyin-live/sessions", body: { token } });
    const room = await this.join("douyin_live", { liveRoomId: data.live_room_id, ticket: data.ticket });
    // The server delivers gifts at least once (again after a crash between sending one and recording
    // that it was sent): the game hears each msgId once, whichever launch it came to.
    const seen = this.seen.get(data.live_room_id) ?? this.seen.set(data.live_room_id, new Set()).get(data.live_room_id)!;
    const listeners = new Map<string, Set<(m: never) => void>>();
    for (const type of ["comment", "gift", "like", "fansclub"]) {
      room.onMessage(type, (m: { msgId: string }) => {
        if (seen.has(m.msgId)) return;
        if (seen.size >= SEEN_MAX) seen.delete(seen.values().next().value!);
        seen.add(m.msgId);
        for (const listener of [...(listeners.get(type) ?? [])]) listener(m as never);
      });
    }
    const on = <T>(type: string) => (listener: (m: T) => void) => {
      const set = listeners.get(type) ?? listeners.set(type, new Set()).get(type)!;
      set.add(listener);
      return () => void set.delete(listener);
    };
    const next = <T>(type: string) => new Promise<T>((resolve) => {
      const off = room.onMessage(type, (m: T) => {
        off();
        resolve(m);
      });
    });
    return {
      liveRoomId: data.live_room_id,
      anchorOpenId: data.anchor_open_id,
      nickname: data.nickname,
      room,
      onComment: on<LiveComment>("comment"),
      onGift: on<LiveGift>("gift"),
      onLike: on<LiveLike>("like"),
      onFansclub: on<LiveFansclub>("fansclub"),
      startRound: async () => {
        const started = next<{ roundId: number }>("round_started");
        room.send("round_start");
        return (await started).roundId;
      },
      endRound: async (groups) => {
        const ended = next<LiveRoundEnded>("round_ended");
        room.send("round_end", { groups });
        return ended;
      },
    };
  }
}

/** Shared-cache keys of the Douyin live service (the cache adds the deployment's prefix). */
export const liveKeys = {
  /** The game room bound to a live room: `{gameRoomId}`, refreshed while the room lives. */
  binding: (liveRoomId: string) => `douyin_live:bind:${liveRoomId}`,
  /** The round running in a live room: `{roundId, startTime}`; absent between rounds. */
  round: (liveRoomId: string) => `douyin_live:round:${liveRoomId}`,
  /** The last round number a live room used (rounds count up from 1). */
  roundSeq: (liveRoomId: string) => `douyin_live:round_seq:${liveRoomId}`,
  /** A comment's or like's msg_id already delivered. */
  seen: (msgId: string) => `douyin_live:seen:${msgId}`,
  /** The session a streamer started: `{anchorOpenId, nickName, avatarUrl, tasks}`. */
  session: (liveRoomId: string) => `douyin_live:session:${liveRoomId}`,
  /** A one-use seat ticket for a live room's game room: `{liveRoomId}`. */
  ticket: (ticket: string) => `douyin_live:ticket:${ticket}`,
  /** Only one process polls a room's failed data at a time. */
  pollLock: (liveRoomId: string) => `douyin_live:poll:${liveRoomId}`,
};

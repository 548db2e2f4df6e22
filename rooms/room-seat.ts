/**
 * Where a player sits: asked of every room by the console's player screen through
 * `matchMaker.remoteRoomCall(roomId, "seatOf", [userId])`, which reaches a room on any process
 * (over the presence when it is on another). Answers with this process's host, which the room
 * listings do not carry.
 */
import os from "node:os";

export interface RoomSeat {
  host: string;
  pid: number;
  /** False while the player's seat is held for a reconnection. */
  connected: boolean;
}

export function seatIn(room: { holdsUser(userId: string): boolean; clients: Iterable<{ auth?: { userId: string } }> }, userId: string): RoomSeat | null {
  if (!room.holdsUser(userId)) return null;
  const connected = [...room.clients].some((client) => client.auth?.userId === userId);
  return { host: os.hostname(), pid: process.pid, connected };
}

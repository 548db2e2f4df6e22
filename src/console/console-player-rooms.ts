/**
 * The rooms a player is in right now, on every process: the room listings (shared through Redis
 * with several processes) narrowed to the apps where the player has a live session, then each room
 * asked for the player's seat (`seatOf`, rooms/room-seat.ts), over the presence where it is on
 * another process. A room that does not answer in time is counted, not guessed.
 */
import { matchMaker } from "@colyseus/core";
import { listedApp } from "../../rooms/AuthenticatedRoom";
import type { RoomSeat } from "../../rooms/room-seat";

/** How long a room on another process has to answer; an operator's page should not hang. */
const ASK_TIMEOUT_MS = 2000;

export interface PlayerRoom {
  roomId: string;
  roomType: string;
  app: string | null;
  processId: string;
  host: string;
  pid: number;
  /** False while the seat is held for the player's reconnection. */
  connected: boolean;
  clients: number;
}

export async function playerRooms(userId: string, liveApps: readonly string[]): Promise<{ rooms: PlayerRoom[]; unanswered: number }> {
  // Without a live session the player holds no seat anywhere: a session's end closes them.
  if (liveApps.length === 0) return { rooms: [], unanswered: 0 };
  const listings = await matchMaker.query({});
  const candidates = listings.filter((l) => {
    const app = listedApp(l);
    return app === undefined || liveApps.includes(app);
  });
  let unanswered = 0;
  const rooms: PlayerRoom[] = [];
  await Promise.all(
    candidates.map(async (listing) => {
      let seat: RoomSeat | null;
      try {
        seat = (await matchMaker.remoteRoomCall(listing.roomId, "seatOf", [userId], ASK_TIMEOUT_MS)) as RoomSeat | null;
      } catch {
        unanswered++; // disposed meanwhile, or its process is gone or slow
        return;
      }
      if (!seat) return;
      rooms.push({ roomId: listing.roomId, roomType: listing.name, app: listedApp(listing) ?? null, processId: listing.processId, host: seat.host, pid: seat.pid, connected: seat.connected, clients: listing.clients });
    }),
  );
  rooms.sort((a, b) => a.roomType.localeCompare(b.roomType) || a.roomId.localeCompare(b.roomId));
  return { rooms, unanswered };
}

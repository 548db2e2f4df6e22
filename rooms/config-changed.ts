/**
 * The `configChanged` room message (docs/liveops.md): when this process takes up a newer LiveOps
 * version of an app — published here, or by another process and seen by this one's refresh within
 * LIVEOPS_REFRESH_MS — every player of that app connected to a room of this process is sent
 * `{app, version}`. No pub/sub is needed: each process tells its own clients when its own copy
 * changes. The message says only that something changed; the client asks GET /api/config what
 * changed for its player (an ETag makes that a 304 when nothing did).
 */
import { matchMaker } from "@colyseus/core";
import type { Logger } from "../src/logging/logger";
import type { PlayerAuth } from "./AuthenticatedRoom";

export const CONFIG_CHANGED_MESSAGE = "configChanged";

/** What LiveOps offers the rooms: a listener on versions taken up, and its removal. */
export interface ConfigVersions {
  onChange(listener: (app: string, version: number) => void): () => void;
}

/** Starts telling the rooms' clients; the returned function stops it (at shutdown). */
export function tellRoomsOfConfigChanges(liveops: ConfigVersions, logger: Logger): () => void {
  return liveops.onChange((app, version) => {
    sendToApp(app, { app, version }).catch((err: unknown) => logger.warn({ err, app, version }, "could not tell the rooms of a liveops change"));
  });
}

async function sendToApp(app: string, message: { app: string; version: number }): Promise<void> {
  const listings = await matchMaker.query({ processId: matchMaker.processId });
  // A room may be listed twice (a stale copy in the Redis driver's cache): each is told once.
  for (const roomId of new Set(listings.map((listing) => listing.roomId))) {
    const room = matchMaker.getLocalRoomById(roomId);
    if (!room) continue;
    for (const client of room.clients) {
      if ((client.auth as PlayerAuth | undefined)?.app === app) client.send(CONFIG_CHANGED_MESSAGE, message);
    }
  }
}

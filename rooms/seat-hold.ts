/**
 * Holding a dropped player's seat. Colyseus 0.16's own `allowReconnection(client, seconds)` times
 * the hold with the process's setTimeout; the hold is made "manual" here and timed by a HoldTimer,
 * so that a test can show the default hold (ROOM_RECONNECT_SECONDS) covering a 25 s background or a
 * 30 s ad on a controllable clock, without waiting for it.
 */
import type { Client, Deferred, Room } from "@colyseus/core";
import type { HoldTimer } from "../src/server/container";

const processTimer: HoldTimer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Why a held seat was let go; the hold's deferred rejects with one of these as its message. */
export const HOLD_EXPIRED = "seat_hold_expired";

/**
 * Keeps `client`'s seat for `seconds`: resolves with the client that came back, rejects when the
 * hold expires (or the room rejects it: a session that ended, a seat taken again, disposal).
 */
export function holdSeat(room: Room, client: Client, seconds: number, timer: HoldTimer = processTimer): Deferred<Client> {
  const deferred = room.allowReconnection(client, "manual");
  // Refused outright (the room is disposing, or the client never joined): nothing to time.
  if (typeof deferred.reject !== "function") return deferred;
  const handle = timer.setTimeout(() => deferred.reject(new Error(HOLD_EXPIRED)), seconds * 1000);
  const stop = () => timer.clearTimeout(handle);
  deferred.then(stop).catch(stop);
  return deferred;
}

/**
 * A reconnection presenting the token of a client the room still counts as connected: the player's
 * device lost that connection (a network switch: no close ever reached the server), and the server
 * would only notice at its next failed ping. Cut that connection now, so the hold starts and the
 * client's next attempt, a moment later, finds its seat. The token is a secret only that client was
 * given (over its own socket), so nobody else can cut a player's connection this way.
 */
export function cutStaleConnection(clients: Iterable<Client>, reconnectionToken: string): boolean {
  for (const client of clients) {
    if (client.reconnectionToken !== reconnectionToken) continue;
    const socket = client.ref as { terminate?: () => void } | undefined;
    if (typeof socket?.terminate === "function") socket.terminate();
    else client.leave(1006);
    return true;
  }
  return false;
}

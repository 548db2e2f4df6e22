/**
 * Holding a dropped player's seat (AuthenticatedRoom.onDrop). Colyseus 0.18's own
 * `allowReconnection(client, seconds)` times the hold with the process's setTimeout; the hold is made
 * "manual" here and timed by a HoldTimer, so that a test can show the default hold
 * (ROOM_RECONNECT_SECONDS) covering a 25 s background or a 30 s ad on a controllable clock, without
 * waiting for it.
 */
import type { Client, Deferred, Room } from "@colyseus/core";
import type { HoldTimer } from "../src/services/services";

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
export function holdSeat(room: Room, client: Client, seconds: number, timer: HoldTimer = processTimer, alsoTokens: string[] = []): Deferred<Client> {
  const internals = client as unknown as { _enqueuedMessages?: unknown };
  // A reconnection (it has earlier tokens) that dropped before the client confirmed its join:
  // Colyseus would refuse to hold it ("not joined") and the seat would be lost to one more flap of
  // the network. A first join that never completed is still refused: that player had no seat yet.
  const isReconnection = alsoTokens.some((token) => token !== client.reconnectionToken);
  if (isReconnection && internals._enqueuedMessages !== undefined) delete internals._enqueuedMessages;
  const deferred = room.allowReconnection(client, "manual");
  // Refused outright (the room is disposing): nothing to time.
  if (typeof deferred.reject !== "function") return deferred;
  const reconnections = (room as unknown as { _reconnections: Record<string, unknown> })._reconnections;
  const entry = reconnections[client.reconnectionToken];
  const aliases = alsoTokens.filter((token) => token !== client.reconnectionToken && !(token in reconnections));
  for (const token of aliases) reconnections[token] = entry;
  const handle = timer.setTimeout(() => deferred.reject(new Error(HOLD_EXPIRED)), seconds * 1000);
  const stop = () => {
    timer.clearTimeout(handle);
    for (const token of aliases) if (reconnections[token] === entry) delete reconnections[token];
  };
  deferred.then(stop).catch(stop);
  return deferred;
}

/** Whether the client confirmed its join (it then surely has the reconnection token it was sent). */
export function joinConfirmed(client: Client): boolean {
  return (client as unknown as { _enqueuedMessages?: unknown })._enqueuedMessages === undefined;
}

/**
 * The reconnection tokens a player may still hold, per seat. A client learns a new token when its
 * (re)join is answered; if the connection drops before it confirms the join, the server cannot know
 * whether the answer arrived, so the seat is held under every token sent since the last confirmed
 * join. Bounded: a flapping network sends a handful at most.
 */
export class SeatTokens {
  private readonly tokens = new Map<string, string[]>();

  /** The tokens to hold `client`'s seat under, besides its current one. */
  candidates(client: Client): string[] {
    const earlier = joinConfirmed(client) ? [] : this.tokens.get(client.sessionId) ?? [];
    const all = [...earlier.filter((t) => t !== client.reconnectionToken), client.reconnectionToken].slice(-8);
    this.tokens.set(client.sessionId, all);
    return all;
  }

  forget(sessionId: string): void {
    this.tokens.delete(sessionId);
  }
}

/**
 * A reconnection presenting the token of a client the room still counts as connected: the player's
 * device lost that connection (a network switch: no close ever reached the server), and the server
 * would only notice at its next failed ping. Colyseus 0.18 cuts it on a reconnection through
 * `/matchmake/reconnect`, but a reconnection straight over the WebSocket (the 0.18 SDK's automatic
 * one) waits until the ping fails, up to the seat reservation time: our room transport cuts it at
 * once (room-transport.ts), so the hold starts and the reconnection finds its seat. The token is a secret only that client was
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

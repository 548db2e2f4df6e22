import type { Room } from "@colyseus/sdk";
import type { RewardEvent } from "./economy";
import type { PlayerConfig } from "./liveops";
import type { Session } from "./session";

export interface GameClientEvents extends Record<string, unknown> {
  /** A login, a refresh, or a logout changed the stored session (null after logout). */
  sessionChanged: Session | null;
  /** The server ended the session (logout elsewhere, a newer login, disabled user…): show the login screen. */
  sessionEnded: { code: string };
  /** The same player took this seat from a newer join; still logged in, just not here. */
  seatReplaced: { room: Room; code: number };
  /**
   * With reconnection turned off (`reconnection: false`): the network dropped a room connection;
   * `client.reconnect(reconnectionToken)` may bring it back. With it on, the client does that itself.
   */
  connectionLost: { room: Room; code: number; reconnectionToken: string };
  /** A room's connection dropped and the client is taking its seat back: attempt 1, 2… (`code`: the close). */
  reconnecting: { room: Room; attempt: number; code: number };
  /** The room is back, the same Room object with the same seat and handlers; its state is the server's again. */
  reconnected: { room: Room; attempts: number; offlineMs: number };
  /** The seat could not be taken back; the room's onLeave follows with `code`. Join again to play on. */
  reconnectFailed: { room: Room; reason: ReconnectFailure; code: number };
  /** A grant reached the player while in a room (a room's `reward` message): what, from where, balances after. */
  reward: RewardEvent;
  /**
   * A newer LiveOps version reached this player: seen by `config()`, or announced by a room (its
   * `configChanged` message), after which the client fetched the config itself. The payload is it.
   */
  configChanged: PlayerConfig;
}

/**
 * Why a reconnection ended without the room (stable values):
 * - `seat_expired`: the server no longer holds the seat (the hold ran out, the room closed, or the
 *   player took a seat again elsewhere);
 * - `session_ended`: the session ended meanwhile (a `sessionEnded` event says why) or the player logged out;
 * - `gave_up`: the game's bound (`reconnection.maxSeconds` / `maxAttempts`) was reached, e.g. no network.
 */
export type ReconnectFailure = "seat_expired" | "session_ended" | "gave_up";

export type Listener<T> = (payload: T) => void;

/** A minimal typed emitter (the runtimes have no EventTarget). */
export class Emitter<Events extends Record<string, unknown>> {
  private readonly listeners: { [K in keyof Events]?: Array<Listener<Events[K]>> } = {};

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    (this.listeners[event] ??= []).push(listener);
    return () => {
      this.listeners[event] = (this.listeners[event] ?? []).filter((l) => l !== listener);
    };
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of (this.listeners[event] ?? []).slice()) {
      try {
        listener(payload);
      } catch (err) {
        // A game's handler must not break the client's own bookkeeping.
        if (typeof console !== "undefined") console.error(err);
      }
    }
  }
}

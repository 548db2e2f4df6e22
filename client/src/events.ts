import type { Room } from "colyseus.js";
import type { RewardEvent } from "./economy";
import type { Session } from "./session";

export interface GameClientEvents extends Record<string, unknown> {
  /** A login, a refresh, or a logout changed the stored session (null after logout). */
  sessionChanged: Session | null;
  /** The server ended the session (logout elsewhere, a newer login, disabled user…): show the login screen. */
  sessionEnded: { code: string };
  /** The same player took this seat from a newer join; still logged in, just not here. */
  seatReplaced: { room: Room; code: number };
  /** The network dropped a room connection; `client.reconnect(reconnectionToken)` may bring it back. */
  connectionLost: { room: Room; code: number; reconnectionToken: string };
  /** A grant reached the player while in a room (a room's `reward` message): what, from where, balances after. */
  reward: RewardEvent;
}

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

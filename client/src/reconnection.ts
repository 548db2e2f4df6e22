/**
 * Rooms that come back by themselves. A joined room whose connection drops (a network switch; the
 * runtime closing sockets while the game is in the background or an ad plays) is taken back with
 * its reconnection token on the same Room object, with backoff, while the server holds the seat
 * (ROOM_RECONNECT_SECONDS on the server, 60 s by default). The runtime's onShow after onHide cuts a
 * backoff wait short. The session is refreshed first when the token expired meanwhile.
 */
import { ServerError, type Room } from "@colyseus/sdk";
import type { RuntimeColyseusClient } from "./colyseus/runtime-colyseus-client";
import { ApiError, SESSION_ENDING_CODES } from "./errors";
import type { Emitter, GameClientEvents, ReconnectFailure } from "./events";
import type { Runtime } from "./runtime";
import type { SessionKeeper } from "./session-keeper";

export interface ReconnectionOptions {
  /** false: a dropped room leaves (`connectionLost`, then the room's onLeave), as before this feature. */
  enabled?: boolean;
  /** Give up after this long without the room (default 120 s; the server's hold usually decides first). */
  maxSeconds?: number;
  /** Give up after this many attempts (default: no limit but maxSeconds). */
  maxAttempts?: number;
  /** First wait between attempts (default 250 ms), doubling up to maxDelayMs (default 4 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * "The seat is not held": Colyseus 0.18's MATCHMAKE_EXPIRED (524, the token is unknown or
 * expired) and MATCHMAKE_INVALID_ROOM_ID (522, the room is gone). A 524 can also come before the
 * server has noticed the drop, so only one that persists this long counts.
 */
const SEAT_EXPIRED = 524;
const ROOM_GONE = 522;
const EXPIRED_CONFIRM_MS = 3000;
/** An attempt whose socket neither opens nor fails (a network that swallows packets) is abandoned. */
const ATTEMPT_TIMEOUT_MS = 10_000;

interface Kept {
  room: Room;
  rootSchema: unknown;
  generation: number;
  /** Set while reconnecting: wakes a backoff wait early (onShow), or stops it (leave). */
  wake?: () => void;
  /** Set while a rejoined connection waits for its state: a drop then fails the attempt. */
  droppedDuringAttempt?: () => void;
  stopped?: boolean;
  /** The SDK's own leave, for a seat an attempt took back after the game had left. */
  leave?: (consented?: boolean) => Promise<number>;
}

export class RoomKeeper {
  private readonly options: Required<ReconnectionOptions>;
  private readonly kept = new Set<Kept>();

  constructor(
    private readonly colyseus: RuntimeColyseusClient,
    private readonly sessions: SessionKeeper,
    private readonly events: Emitter<GameClientEvents>,
    runtime: Runtime,
    options: ReconnectionOptions | false | undefined,
    private readonly now: () => number,
    /** False when the server says the session is over (a protected call; it ends the session here too). */
    private readonly sessionAlive: () => Promise<boolean>,
  ) {
    const given = options === false ? { enabled: false } : options ?? {};
    this.options = {
      enabled: given.enabled ?? true,
      maxSeconds: given.maxSeconds ?? 120,
      maxAttempts: given.maxAttempts ?? Infinity,
      minDelayMs: given.minDelayMs ?? 250,
      maxDelayMs: given.maxDelayMs ?? 4000,
    };
    if (!this.options.enabled) return;
    colyseus.onConnectionLoss = (room, code) => this.lost(room, code);
    runtime.onShow?.(() => {
      // Back in the foreground: whatever waits for its next attempt tries now.
      for (const entry of this.kept) entry.wake?.();
    });
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** A room just joined with the session of `generation`: kept until it leaves. */
  keep(room: Room, rootSchema: unknown, generation: number): void {
    if (!this.options.enabled) return;
    const entry: Kept = { room, rootSchema, generation };
    this.kept.add(entry);
    room.onLeave(() => {
      this.kept.delete(entry);
    });
    // A leave while reconnecting has no connection to send it on: the room just leaves here
    // (the server lets the seat go when its hold ends).
    const leave = room.leave.bind(room);
    entry.leave = leave;
    room.leave = (consented = true) => {
      if (!entry.wake) return leave(consented);
      entry.stopped = true;
      entry.wake();
      return Promise.resolve(this.finish(entry, 4000));
    };
  }

  /**
   * A joined room's socket closed without the client or the game asking. Codes from 4000 are the
   * server's (a leave, a replaced seat, an ended session); below, the network or the runtime ended
   * it. That includes 1000: WeChat closes a backgrounded game's sockets with 1000 "interrupted".
   */
  private lost(room: Room, code: number): boolean {
    const entry = [...this.kept].find((k) => k.room === room);
    if (!entry || code >= 4000) return false;
    if (entry.wake) {
      // Joined again, then dropped before the state came: that attempt failed, the loop goes on.
      entry.droppedDuringAttempt?.();
      return !!entry.droppedDuringAttempt;
    }
    void this.reconnect(entry, code);
    return true;
  }

  private async reconnect(entry: Kept, code: number): Promise<void> {
    const { room } = entry;
    const started = this.now();
    let delayMs = this.options.minDelayMs;
    let expiredSince: number | undefined;
    entry.wake = () => undefined;
    for (let attempt = 1; ; attempt++) {
      if (entry.stopped) return;
      this.events.emit("reconnecting", { room, attempt, code });
      const failure = await this.attempt(entry);
      if (entry.stopped) {
        // The game left while this attempt was taking the seat back: give it up at once.
        if (failure === undefined) void entry.leave?.(true).catch(() => undefined);
        return;
      }
      if (failure === undefined) {
        entry.wake = undefined;
        this.events.emit("reconnected", { room, attempts: attempt, offlineMs: this.now() - started });
        return;
      }
      if (failure === "seat_expired_maybe") {
        expiredSince ??= this.now();
        if (this.now() - expiredSince >= EXPIRED_CONFIRM_MS) return this.seatGone(entry, code);
      } else if (failure === "seat_expired") {
        return this.seatGone(entry, code);
      } else if (failure !== "retry") {
        return this.fail(entry, failure, code);
      } else expiredSince = undefined;
      if (attempt >= this.options.maxAttempts || this.now() - started >= this.options.maxSeconds * 1000) return this.fail(entry, "gave_up", code);
      await this.pause(entry, delayMs);
      delayMs = Math.min(delayMs * 2, this.options.maxDelayMs);
    }
  }

  /** A session that ended while the player was away takes the seat with it: say which it was. */
  private async seatGone(entry: Kept, code: number): Promise<void> {
    const alive = await this.sessionAlive();
    if (!entry.stopped) this.fail(entry, alive ? "seat_expired" : "session_ended", code);
  }

  /** One try: undefined when back; otherwise what to do next. */
  private async attempt(entry: Kept): Promise<"retry" | "seat_expired_maybe" | ReconnectFailure | undefined> {
    try {
      return await this.tryOnce(entry);
    } finally {
      entry.droppedDuringAttempt = undefined;
    }
  }

  private async tryOnce(entry: Kept): Promise<"retry" | "seat_expired_maybe" | ReconnectFailure | undefined> {
    if (entry.generation !== this.sessions.generation || !this.sessions.session) return "session_ended";
    try {
      // The seat does not need the token, but a session that ended must not come back, and the
      // game's next calls want a live token: refresh now if it expired while we were away.
      await this.sessions.validToken();
    } catch (err) {
      if (err instanceof ApiError && (SESSION_ENDING_CODES.has(err.code) || err.code === "not_logged_in")) return "session_ended";
      return "retry";
    }
    try {
      // `reconnected` waits for the full state the server sends after the join: the game then sees the state it missed.
      const resynced = stateArrives(entry.room);
      await withTimeout(this.colyseus.resume(entry.room), ATTEMPT_TIMEOUT_MS, () => entry.room.connection?.close());
      const dropped = new Promise<"dropped">((resolve) => (entry.droppedDuringAttempt = () => resolve("dropped")));
      const outcome = await withTimeout(Promise.race([resynced, dropped]), ATTEMPT_TIMEOUT_MS, () => entry.room.connection?.close()).catch(() => "dropped" as const);
      return outcome === "dropped" ? "retry" : undefined;
    } catch (err) {
      const status = err instanceof ServerError || (err as { code?: unknown })?.code !== undefined ? Number((err as { code?: unknown }).code) : 0;
      if (status === ROOM_GONE) return "seat_expired";
      if (status === SEAT_EXPIRED) return "seat_expired_maybe";
      return "retry";
    }
  }

  private pause(entry: Kept, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      entry.wake = done;
    });
  }

  private fail(entry: Kept, reason: ReconnectFailure, code: number): void {
    this.events.emit("reconnectFailed", { room: entry.room, reason, code });
    this.finish(entry, code);
  }

  /** The room leaves for good: its onLeave handlers hear `code`, then the SDK clears them. */
  private finish(entry: Kept, code: number): number {
    entry.wake = undefined;
    entry.stopped = true;
    this.kept.delete(entry);
    const room = entry.room as unknown as { onLeave: { invoke(code: number, reason?: string): void }; destroy(): void };
    room.onLeave.invoke(code, "reconnection ended");
    room.destroy();
    return code;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new Error("reconnection attempt timed out"));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * The room's next state (a room without state gets none: resolves at once). Not `once`: the SDK's
 * signals remove a one-shot handler while calling the list, which skips the handler after it (the
 * game's). The listener leaves after the call instead.
 */
function stateArrives(room: Room): Promise<void> {
  const serializer = (room as unknown as { serializer?: { decoder?: unknown } }).serializer;
  if (!serializer?.decoder) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = () => {
      void Promise.resolve().then(() => room.onStateChange.remove(listener));
      resolve();
    };
    room.onStateChange(listener);
  });
}

import { MatchMakeError, ServerError, type Room } from "@colyseus/sdk";
import { SEAT_REPLACED_CLOSE_CODE, SESSION_ENDED_CLOSE_CODE, isConnectionLoss } from "./close-codes";
import type { RuntimeColyseusClient } from "./colyseus/runtime-colyseus-client";
import { delay } from "./delay";
import type { RewardEvent } from "./economy";
import { ApiError } from "./errors";
import type { Emitter, GameClientEvents } from "./events";
import { NetworkError } from "./runtime";
import type { RoomKeeper } from "./reconnection";
import type { SessionKeeper } from "./session-keeper";

export type JoinMethod = "joinOrCreate" | "create" | "join" | "joinById";

/** Seats taken with the session's access token; the server's closes of them become the client's events. */
export class RoomConnector {
  /** A room's `configChanged` message: a newer LiveOps version is out (the game client fetches it). */
  onConfigChanged: (() => void) | undefined;

  constructor(
    private readonly colyseus: RuntimeColyseusClient,
    private readonly sessions: SessionKeeper,
    private readonly events: Emitter<GameClientEvents>,
    private readonly keeper: RoomKeeper,
  ) {}

  async matchmake<T>(method: JoinMethod, roomNameOrId: string, options: Record<string, unknown>, rootSchema?: any): Promise<Room<any, T>> {
    const once = async (token: string) => {
      const generation = this.sessions.generation;
      return this.watch(await this.colyseus[method]<T>(roomNameOrId, { ...options, accessToken: token }, rootSchema), generation, rootSchema);
    };
    const attempt = async (token: string) => {
      try {
        return await once(token);
      } catch (err) {
        // The seat lapsed before our socket reached it (a slow network, or the room closing meanwhile): nothing is held, ask again once.
        if (!isSeatExpired(err)) throw err;
        return once(this.sessions.requireSession().token);
      }
    };
    const token = await this.sessions.validToken();
    try {
      return await attempt(token);
    } catch (err) {
      const failure = toApiError(err);
      if (!(await this.sessions.recover(failure, token))) throw failure;
      try {
        return await attempt(this.sessions.requireSession().token);
      } catch (again) {
        throw toApiError(again);
      }
    }
  }

  /** Backoff 0.25 s doubling to 2 s, given up once the session changed. */
  async reconnect<T>(reconnectionToken: string, rootSchema: any, attempts: number): Promise<Room<any, T>> {
    const generation = this.sessions.generation;
    for (let attempt = 1; ; attempt++) {
      try {
        return this.watch(await this.colyseus.reconnect<T>(reconnectionToken, rootSchema), generation, rootSchema);
      } catch (err) {
        if (attempt >= attempts || generation !== this.sessions.generation) throw toApiError(err);
        await delay(Math.min(250 * 2 ** (attempt - 1), 2000));
      }
    }
  }

  private watch<T>(room: Room<any, T>, generation: number, rootSchema: unknown): Room<any, T> {
    this.keeper.keep(room, rootSchema, generation);
    room.onMessage("reward", (message: RewardEvent) => this.events.emit("reward", message));
    room.onMessage("configChanged", () => this.onConfigChanged?.());
    room.onLeave((code: number) => {
      if (code === SESSION_ENDED_CLOSE_CODE) {
        this.sessions.endedByRoomClose(generation);
      } else if (code === SEAT_REPLACED_CLOSE_CODE) {
        this.events.emit("seatReplaced", { room, code });
      } else if (isConnectionLoss(code) && !this.keeper.enabled) {
        this.events.emit("connectionLost", { room, code, reconnectionToken: room.reconnectionToken });
      }
    });
    return room;
  }
}

/** SDK errors as ApiErrors: the server's room auth answers `ServerError(status, code)`. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof NetworkError) return new ApiError(0, "network_error", err.message);
  if (err instanceof MatchMakeError || err instanceof ServerError) {
    const status = typeof err.code === "number" ? err.code : 0;
    const stable = /^[a-z][a-z0-9_]*$/.test(err.message);
    // Colyseus's own codes: its matchmaking codes (520–526) and WebSocket closes (≥ 1000, e.g. 4002), not HTTP statuses of ours.
    const colyseusOwn = (status >= 520 && status <= 526) || status >= 1000;
    const fallback = status >= 1000 && !(err instanceof MatchMakeError) ? "room_connect_failed" : "matchmake_failed";
    return new ApiError(colyseusOwn ? 0 : status, stable ? err.message : fallback, err.message, { colyseusCode: status });
  }
  return new ApiError(0, "room_connect_failed", err instanceof Error ? err.message : String(err));
}

/** Colyseus 0.18's MATCHMAKE_EXPIRED (524): "seat reservation expired". */
function isSeatExpired(err: unknown): boolean {
  return err instanceof ServerError && err.code === 524;
}

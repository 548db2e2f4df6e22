import { Room, ServerError, type AuthContext as ColyseusAuthContext, type Client } from "@colyseus/core";
import type { Deferred, RoomException } from "@colyseus/core";
import { AppError, ERROR_CODES } from "../src/core/errors";
import { DEFAULT_APP } from "../src/core/apps";
import { bearerToken } from "../src/core/credentials";
import type { TextScene } from "../src/services/moderation-service";
import { roomServices } from "./room-services";
import { APP_OPTION, refuseOtherAppsRoom } from "./room-app";
// Where rooms have always found them: define every room with `.filterBy(APP_FILTER)`.
export { APP_FILTER, APP_OPTION, listedApp } from "./room-app";
import { seatIn, type RoomSeat } from "./room-seat";
import { holdSeat, SeatTokens } from "./seat-hold";
import { SESSION_ENDED_CLOSE_CODE, type GuardedRoom } from "./session-guard";

/** What `client.auth` holds in every room: who the player is, from the verified token. */
export interface PlayerAuth {
  userId: string;
  /** The game (app key) the player's session is of: the room must be of the same. */
  app: string;
  sid: string;
  username: string;
  nickname: string | null;
}

export type PlayerClient = Client<{ auth: PlayerAuth }>;

/** Every joined client of an AuthenticatedRoom has auth: onAuth ran before its seat existed. */
export function playerOf(client: PlayerClient): PlayerAuth {
  if (!client.auth) throw new Error("client joined without auth");
  return client.auth;
}

/**
 * Close code sent to a client whose seat the same player took again from a newer join (another
 * tab, device or a retry). Not a logout: the player's session goes on. The game client library
 * mirrors it (client/src/close-codes.ts) and surfaces it as its own event.
 */
export const SEAT_REPLACED_CLOSE_CODE = 4409;

/** Join options that may carry the token; removed before onCreate/onJoin see the options. */
const TOKEN_OPTIONS = ["accessToken", "token"] as const;

/**
 * Colyseus retries joinOrCreate (up to 5 times, when a seat reservation races) with the same
 * options object and calls onAuth again. The token is gone from it by then, so the first
 * verdict is remembered per options object.
 */
const verdicts = new WeakMap<object, PlayerAuth>();

/**
 * Base of every room: no room can forget auth. The static onAuth runs on the matchmake request,
 * before a room or seat exists, and uses the same `verifyAccessToken` as the HTTP Bearer middleware.
 * Session ends reach connected clients through the RoomSessionGuard.
 */
export abstract class AuthenticatedRoom<State extends object = object, Metadata = unknown>
  extends Room<{ state: State; metadata: Metadata; client: PlayerClient }>
  implements GuardedRoom
{
  /**
   * Seconds a dropped client's seat is held while its session lives (the client reconnects by itself
   * meanwhile); undefined: ROOM_RECONNECT_SECONDS. A room type overrides it by setting it; 0 releases
   * the seat at once.
   */
  protected reconnectionSeconds: number | undefined = undefined;
  /** The app (key) of the player whose join created the room; only its players are seated. */
  app = DEFAULT_APP;
  private readonly pendingReconnections = new Map<string, { sid: string; userId: string; deferred: Deferred<Client> }>();
  /** The reconnection tokens each held seat answers to (seat-hold.ts). */
  private readonly seatTokens = new SeatTokens();
  /** Clients closed because the player joined again: they leave for good, with no reconnection. */
  private readonly replacedSeats = new WeakSet<Client>();
  /**
   * The user ids of the clients and pending reconnections, built when first asked after a change.
   * Every session change anywhere in the cluster asks every room of every process (holdsUser):
   * scanning the clients each time cost O(clients in the process) per login.
   */
  private seatedUsers: Set<string> | undefined;

  constructor() {
    super();
    // One seat per player: every join first closes the player's earlier seat. Done by wrapping
    // whatever onJoin the subclass defines, so a room cannot opt out by overriding onJoin.
    const subclassJoin = this.onJoin;
    this.onJoin = (client: PlayerClient, options?: unknown, auth?: PlayerAuth) => {
      // Matchmaking by APP_FILTER and onAuth's check keep other apps out; this holds for any way in.
      if (playerOf(client).app !== this.app) throw new ServerError(ERROR_CODES.app_mismatch.status, "app_mismatch");
      this.seatsChanged(); // Colyseus has just added the client
      this.replaceEarlierSeats(client);
      roomServices().roomSessions?.start(this.app, playerOf(client).userId, this.roomName, `${this.roomId}/${client.sessionId}`);
      return subclassJoin?.call(this, client, options, auth);
    };
  }

  /**
   * An error a room's handler throws (a message handler, a timer of the room's clock, onLeave,
   * onDispose) would reach the process's uncaughtException handler, where Colyseus shuts the server
   * down: one player's message would end every room of the process. Defining this makes Colyseus
   * catch them (onCreate, onAuth and onJoin still refuse as they did); each is logged, the room goes on.
   */
  override onUncaughtException(error: RoomException<this>, methodName: string): void {
    const cause = (error as { cause?: unknown }).cause;
    // A refusal we raise on purpose (AppError, ServerError) is the client's answer, not a failure.
    if (cause instanceof AppError || cause instanceof ServerError) return;
    roomServices().logger.error({ err: cause ?? error, room: this.roomName, roomId: this.roomId, method: methodName, event: "room_error_escaped" }, "an error escaped a room handler; the room and the process go on");
  }

  static override async onAuth(bearer: string | undefined, options: unknown, context: ColyseusAuthContext): Promise<PlayerAuth> {
    const earlier = options && typeof options === "object" ? verdicts.get(options) : undefined;
    if (earlier) return earlier;
    const token = takeToken(options, bearer, context);
    const { sessions, limiter, rateLimit } = roomServices();
    try {
      const ip = Array.isArray(context.ip) ? context.ip[0] : context.ip;
      await limiter.hitAddress("matchmake", ip, rateLimit.ipMax, rateLimit.windowSec);
      const { auth } = await sessions.verifyAccessToken(token);
      await limiter.hit(`user:matchmake:${auth.userId}`, rateLimit.userMax, rateLimit.windowSec);
      await refuseOtherAppsRoom(context, auth.app);
      const verdict: PlayerAuth = { userId: auth.userId, app: auth.app, sid: auth.sid, username: auth.username, nickname: auth.nickname };
      if (options && typeof options === "object") {
        // Matchmaking filters rooms by this option (APP_FILTER): the token decides it, never the client.
        (options as Record<string, unknown>)[APP_OPTION] = auth.app;
        verdicts.set(options, verdict);
      }
      return verdict;
    } catch (err) {
      throw toServerError(err);
    }
  }

  /** Call from `onCreate` in subclasses (via super.onCreate) so the session guard knows the room. */
  override onCreate(options: unknown): void | Promise<void> {
    const app = options && typeof options === "object" ? (options as Record<string, unknown>)[APP_OPTION] : undefined;
    if (typeof app === "string") this.app = app;
    roomServices().guard.register(this);
  }

  override onDispose(): void | Promise<void> {
    roomServices().guard.unregister(this);
  }

  /** Subclasses implement this instead of onLeave: it runs once the player is really gone. */
  protected onPlayerLeave(_client: PlayerClient): void | Promise<void> {}

  /**
   * A connection lost without a consented leave: the seat is held while the player's session lives,
   * through Colyseus's own hold (allowReconnection) with what ours adds to it (seat-hold.ts): the hold
   * is timed by the room services' HoldTimer (ROOM_RECONNECT_SECONDS, or this room type's own), so a
   * test shows a 30 s ad on a controllable clock; it answers every reconnection token the client may
   * hold (a reconnection that dropped before its join was confirmed, which Colyseus would not hold);
   * and a session that ended, a replaced seat or a hold of 0 gets none. Without a hold Colyseus calls
   * onLeave at once; with one, when the hold ends without the player.
   */
  override async onDrop(client: PlayerClient, _code?: number): Promise<void> {
    this.seatsChanged(); // Colyseus has just removed the client
    const { reconnectSeconds, holdTimer } = roomServices();
    const holdSeconds = this.reconnectionSeconds ?? reconnectSeconds;
    if (this.replacedSeats.has(client) || holdSeconds <= 0 || !(await this.isLiveSession(client.auth))) return;
    const deferred = holdSeat(this, client, holdSeconds, holdTimer, this.seatTokens.candidates(client));
    if (typeof deferred.reject !== "function") {
      deferred.catch(() => undefined); // refused outright (never joined, or disposing): onLeave follows
      return;
    }
    const { sid, userId } = playerOf(client);
    this.pendingReconnections.set(client.sessionId, { sid, userId, deferred });
    this.seatsChanged();
    const settled = () => {
      this.pendingReconnections.delete(client.sessionId);
      this.seatsChanged();
    };
    deferred.then(settled, settled);
  }

  /** Back on its held seat; the session may have ended while the client was away. */
  override async onReconnect(client: PlayerClient): Promise<void> {
    this.seatsChanged();
    if (!(await this.isLiveSession(client.auth))) client.leave(SESSION_ENDED_CLOSE_CODE, "session_revoked");
  }

  /** The player is gone for good: a consented leave (4000), or a drop whose seat was not held or not taken back. */
  override async onLeave(client: PlayerClient, _code?: number): Promise<void> {
    this.seatsChanged();
    this.seatTokens.forget(client.sessionId);
    roomServices().roomSessions?.end(this.app, playerOf(client).userId, this.roomName, `${this.roomId}/${client.sessionId}`);
    await this.onPlayerLeave(client);
  }

  holdsUser(userId: string): boolean {
    this.seatedUsers ??= this.collectSeatedUsers();
    return this.seatedUsers.has(userId);
  }

  /** The player's seat here, or null; the console asks it of every room (room-seat.ts). */
  seatOf(userId: string): RoomSeat | null {
    return seatIn(this, userId);
  }

  private collectSeatedUsers(): Set<string> {
    const users = new Set<string>();
    for (const client of this.clients as PlayerClient[]) if (client.auth) users.add(client.auth.userId);
    for (const pending of this.pendingReconnections.values()) users.add(pending.userId);
    return users;
  }

  /** Called wherever a client or a pending reconnection comes or goes: the index is rebuilt when next asked. */
  private seatsChanged(): void {
    this.seatedUsers = undefined;
  }

  revokeStaleSessions(userId: string, liveSid: string | null): void {
    for (const client of this.clients as PlayerClient[]) {
      if (client.auth?.userId === userId && client.auth.sid !== liveSid) {
        client.leave(SESSION_ENDED_CLOSE_CODE, "session_revoked");
      }
    }
    for (const pending of this.pendingReconnections.values()) {
      if (pending.userId === userId && pending.sid !== liveSid) pending.deferred.reject(new Error("session_revoked"));
    }
  }

  /**
   * Closes the newcomer's player's other seats in this room, joined or waiting for a reconnection,
   * so the player holds one seat however many times they join. The old seat is freed at once
   * (onLeave runs now), not when its socket finishes closing.
   */
  private replaceEarlierSeats(newcomer: PlayerClient): void {
    const { userId } = playerOf(newcomer);
    for (const client of [...this.clients] as PlayerClient[]) {
      if (client === newcomer || client.auth?.userId !== userId) continue;
      this.replacedSeats.add(client);
      // Stops its messages and runs onDrop (no hold for a replaced seat) and onLeave now, then closes it with 4409.
      this.kickClient(client.sessionId, SEAT_REPLACED_CLOSE_CODE, "seat_replaced");
    }
    for (const pending of this.pendingReconnections.values()) {
      if (pending.userId === userId) pending.deferred.reject(new Error("seat_replaced"));
    }
  }

  /**
   * Content security for text a player sends, in one line: `if (!(await this.moderate(client, text))) return;`.
   * True when the text may be shown (a "review" verdict included); otherwise the sender has received
   * `error` with `code: "content_moderated"` (or the failure's code) and the text must be dropped.
   */
  protected async moderate(client: PlayerClient, text: string, scene: TextScene = "chat"): Promise<boolean> {
    const { moderation, logger } = roomServices();
    try {
      const { userId, app } = playerOf(client);
      await moderation.requireAcceptable(userId, app, text, scene);
      return true;
    } catch (err) {
      if (!(err instanceof AppError)) logger.error({ err }, "content moderation failed unexpectedly");
      const code = err instanceof AppError ? err.code : "internal_error";
      const message = err instanceof AppError ? err.message : "Internal server error";
      client.send("error", { code, message });
      return false;
    }
  }

  private async isLiveSession(auth: PlayerAuth | undefined): Promise<boolean> {
    if (!auth) return false;
    try {
      return (await roomServices().sessions.liveSessionId(auth.userId, auth.app)) === auth.sid;
    } catch {
      return false; // cache unreachable: refuse rather than let a possibly ended session back in
    }
  }
}

/** The token from `accessToken`, `token`, or the Bearer header, in that order; strips it from options. */
function takeToken(options: unknown, bearer: string | undefined, context: ColyseusAuthContext): string | undefined {
  let found: string | undefined;
  if (options && typeof options === "object") {
    const bag = options as Record<string, unknown>;
    for (const key of TOKEN_OPTIONS) {
      if (found === undefined && typeof bag[key] === "string" && bag[key]) found = bag[key] as string;
      delete bag[key];
    }
  }
  return found ?? bearer ?? bearerToken(context.headers?.get("authorization") ?? undefined);
}

/** Auth failures reach the client as ServerError(status, stable code); never as a 500 with internals. */
function toServerError(err: unknown): ServerError {
  if (err instanceof AppError) return new ServerError(err.status, err.code);
  roomServices().logger.error({ err }, "room auth failed unexpectedly");
  return new ServerError(500, "internal_error");
}

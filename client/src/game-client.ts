import { MatchMakeError, ServerError, type Room } from "colyseus.js";
import { SEAT_REPLACED_CLOSE_CODE, SESSION_ENDED_CLOSE_CODE, isConnectionLoss } from "./close-codes";
import { RuntimeColyseusClient } from "./colyseus/runtime-colyseus-client";
import { parseEndpoint, queryString, type Endpoint } from "./endpoint";
import { ApiError, SESSION_ENDING_CODES } from "./errors";
import { Emitter } from "./events";
import { NetworkError, PLATFORM_LOGIN, type HttpRequest, type LoginCodes, type Runtime } from "./runtime";
import { detectMiniGameRuntime } from "./runtimes/detect-runtime";
import { SessionStorage, sessionExpiresAt, type ServerUser, type Session } from "./session";

export interface GameClientOptions {
  /** The server's address, e.g. `https://game.example.com` (an allow-listed domain in the platform console). */
  server: string;
  /** Defaults to the mini-game runtime we run in (`tt`, `qq`, `ks`, then `wx`). */
  runtime?: Runtime;
  /** Storage key of the session; change it to keep several servers' sessions apart. */
  storageKey?: string;
  /** Refresh this long before the access token expires (default 60 s, at most half its lifetime). */
  refreshMarginSec?: number;
  /**
   * Wait before retrying a refresh whose answer was lost (default 1 s). The server answers a
   * repeated refresh token with the same new pair for `REFRESH_GRACE_SEC` (10 s by default), so
   * one prompt retry keeps the session; a retry after that window would count as token theft.
   */
  refreshRetryDelayMs?: number;
  now?: () => number;
}

export interface GameClientEvents extends Record<string, unknown> {
  /** A login, a refresh, or a logout changed the stored session (null after logout). */
  sessionChanged: Session | null;
  /** The server ended the session (logout elsewhere, a newer login, disabled user…): show the login screen. */
  sessionEnded: { code: string };
  /** The same player took this seat from a newer join; still logged in, just not here. */
  seatReplaced: { room: Room; code: number };
  /** The network dropped a room connection; `client.reconnect(reconnectionToken)` may bring it back. */
  connectionLost: { room: Room; code: number; reconnectionToken: string };
}

interface Envelope {
  success?: boolean;
  message?: string;
  data?: any;
}

type JoinMethod = "joinOrCreate" | "create" | "join" | "joinById";

const DEFAULT_STORAGE_KEY = "minigame-client.session";

/**
 * One object a game keeps: logs in with the platform, keeps and refreshes the session, calls the
 * game's protected routes and joins rooms with the token.
 */
export class GameClient {
  readonly runtime: Runtime;
  readonly endpoint: Endpoint;
  /** colyseus.js 0.16 underneath, talking through the runtime. */
  readonly colyseus: RuntimeColyseusClient;
  private readonly events = new Emitter<GameClientEvents>();
  private readonly store: SessionStorage;
  private readonly now: () => number;
  private readonly refreshMarginMs: number;
  private readonly refreshRetryDelayMs: number;
  private current: Session | null;
  /** Bumped by every login and logout, never by a refresh: room closes of an older session are ignored. */
  private generation = 0;
  private refreshing: Promise<void> | null = null;
  private endingDeliberately = false;

  constructor(options: GameClientOptions) {
    const runtime = options.runtime ?? detectMiniGameRuntime();
    if (!runtime) throw new Error("no mini-game runtime (wx, tt, qq, ks) found: pass one, e.g. webRuntime({ platform })");
    this.runtime = runtime;
    this.endpoint = parseEndpoint(options.server);
    this.colyseus = new RuntimeColyseusClient(this.endpoint, runtime);
    this.store = new SessionStorage(runtime.storage, options.storageKey ?? DEFAULT_STORAGE_KEY);
    this.now = options.now ?? (() => Date.now());
    this.refreshMarginMs = (options.refreshMarginSec ?? 60) * 1000;
    this.refreshRetryDelayMs = options.refreshRetryDelayMs ?? 1000;
    this.current = this.store.load();
  }

  get session(): Session | null {
    return this.current;
  }
  get user(): ServerUser | null {
    return this.current?.user ?? null;
  }
  get isLoggedIn(): boolean {
    return this.current !== null;
  }

  on<K extends keyof GameClientEvents>(event: K, listener: (payload: GameClientEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  /**
   * The player's user. With a stored session (an earlier start), returns it without a platform
   * login. Otherwise, or with `fresh`, gets codes from the platform (or uses `codes`) and logs in.
   */
  async login(options: { codes?: LoginCodes; fresh?: boolean } = {}): Promise<ServerUser> {
    if (this.current && !options.fresh && !options.codes) return this.current.user;
    const codes = options.codes ?? (await this.runtime.login());
    // A platform added on the server after this client was built most likely takes a plain `code`.
    const route = PLATFORM_LOGIN[this.runtime.platform] ?? { codeParam: "code" };
    const query = queryString({
      [route.codeParam]: codes.code,
      ...(route.anonymousParam ? { [route.anonymousParam]: codes.anonymousCode } : {}),
    });
    const data = await this.call({ method: "GET", path: `/api/minigame/${this.runtime.platform}/login?${query}` });
    this.generation++;
    this.keep({ token: data.token, refreshToken: data.refreshToken, expiresIn: data.expiresIn, receivedAt: this.now(), user: data.user });
    return data.user as ServerUser;
  }

  /** A protected route of this server: Bearer added, refreshed when needed, envelope unwrapped. */
  async request<T = any>(method: HttpRequest["method"], path: string, body?: unknown): Promise<T> {
    const token = await this.validToken();
    try {
      return await this.call({ method, path, body, token });
    } catch (err) {
      if (!(await this.recover(err, token))) throw err;
      return this.call({ method, path, body, token: this.requireSession().token });
    }
  }

  joinOrCreate<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<T>> {
    return this.matchmake<T>("joinOrCreate", roomName, options, rootSchema);
  }
  create<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<T>> {
    return this.matchmake<T>("create", roomName, options, rootSchema);
  }
  join<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<T>> {
    return this.matchmake<T>("join", roomName, options, rootSchema);
  }
  joinById<T = any>(roomId: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<T>> {
    return this.matchmake<T>("joinById", roomId, options, rootSchema);
  }

  /**
   * Takes the seat back after a dropped connection, within the room's reconnection window. The
   * server may not have noticed the drop yet (it refuses the token until it has), and the network
   * may still be down, so failures are retried with backoff (0.25 s doubling to 2 s; the default 12
   * attempts span about 20 s, the server's reconnection window).
   */
  async reconnect<T = any>(reconnectionToken: string, rootSchema?: any, attempts = 12): Promise<Room<T>> {
    const generation = this.generation;
    for (let attempt = 1; ; attempt++) {
      try {
        return this.watch(await this.colyseus.reconnect<T>(reconnectionToken, rootSchema), generation);
      } catch (err) {
        if (attempt >= attempts || generation !== this.generation) throw toApiError(err);
        await delay(Math.min(250 * 2 ** (attempt - 1), 2000));
      }
    }
  }

  /**
   * Ends the session on the server and forgets it here. Resolves true when the server confirmed,
   * false when it could not be reached (the session is forgotten here all the same).
   */
  async logout(): Promise<boolean> {
    return this.endDeliberately("POST", "/api/auth/logout", false);
  }

  /** Deletes the player's account (`DELETE /api/users/me`) and forgets the session; throws if the server refused. */
  async deleteAccount(): Promise<void> {
    await this.endDeliberately("DELETE", "/api/users/me", true);
  }

  private async endDeliberately(method: HttpRequest["method"], path: string, mustSucceed: boolean): Promise<boolean> {
    if (!this.current) return false;
    let confirmed = false;
    // The server closes our rooms with 4401 as it ends the session, often before it answers here:
    // those closes are of a session we chose to end, not news for a sessionEnded event.
    this.endingDeliberately = true;
    try {
      await this.request(method, path);
      confirmed = true;
    } catch (err) {
      const sessionAlreadyOver = err instanceof ApiError && SESSION_ENDING_CODES.has(err.code);
      if (mustSucceed && !sessionAlreadyOver) throw err;
    } finally {
      this.endingDeliberately = false;
    }
    this.generation++;
    this.forget();
    return confirmed;
  }

  private async matchmake<T>(method: JoinMethod, roomNameOrId: string, options: Record<string, unknown>, rootSchema?: any): Promise<Room<T>> {
    const once = async (token: string) => {
      const generation = this.generation;
      return this.watch(await this.colyseus[method]<T>(roomNameOrId, { ...options, accessToken: token }, rootSchema), generation);
    };
    const attempt = async (token: string) => {
      try {
        return await once(token);
      } catch (err) {
        // The seat lapsed before our socket reached it (a slow network, or the room closing meanwhile): nothing is held, ask again once.
        if (!isSeatExpired(err)) throw err;
        return once(this.requireSession().token);
      }
    };
    const token = await this.validToken();
    try {
      return await attempt(token);
    } catch (err) {
      const failure = toApiError(err);
      if (!(await this.recover(failure, token))) throw failure;
      try {
        return await attempt(this.requireSession().token);
      } catch (again) {
        throw toApiError(again);
      }
    }
  }

  /** Turns the server's room closes into client events. */
  private watch<T>(room: Room<T>, generation: number): Room<T> {
    room.onLeave((code: number) => {
      if (code === SESSION_ENDED_CLOSE_CODE) {
        if (generation === this.generation && !this.endingDeliberately) this.endSession("session_revoked");
      } else if (code === SEAT_REPLACED_CLOSE_CODE) {
        this.events.emit("seatReplaced", { room, code });
      } else if (isConnectionLoss(code)) {
        this.events.emit("connectionLost", { room, code, reconnectionToken: room.reconnectionToken });
      }
    });
    return room;
  }

  /**
   * After a failure with `usedToken`: true when a retry may succeed (refreshed, or someone else
   * refreshed meanwhile); ends the session when the server says it is over.
   */
  private async recover(err: unknown, usedToken: string): Promise<boolean> {
    if (!(err instanceof ApiError) || !this.current) return false;
    if (this.current.token !== usedToken && (err.code === "token_expired" || err.code === "session_revoked")) return true;
    if (err.code === "token_expired") {
      await this.refresh(usedToken);
      return true;
    }
    if (SESSION_ENDING_CODES.has(err.code) && this.current.token === usedToken) this.endSession(err.code);
    return false;
  }

  /** The access token, refreshed first when it expires within the margin. */
  private async validToken(): Promise<string> {
    const session = this.requireSession();
    const margin = Math.min(this.refreshMarginMs, (session.expiresIn * 1000) / 2);
    if (sessionExpiresAt(session) - this.now() <= margin) await this.refresh(session.token);
    return this.requireSession().token;
  }

  /** Single-flight: concurrent callers share one rotation, and a caller with an already replaced token just retries. */
  private refresh(staleToken: string): Promise<void> {
    const session = this.requireSession();
    if (session.token !== staleToken) return Promise.resolve();
    if (!this.refreshing) {
      this.refreshing = this.rotate(session).finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async rotate(session: Session): Promise<void> {
    const body = { refreshToken: session.refreshToken };
    let data;
    try {
      data = await this.call({ method: "POST", path: "/api/auth/refresh", body });
    } catch (err) {
      if (err instanceof ApiError && err.code === "network_error") {
        // The rotation may have happened with its answer lost: the same token, within the grace window, gets the same pair.
        await delay(this.refreshRetryDelayMs);
        try {
          data = await this.call({ method: "POST", path: "/api/auth/refresh", body });
        } catch (again) {
          return this.failRefresh(again, session);
        }
      } else {
        return this.failRefresh(err, session);
      }
    }
    if (this.current !== session) return; // logged out or in again meanwhile
    this.keep({ ...session, token: data.token, refreshToken: data.refreshToken, expiresIn: data.expiresIn, receivedAt: this.now() });
  }

  private failRefresh(err: unknown, session: Session): never {
    if (err instanceof ApiError && SESSION_ENDING_CODES.has(err.code) && this.current === session) this.endSession(err.code);
    throw err;
  }

  private requireSession(): Session {
    if (!this.current) throw new ApiError(401, "not_logged_in", "log in first");
    return this.current;
  }

  private keep(session: Session): void {
    this.current = session;
    try {
      this.store.save(session);
    } catch {
      // Storage full or unavailable: the session still works until the game restarts.
    }
    this.events.emit("sessionChanged", session);
  }

  private forget(): void {
    this.current = null;
    try {
      this.store.clear();
    } catch {
      // nothing stored to remove
    }
    this.events.emit("sessionChanged", null);
  }

  private endSession(code: string): void {
    if (!this.current) return;
    this.generation++;
    this.forget();
    this.events.emit("sessionEnded", { code });
  }

  /** One HTTP call to this server; the envelope's `data` on success, an ApiError otherwise. */
  private async call(request: { method: HttpRequest["method"]; path: string; body?: unknown; token?: string }): Promise<any> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (request.token) headers.Authorization = `Bearer ${request.token}`;
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await this.runtime.request({
        method: request.method,
        url: this.endpoint.httpBase + request.path,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
    } catch (err) {
      throw new ApiError(0, "network_error", err instanceof Error ? err.message : String(err));
    }
    const envelope = (response.data && typeof response.data === "object" ? response.data : {}) as Envelope;
    if (response.status >= 200 && response.status < 300 && envelope.success !== false) return envelope.data;
    const code = typeof envelope.data?.code === "string" ? envelope.data.code : `http_${response.status}`;
    throw new ApiError(response.status, code, envelope.message ?? `HTTP ${response.status}`, envelope.data ?? null);
  }
}

/** colyseus.js errors as ApiErrors: the server's room auth answers `ServerError(status, code)`. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof NetworkError) return new ApiError(0, "network_error", err.message);
  if (err instanceof MatchMakeError || err instanceof ServerError) {
    const status = typeof err.code === "number" ? err.code : 0;
    const stable = /^[a-z][a-z0-9_]*$/.test(err.message);
    // Codes ≥ 1000 are WebSocket closes (e.g. 4002) or Colyseus's own matchmaking codes (4210…).
    const fallback = status >= 1000 && !(err instanceof MatchMakeError) ? "room_connect_failed" : "matchmake_failed";
    return new ApiError(status >= 1000 ? 0 : status, stable ? err.message : fallback, err.message, { colyseusCode: status });
  }
  return new ApiError(0, "room_connect_failed", err instanceof Error ? err.message : String(err));
}

/** colyseus 0.16's MATCHMAKE_EXPIRED (4214): "seat reservation expired". */
function isSeatExpired(err: unknown): boolean {
  return err instanceof ServerError && err.code === 4214;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { delay } from "./delay";
import { ApiError, SESSION_ENDING_CODES } from "./errors";
import type { Emitter, GameClientEvents } from "./events";
import type { ServerApi } from "./server-api";
import { sessionExpiresAt, type ServerUser, type Session, type SessionStorage } from "./session";

export interface SessionTiming {
  now: () => number;
  /** Refresh this long before the access token expires (at most half its lifetime). */
  refreshMarginMs: number;
  /** Wait before retrying a refresh whose answer was lost (see GameClientOptions). */
  refreshRetryDelayMs: number;
}

/** What the login and refresh routes answer. */
interface TokenPair {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

/**
 * The player's session: kept in the runtime's storage across starts, refreshed before it expires,
 * and forgotten (with `sessionEnded`) once the server says it is over.
 */
export class SessionKeeper {
  private current: Session | null;
  private generationCount = 0;
  private refreshing: Promise<void> | null = null;
  private endingDeliberately = false;

  constructor(
    private readonly store: SessionStorage,
    private readonly api: ServerApi,
    private readonly events: Emitter<GameClientEvents>,
    private readonly timing: SessionTiming,
  ) {
    this.current = store.load();
  }

  get session(): Session | null {
    return this.current;
  }

  /** Bumped by every login and logout, never by a refresh: room closes of an older session are ignored. */
  get generation(): number {
    return this.generationCount;
  }

  /** A login's answer: the new session replaces any kept one. */
  begin(login: TokenPair & { user: ServerUser }): void {
    this.generationCount++;
    this.keep({ token: login.token, refreshToken: login.refreshToken, expiresIn: login.expiresIn, receivedAt: this.timing.now(), user: login.user });
  }

  /**
   * Runs `endOnServer` (logout, account deletion) and forgets the session whatever it answered;
   * true when the server confirmed. Throws when `mustSucceed` and the server refused while the
   * session was still alive.
   */
  async endDeliberately(endOnServer: () => Promise<unknown>, mustSucceed: boolean): Promise<boolean> {
    if (!this.current) return false;
    let confirmed = false;
    // The server closes our rooms with 4401 as it ends the session, often before it answers here:
    // those closes are of a session we chose to end, not news for a sessionEnded event.
    this.endingDeliberately = true;
    try {
      await endOnServer();
      confirmed = true;
    } catch (err) {
      const sessionAlreadyOver = err instanceof ApiError && SESSION_ENDING_CODES.has(err.code);
      if (mustSucceed && !sessionAlreadyOver) throw err;
    } finally {
      this.endingDeliberately = false;
    }
    this.generationCount++;
    this.forget();
    return confirmed;
  }

  /** A room of session `generation` was closed with 4401. */
  endedByRoomClose(generation: number): void {
    if (generation === this.generationCount && !this.endingDeliberately) this.endSession("session_revoked");
  }

  /**
   * After a failure with `usedToken`: true when a retry may succeed (refreshed, or someone else
   * refreshed meanwhile); ends the session when the server says it is over.
   */
  async recover(err: unknown, usedToken: string): Promise<boolean> {
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
  async validToken(): Promise<string> {
    const session = this.requireSession();
    const margin = Math.min(this.timing.refreshMarginMs, (session.expiresIn * 1000) / 2);
    if (sessionExpiresAt(session) - this.timing.now() <= margin) await this.refresh(session.token);
    return this.requireSession().token;
  }

  requireSession(): Session {
    if (!this.current) throw new ApiError(401, "not_logged_in", "log in first");
    return this.current;
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
    const request = { method: "POST" as const, path: "/api/auth/refresh", body: { refreshToken: session.refreshToken } };
    let data: TokenPair;
    try {
      data = await this.api.call(request);
    } catch (err) {
      if (err instanceof ApiError && err.code === "network_error") {
        // The rotation may have happened with its answer lost: the same token, within the grace window, gets the same pair.
        await delay(this.timing.refreshRetryDelayMs);
        try {
          data = await this.api.call(request);
        } catch (again) {
          return this.failRefresh(again, session);
        }
      } else {
        return this.failRefresh(err, session);
      }
    }
    if (this.current !== session) return; // logged out or in again meanwhile
    this.keep({ ...session, token: data.token, refreshToken: data.refreshToken, expiresIn: data.expiresIn, receivedAt: this.timing.now() });
  }

  private failRefresh(err: unknown, session: Session): never {
    if (err instanceof ApiError && SESSION_ENDING_CODES.has(err.code) && this.current === session) this.endSession(err.code);
    throw err;
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
    this.generationCount++;
    this.forget();
    this.events.emit("sessionEnded", { code });
  }
}

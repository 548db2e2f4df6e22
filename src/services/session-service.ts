import { AppError } from "../core/errors";
import { constantTimeEqual } from "../core/credentials";
import type { Cache, CacheEntry } from "../core/ports/cache";
import type { UserStore } from "../core/ports/user-store";
import type { User } from "../core/user";
import { DEFAULT_APP, perUserKey } from "../core/apps";
import { SessionKeys, type SessionKeyRef } from "./session-keys";
import type { RecentUsers } from "./recent-users";
import { randomId } from "../core/random-pool";
import { appOf, gradeOf, type AccessClaims, type SessionGrade, type TokenSigner } from "./token-signer";
import { requireActive } from "./user-access";

export type { SessionGrade } from "./token-signer";

/**
 * Cache keys named by spec 5.5 for the default app (`access_token:<userId>`); another app's add it
 * (see perUserKey). `hashTagged` on a Redis Cluster only (SessionKeys).
 */
export const accessTokenKey = (userId: string, app: string, hashTagged = false) => perUserKey("access_token", userId, app, hashTagged);
export const refreshTokenKey = (userId: string, app: string, hashTagged = false) => perUserKey("refresh_token", userId, app, hashTagged);
/** The pair a rotation produced, kept for the grace window so a retried refresh gets the same answer. */
const rotationKey = (userId: string, refreshJti: string, hashTagged: boolean) =>
  perUserKey("refresh_rotation", userId, DEFAULT_APP, hashTagged) + `:${refreshJti}`;

const access = (userId: string, app: string): SessionKeyRef => ({ name: "access_token", userId, app });
const refresh = (userId: string, app: string): SessionKeyRef => ({ name: "refresh_token", userId, app });

export interface IssuedSession {
  token: string;
  refreshToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  sid: string;
}

/** Who a verified access token belongs to; what both edges (HTTP and rooms) receive. */
export interface AuthContext {
  userId: string;
  /** The app (our key) the session belongs to: rooms, session keys and platform calls are of this app. */
  app: string;
  sid: string;
  username: string;
  email: string;
  nickname: string | null;
  jti: string;
  /** Access token issue time (seconds): a login or refresh. */
  iat: number;
  exp: number;
  /** When the session started (seconds), for "recent login" checks. */
  authTime: number;
  /** How the session's login proved the player: see SessionGrade and session-grade.ts. */
  grade: SessionGrade;
}

export type SessionEndReason =
  | "logout"
  | "new_login"
  | "refresh_reuse"
  | "password_change"
  | "user_disabled"
  | "user_deleted"
  | "operator";

/** Told whenever a user's live session changes (in any app), so connected room clients can be re-checked. */
export type SessionChangeListener = (userId: string, reason: SessionEndReason) => void;

export interface SessionServiceOptions {
  /** Seconds after a rotation during which the old refresh token gets the same new pair back. */
  refreshGraceSec: number;
  /** Recently verified active users of this process; without it every verification reads the store. */
  recentUsers?: RecentUsers;
  /** Every app's key: ending a user's sessions (ban, erase) ends them in each. Default: `default` only. */
  apps?: readonly string[];
}

/**
 * Sessions live in the cache: one access and one refresh token per user and app (spec 5.5), so a
 * new login to a game replaces the previous session in that game only. A token is valid only while
 * it is the one stored under its user and app (the `app` claim).
 */
export class SessionService {
  private readonly listeners: SessionChangeListener[] = [];
  private readonly keys: SessionKeys;

  constructor(
    private readonly signer: TokenSigner,
    private readonly cache: Cache,
    private readonly store: UserStore,
    private readonly options: SessionServiceOptions,
  ) {
    this.keys = new SessionKeys(cache);
  }

  onSessionChange(listener: SessionChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * Starts a new session of the given grade for the user in `app`, ending any previous one there.
   * `alsoWrite` goes into the same atomic cache write (a login's platform session key).
   */
  async startSession(
    user: Pick<User, "id" | "username" | "email">,
    app: string,
    grade: SessionGrade,
    reason: SessionEndReason = "new_login",
    alsoWrite: CacheEntry[] = [],
  ): Promise<IssuedSession> {
    const issued = this.issuePair(user, app, randomId(), this.signer.nowSec(), grade);
    // One atomic write, so concurrent logins never leave one login's access token beside another's
    // refresh token; it hands back the tokens it replaced, under either spelling (session-keys.ts),
    // in the same one command. The previous session may have outlived its access token (refresh
    // token still stored).
    const pair = [access(user.id, app), refresh(user.id, app)];
    const entries = [...this.sessionEntries(user.id, app, issued), ...alsoWrite];
    const replaced = await this.cache.setMany(entries, this.keys.earlierKeys(pair));
    const [previousAccess, previousRefresh] = replaced;
    // Only this service writes these keys, so a value there is a session: no need to decode it.
    const replacedEarlier = replaced.slice(entries.length).some((value) => value !== null);
    if (previousAccess !== null || previousRefresh !== null || replacedEarlier) this.notify(user.id, reason);
    if (replacedEarlier) await this.keys.dropEarlier([...pair, { name: "session_key", userId: user.id, app }]);
    return issued;
  }

  /**
   * The one verification path for HTTP and rooms: HS256 signature, expiry and claims; the user must
   * exist and be active; then the token must be the one stored for the user (constant-time compare).
   */
  async verifyAccessToken(token: string | undefined | null): Promise<{ auth: AuthContext; user: User }> {
    if (!token) throw new AppError("token_missing");
    const claims = this.signer.verifyAccess(token);
    const [found, [stored]] = await Promise.all([this.findUser(claims.userId), this.keys.read([access(claims.userId, appOf(claims))])]);
    const user = await requireActive(this.store, found, claims.userId);
    if (stored === null || !constantTimeEqual(stored, token)) {
      // This process's copy of the user may predate an erase (or a ban) on another process: the store
      // says which, so a deleted account's token gets `user_disabled` on every process alike.
      if (this.options.recentUsers) await requireActive(this.store, await this.store.findById(claims.userId), claims.userId);
      throw new AppError("session_revoked");
    }
    return { auth: toAuthContext(claims, user), user };
  }

  private findUser(userId: string): Promise<User | null> {
    const recent = this.options.recentUsers;
    return recent ? recent.find(userId, this.loadUser) : this.store.findById(userId);
  }

  private readonly loadUser = (userId: string) => this.store.findById(userId);

  /**
   * The sid of the user's live session in `app`, or null when none. The session outlives its access
   * token: while the refresh token is stored, the client can still refresh, so the session is live.
   */
  async liveSessionId(userId: string, app: string): Promise<string | null> {
    const [accessToken, refreshToken] = await this.keys.read([access(userId, app), refresh(userId, app)]);
    return sidOf(accessToken) ?? sidOf(refreshToken);
  }

  /** The apps in which the user has a live session. */
  async liveApps(userId: string): Promise<string[]> {
    const apps = this.apps();
    const values = await this.keys.read(apps.flatMap((app) => [access(userId, app), refresh(userId, app)]));
    return apps.filter((_app, i) => values[2 * i] !== null || values[2 * i + 1] !== null);
  }

  /** When each live session of the user began (its login; kept across refreshes), by app: the console's "last login". */
  async sessionStarts(userId: string): Promise<Array<{ app: string; at: string }>> {
    const apps = this.apps();
    const values = await this.keys.read(apps.flatMap((app) => [refresh(userId, app), access(userId, app)]));
    return apps.flatMap((app, i) => {
      const sec = loginTimeOf(values[2 * i]) ?? loginTimeOf(values[2 * i + 1]);
      return sec === null ? [] : [{ app, at: new Date(sec * 1000).toISOString() }];
    });
  }

  /**
   * Rotates a refresh token: each one works once. A replay of the current session's rotated token
   * ends the session (it was probably stolen), except within the grace window, where the same
   * request gets the pair its rotation produced.
   */
  async refresh(refreshToken: string): Promise<IssuedSession> {
    const claims = this.signer.verifyRefresh(refreshToken);
    const user = await requireActive(this.store, await this.store.findById(claims.userId), claims.userId);
    const app = appOf(claims);

    const [current] = await this.keys.find([refresh(user.id, app)]);
    if (current.value !== null && constantTimeEqual(current.value, refreshToken)) {
      const issued = this.issuePair(user, app, claims.sid, claims.authTime ?? claims.iat, gradeOf(claims));
      const graceEntry =
        this.options.refreshGraceSec > 0
          ? [{ key: this.rotationKey(user.id, claims.jti), value: JSON.stringify(issued), ttlSec: this.options.refreshGraceSec }]
          : [];
      // The guard is where the token was found: a session from before an upgrade moves to the
      // current keys in the same atomic step (only on one Redis, where any two keys may go together).
      const rotated = await this.cache.replaceIfEquals(current.key, refreshToken, [...this.sessionEntries(user.id, app, issued), ...graceEntry]);
      if (rotated && current.key !== this.keys.key(refresh(user.id, app))) await this.keys.dropEarlier([access(user.id, app), refresh(user.id, app)]);
      if (rotated) return issued;
      // A concurrent request rotated first: fall through and answer like a retried request.
    }

    const graceAnswer = await this.cache.get(this.rotationKey(user.id, claims.jti));
    if (graceAnswer !== null) {
      const pair = JSON.parse(graceAnswer) as IssuedSession;
      const [latest] = await this.keys.read([refresh(user.id, app)]);
      if (latest !== null && constantTimeEqual(latest, pair.refreshToken)) return pair;
    }

    // A replay ends the session it belongs to, in its app; the player's other games go on.
    if ((await this.liveSessionId(user.id, app)) === claims.sid) {
      await this.endAppSession(user.id, app, "refresh_reuse");
      throw new AppError("refresh_token_reused");
    }
    throw new AppError("refresh_token_invalid");
  }

  /** Ends the user's session in `app` if it is still the one with this sid. */
  async logout(userId: string, app: string, sid: string): Promise<void> {
    if ((await this.liveSessionId(userId, app)) === sid) {
      await this.endAppSession(userId, app, "logout");
    }
  }

  /** Ends the user's session in every app (ban, erase, operator), with the platform session keys kept with them. */
  async endSession(userId: string, reason: SessionEndReason): Promise<void> {
    await this.cache.delete(...this.apps().flatMap((app) => this.keysOf(userId, app)));
    this.notify(userId, reason);
  }

  /** Ends the user's session in one app only, and drops that app's platform session key. */
  async endAppSession(userId: string, app: string, reason: SessionEndReason): Promise<void> {
    await this.cache.delete(...this.keysOf(userId, app));
    this.notify(userId, reason);
  }

  /** Every spelling, so a session from before an upgrade ends too. */
  private keysOf(userId: string, app: string): string[] {
    return this.keys.allKeys([access(userId, app), refresh(userId, app), { name: "session_key", userId, app }]);
  }

  private rotationKey(userId: string, refreshJti: string): string {
    return rotationKey(userId, refreshJti, this.cache.hashTags === "required");
  }

  private apps(): readonly string[] {
    return this.options.apps ?? [DEFAULT_APP];
  }

  private issuePair(user: Pick<User, "id" | "username" | "email">, app: string, sid: string, authTime: number, grade: SessionGrade): IssuedSession {
    const access = this.signer.signAccess({ userId: user.id, app, username: user.username, email: user.email, sid, authTime, grade });
    const refresh = this.signer.signRefresh({ userId: user.id, app, sid, authTime, grade });
    return { token: access.token, refreshToken: refresh.token, expiresIn: this.signer.accessTtlSec, sid };
  }

  private sessionEntries(userId: string, app: string, issued: IssuedSession) {
    return [
      { key: this.keys.key(access(userId, app)), value: issued.token, ttlSec: this.signer.accessTtlSec },
      { key: this.keys.key(refresh(userId, app)), value: issued.refreshToken, ttlSec: this.signer.refreshTtlSec },
    ];
  }

  private notify(userId: string, reason: SessionEndReason): void {
    for (const listener of this.listeners) listener(userId, reason);
  }
}

function toAuthContext(c: AccessClaims, user: User): AuthContext {
  return {
    userId: c.userId,
    app: appOf(c),
    sid: c.sid,
    username: user.username,
    email: user.email,
    nickname: user.nickname,
    jti: c.jti,
    iat: c.iat,
    exp: c.exp,
    authTime: c.authTime ?? c.iat,
    grade: gradeOf(c),
  };
}

/** A token this service wrote to the cache itself: its claims need no verification. */
function payloadOf(token: string | null): Record<string, unknown> | null {
  if (!token) return null;
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** A stored token's login time (authTime, else its issue time), in seconds. */
function loginTimeOf(token: string | null): number | null {
  const payload = payloadOf(token);
  const sec = typeof payload?.authTime === "number" ? payload.authTime : payload?.iat;
  return typeof sec === "number" ? sec : null;
}

/** The token's session id. */
function sidOf(token: string | null): string | null {
  const sid = payloadOf(token)?.sid;
  return typeof sid === "string" ? sid : null;
}

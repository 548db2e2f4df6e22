import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { Cache } from "../core/ports/cache";
import type { User } from "../core/user";
import { randomId, type AccessClaims, type TokenSigner } from "./token-signer";

/** Cache keys named by spec 5.5. */
export const accessTokenKey = (userId: string) => `access_token:${userId}`;
export const refreshTokenKey = (userId: string) => `refresh_token:${userId}`;

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
  sid: string;
  username: string;
  email: string;
  jti: string;
  /** Access token issue time (seconds), e.g. for "recent login" checks. */
  iat: number;
  exp: number;
}

/**
 * Sessions live in the cache: one access and one refresh token per user (spec 5.5), so a new
 * login replaces the previous session. A token is valid only while it is the one stored.
 */
export class SessionService {
  constructor(
    private readonly signer: TokenSigner,
    private readonly cache: Cache,
  ) {}

  /** Starts a new session for the user, ending any previous one. */
  async startSession(user: Pick<User, "id" | "username" | "email">): Promise<IssuedSession> {
    const sid = randomId();
    const issued = this.issuePair(user, sid);
    // One atomic write, so concurrent logins never leave one login's access token beside another's refresh token.
    await this.cache.setMany([
      { key: accessTokenKey(user.id), value: issued.token, ttlSec: this.signer.accessTtlSec },
      { key: refreshTokenKey(user.id), value: issued.refreshToken, ttlSec: this.signer.refreshTtlSec },
    ]);
    return issued;
  }

  /**
   * The one verification path for HTTP and rooms: HS256 signature, expiry and claims, then the token
   * must be the one stored for the user (constant-time compare). Throws token_* / session_revoked.
   */
  async verifyAccessToken(token: string | undefined | null): Promise<AuthContext> {
    if (!token) throw new AppError("token_missing");
    const claims = this.signer.verifyAccess(token);
    const stored = await this.cache.get(accessTokenKey(claims.userId));
    if (stored === null || !constantTimeEqual(stored, token)) throw new AppError("session_revoked");
    return toAuthContext(claims);
  }

  protected issuePair(user: Pick<User, "id" | "username" | "email">, sid: string): IssuedSession {
    const access = this.signer.signAccess({ userId: user.id, username: user.username, email: user.email, sid });
    const refresh = this.signer.signRefresh({ userId: user.id, sid });
    return { token: access.token, refreshToken: refresh.token, expiresIn: this.signer.accessTtlSec, sid };
  }
}

function toAuthContext(c: AccessClaims): AuthContext {
  return { userId: c.userId, sid: c.sid, username: c.username, email: c.email, jti: c.jti, iat: c.iat, exp: c.exp };
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}

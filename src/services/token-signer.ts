import crypto, { type KeyObject } from "node:crypto";
import { AppError } from "../core/errors";
import { DEFAULT_APP } from "../core/apps";
import { randomId } from "../core/random-pool";
import { TtlLru } from "./ttl-lru";

/**
 * How strongly a session proves who the player is. "full": a platform login code (the platform
 * vouches for the player) or a password. "anonymous": a Douyin device id alone, which anyone
 * holding that device can present. Kept across refreshes, like `authTime`.
 */
export type SessionGrade = "full" | "anonymous";

/** Claims of an access token (spec 5.2 plus session bookkeeping). */
export interface AccessClaims {
  userId: string;
  /** The app's key; absent in tokens issued before apps existed, which are the default app's (appOf). */
  app?: string;
  username: string;
  email: string;
  /** Session id: created at login, kept across refreshes. */
  sid: string;
  /** When the session started (login time, seconds); kept across refreshes. */
  authTime?: number;
  /** Absent in tokens issued before grades existed: read as "anonymous" (see gradeOf). */
  grade?: SessionGrade;
  jti: string;
  iat: number;
  exp: number;
  /** Never set by us; honoured in a token made elsewhere with our key. */
  nbf?: number;
}

export interface RefreshClaims {
  typ: "refresh";
  userId: string;
  app?: string;
  sid: string;
  authTime?: number;
  grade?: SessionGrade;
  jti: string;
  iat: number;
  exp: number;
}

/** A token without an app claim predates apps: it was issued for what is now the default app. */
export function appOf(claims: { app?: string }): string {
  return claims.app ?? DEFAULT_APP;
}

/** A token without a grade claim predates grades; it could be anonymous, so it counts as one. */
export function gradeOf(claims: { grade?: SessionGrade }): SessionGrade {
  return claims.grade === "full" ? "full" : "anonymous";
}

interface SigningKey {
  kid: string;
  access: KeyObject;
  refresh: KeyObject;
  /** base64url of {"alg":"HS256","typ":"JWT","kid":…}: the same for every token this key signs. */
  encodedHeader: string;
}

export interface TokenSignerOptions {
  secret: string;
  /** Older secrets still accepted for verification, so a secret can be rotated without a mass logout. */
  previousSecrets: readonly string[];
  accessTtlSec: number;
  refreshTtlSec: number;
  now?: () => number;
  /** Access tokens whose signature and claims were checked, remembered by their exact text (default 20,000; 0: none). */
  verifiedMemoEntries?: number;
}

/** How long a verified access token's text is remembered (its expiry is still checked on every use). */
const VERIFIED_MEMO_MS = 60_000;

/**
 * Signs and verifies this service's JWTs. HS256 only, with KeyObjects, done directly with
 * node:crypto both ways: jsonwebtoken's sign re-validates options and claims and re-encodes the
 * header on every call (several times the cost of the HMAC itself); the tests cross-check both
 * directions against jsonwebtoken.
 * Refresh tokens use a key derived from the secret, so an access token can never pass as one.
 */
export class TokenSigner {
  private readonly keys: SigningKey[];
  private readonly now: () => number;
  /**
   * A client presents the same access token on every call until it refreshes. Its signature and
   * claim shape are a pure function of its text and our keys (fixed for the process's life), so
   * a text that passed once passes again: only expiry depends on the time, and it is checked on
   * every use. Saves the HMAC and two JSON decodes per authenticated request; bounded, and only
   * tokens that verified (that we signed) ever enter it.
   */
  private readonly verifiedAccess: TtlLru<AccessClaims>;

  constructor(private readonly options: TokenSignerOptions) {
    this.keys = [options.secret, ...options.previousSecrets].map(deriveKeys);
    this.now = options.now ?? Date.now;
    this.verifiedAccess = new TtlLru(options.verifiedMemoEntries ?? 20_000, VERIFIED_MEMO_MS, this.now);
  }

  nowSec(): number {
    return Math.floor(this.now() / 1000);
  }

  get accessTtlSec(): number {
    return this.options.accessTtlSec;
  }

  get refreshTtlSec(): number {
    return this.options.refreshTtlSec;
  }

  signAccess(subject: { userId: string; app: string; username: string; email: string; sid: string; authTime?: number; grade: SessionGrade }): {
    token: string;
    claims: AccessClaims;
  } {
    const iat = Math.floor(this.now() / 1000);
    const claims: AccessClaims = { ...subject, jti: randomId(), iat, exp: iat + this.options.accessTtlSec };
    return { token: sign(this.keys[0], "access", claims), claims };
  }

  signRefresh(subject: { userId: string; app: string; sid: string; authTime?: number; grade: SessionGrade }): { token: string; claims: RefreshClaims } {
    const iat = Math.floor(this.now() / 1000);
    const claims: RefreshClaims = { typ: "refresh", ...subject, jti: randomId(), iat, exp: iat + this.options.refreshTtlSec };
    return { token: sign(this.keys[0], "refresh", claims), claims };
  }

  /** Signature, algorithm, expiry and claim shape. Throws token_invalid or token_expired. */
  verifyAccess(token: string): AccessClaims {
    const known = typeof token === "string" ? this.verifiedAccess.get(token) : undefined;
    if (known) {
      const now = Math.floor(this.now() / 1000);
      if (now >= known.exp) throw new AppError("token_expired");
      if (known.nbf !== undefined && now < known.nbf) throw new AppError("token_invalid");
      return known;
    }
    const payload = this.verify(token, "access", "token_invalid", "token_expired");
    if (
      payload.typ !== undefined ||
      !isNonEmptyString(payload.userId) ||
      !isNonEmptyString(payload.sid) ||
      !isNonEmptyString(payload.jti) ||
      typeof payload.username !== "string" ||
      typeof payload.email !== "string" ||
      !isGradeClaim(payload.grade) ||
      !isAppClaim(payload.app)
    ) {
      throw new AppError("token_invalid");
    }
    // Frozen: every holder of this token's claims shares the one object.
    const claims = Object.freeze(payload) as unknown as AccessClaims;
    this.verifiedAccess.set(token, claims);
    return claims;
  }

  /** Throws refresh_token_invalid for anything but a well-formed, unexpired refresh token of ours. */
  verifyRefresh(token: string): RefreshClaims {
    const payload = this.verify(token, "refresh", "refresh_token_invalid", "refresh_token_invalid");
    if (
      payload.typ !== "refresh" ||
      !isNonEmptyString(payload.userId) ||
      !isNonEmptyString(payload.sid) ||
      !isNonEmptyString(payload.jti) ||
      !isGradeClaim(payload.grade) ||
      !isAppClaim(payload.app)
    ) {
      throw new AppError("refresh_token_invalid");
    }
    return payload as unknown as RefreshClaims;
  }

  /**
   * HS256 verification done directly with node:crypto: jsonwebtoken's generic path cost ~60 µs
   * a call, the largest share of an authenticated request. The rules are the narrow ones we need:
   * exactly three base64url parts, header alg HS256 (nothing else, so no `none` and no key
   * confusion), a known kid, a constant-time signature match, an object payload, a numeric exp
   * in the future and, when present, a numeric nbf in the past. The tests cross-check it
   * against tokens made by jsonwebtoken.
   */
  private verify(
    token: string,
    kind: "access" | "refresh",
    invalid: "token_invalid" | "refresh_token_invalid",
    expired: "token_expired" | "refresh_token_invalid",
  ): Record<string, unknown> {
    if (typeof token !== "string" || token.length > 4096) throw new AppError(invalid);
    const parts = token.split(".");
    if (parts.length !== 3) throw new AppError(invalid);
    const [encodedHeader, encodedPayload, signature] = parts;
    const header = parseJsonPart(encodedHeader);
    if (!header || header.alg !== "HS256" || typeof header.kid !== "string") throw new AppError(invalid);
    const key = this.keys.find((k) => k.kid === header.kid);
    if (!key) throw new AppError(invalid);

    const expected = crypto.createHmac("sha256", key[kind]).update(`${encodedHeader}.${encodedPayload}`).digest();
    const given = Buffer.from(signature, "base64url");
    // Re-encoding rejects signatures padded with characters base64url decoding would skip.
    if (given.length !== expected.length || given.toString("base64url") !== signature || !crypto.timingSafeEqual(given, expected)) {
      throw new AppError(invalid);
    }

    const payload = parseJsonPart(encodedPayload);
    if (!payload || typeof payload.exp !== "number") throw new AppError(invalid);
    const now = Math.floor(this.now() / 1000);
    if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || now < payload.nbf)) throw new AppError(invalid);
    if (now >= payload.exp) throw new AppError(expired);
    return payload;
  }
}

/** A compact JWS: the key's fixed header, the claims as JSON, and the HMAC-SHA256 of both. */
function sign(key: SigningKey, kind: "access" | "refresh", claims: object): string {
  const signingInput = `${key.encodedHeader}.${Buffer.from(JSON.stringify(claims), "utf8").toString("base64url")}`;
  return `${signingInput}.${crypto.createHmac("sha256", key[kind]).update(signingInput).digest("base64url")}`;
}

/** Decodes one base64url JSON part of a JWT; null unless it is a JSON object. */
function parseJsonPart(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function deriveKeys(secret: string): SigningKey {
  const kid = crypto.createHash("sha256").update(`kid:${secret}`).digest("base64url").slice(0, 10);
  const refreshKey = crypto.createHmac("sha256", secret).update("refresh-token-signing-key").digest();
  return {
    kid,
    encodedHeader: Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT", kid }), "utf8").toString("base64url"),
    access: crypto.createSecretKey(Buffer.from(secret, "utf8")),
    refresh: crypto.createSecretKey(refreshKey),
  };
}

function isGradeClaim(v: unknown): boolean {
  return v === undefined || v === "full" || v === "anonymous";
}

function isAppClaim(v: unknown): boolean {
  return v === undefined || isNonEmptyString(v);
}

function isNonEmptyString(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}

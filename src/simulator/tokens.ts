/**
 * Access tokens of one app on one platform, as the platforms describe them (part 1 §2, §5):
 * - ordinary (WeChat cgi-bin/token, Douyin v2/token, QQ getToken): every call mints a new token and
 *   cuts every earlier ordinary token down to at most 300 s more, so a fleet refreshing at once keeps
 *   working. A platform whose refetch leaves old tokens alone (Kuaishou) sets `refetchKeepsOld`;
 * - stable (the stable_token APIs): the same token is handed out until it has under 300 s left, then
 *   a new one; `force_refresh` replaces it at once and the old one stops working. The two kinds never
 *   affect each other.
 * - Force limits (part 1 §2b, §5b): at most 20 forced refreshes per day (Beijing calendar day on the
 *   simulator clock) and 30 s between two; a force outside them "does not refresh": the call answers
 *   like normal mode.
 * - Business APIs ask `status(token)`: a token cut short or forced out is "superseded" (WeChat 40001
 *   "not latest"), one past its natural lifetime "expired" (42001). Dead tokens are remembered for a
 *   day so the answer stays specific; after that they are simply unknown (40001 as well).
 */
import crypto from "node:crypto";

export const TOKEN_LIFETIME_MS = 7200_000;
const TOKEN_OVERLAP_MS = 300_000;
const FORCE_REFRESH_PER_DAY = 20;
const FORCE_REFRESH_GAP_MS = 30_000;
const REMEMBER_DEAD_MS = 24 * 3600_000;
const BEIJING_OFFSET_MS = 8 * 3600_000;

export interface TokenPolicy {
  /** A new opaque token in the platform's observed shape. */
  mint(): string;
  /** Default 7200 s. */
  lifetimeMs?: number;
  /** A refetch leaves earlier ordinary tokens valid to their own expiry instead of 300 s more. */
  refetchKeepsOld?: boolean;
  /** What a minted token looks like; anything else is "malformed" to business APIs (WeChat 40014). */
  shape?: RegExp;
}

/** Opaque hex, for platforms whose token shape nobody relies on. */
export const opaqueTokenPolicy: TokenPolicy = { mint: () => crypto.randomBytes(48).toString("hex"), shape: /^[0-9a-f]{96}$/ };

export type TokenStatus = "valid" | "expired" | "superseded" | "unknown";

interface TokenRecord {
  /** When it stops working (ms). */
  expiry: number;
  /** Whether it was cut short (replaced), rather than living out its full lifetime. */
  cut: boolean;
}

export interface IssuedToken {
  accessToken: string;
  expiresInSec: number;
}

export class TokenBook {
  private readonly ordinary = new Map<string, TokenRecord>();
  private readonly stable = new Map<string, TokenRecord>();
  private currentStable: string | undefined;
  private readonly lifetimeMs: number;
  private forceDay = "";
  private forcesToday = 0;
  private lastForceAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly policy: TokenPolicy,
    private readonly now: () => number,
  ) {
    this.lifetimeMs = policy.lifetimeMs ?? TOKEN_LIFETIME_MS;
  }

  issueOrdinary(): IssuedToken {
    const now = this.now();
    this.forgetOld(now);
    if (!this.policy.refetchKeepsOld) {
      for (const record of this.ordinary.values()) {
        if (record.expiry > now + TOKEN_OVERLAP_MS) Object.assign(record, { expiry: now + TOKEN_OVERLAP_MS, cut: true });
      }
    }
    const accessToken = this.policy.mint();
    this.ordinary.set(accessToken, { expiry: now + this.lifetimeMs, cut: false });
    return { accessToken, expiresInSec: this.lifetimeMs / 1000 };
  }

  stableToken(forceRefresh: boolean): IssuedToken {
    const now = this.now();
    this.forgetOld(now);
    const force = forceRefresh && this.allowForce(now);
    const current = this.currentStable;
    const record = current === undefined ? undefined : this.stable.get(current);
    if (current !== undefined && record && !force && record.expiry - now >= TOKEN_OVERLAP_MS) {
      return { accessToken: current, expiresInSec: Math.ceil((record.expiry - now) / 1000) };
    }
    // A pre-rotated token lives out its remaining time; a forced refresh kills it.
    if (record && force) Object.assign(record, { expiry: Math.min(record.expiry, now), cut: true });
    const accessToken = this.policy.mint();
    this.stable.set(accessToken, { expiry: now + this.lifetimeMs, cut: false });
    this.currentStable = accessToken;
    return { accessToken, expiresInSec: this.lifetimeMs / 1000 };
  }

  status(token: string): TokenStatus {
    const record = this.ordinary.get(token) ?? this.stable.get(token);
    if (!record) return "unknown";
    if (record.expiry > this.now()) return "valid";
    return record.cut ? "superseded" : "expired";
  }

  isValid(token: string): boolean {
    return this.status(token) === "valid";
  }

  /** Counts a force against the limits; false means the platform would not refresh. */
  private allowForce(now: number): boolean {
    const day = new Date(now + BEIJING_OFFSET_MS).toISOString().slice(0, 10);
    if (day !== this.forceDay) {
      this.forceDay = day;
      this.forcesToday = 0;
    }
    if (now - this.lastForceAt < FORCE_REFRESH_GAP_MS || this.forcesToday >= FORCE_REFRESH_PER_DAY) return false;
    this.lastForceAt = now;
    this.forcesToday += 1;
    return true;
  }

  private forgetOld(now: number): void {
    for (const map of [this.ordinary, this.stable]) {
      for (const [token, record] of map) if (record.expiry + REMEMBER_DEAD_MS <= now) map.delete(token);
    }
  }
}

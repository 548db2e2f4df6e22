/**
 * Access tokens of one app on one platform, as the platforms describe them (part 1 §2, §5):
 * - ordinary (WeChat cgi-bin/token, Douyin v2/token, QQ getToken): every call mints a new token and
 *   cuts every earlier ordinary token down to at most 300 s more, so a fleet refreshing at once keeps
 *   working. A platform whose refetch leaves old tokens alone (Kuaishou) sets `refetchKeepsOld`;
 * - stable (the stable_token APIs): the same token is handed out until it has under 300 s left, then
 *   a new one; `force_refresh` replaces it at once and the old one stops working. The two kinds never
 *   affect each other. Force-refresh quotas (20 a day, 30 s apart) are not simulated.
 * Nothing about validity is served over HTTP; `isValid` exists for tests of this module.
 */
import crypto from "node:crypto";

export const TOKEN_LIFETIME_MS = 7200_000;
export const TOKEN_OVERLAP_MS = 300_000;

export interface TokenPolicy {
  /** A new opaque token in the platform's observed shape. */
  mint(): string;
  /** Default 7200 s. */
  lifetimeMs?: number;
  /** A refetch leaves earlier ordinary tokens valid to their own expiry instead of 300 s more. */
  refetchKeepsOld?: boolean;
}

/** Opaque hex, for platforms whose token shape nobody relies on. */
export const opaqueTokenPolicy: TokenPolicy = { mint: () => crypto.randomBytes(48).toString("hex") };

export interface IssuedToken {
  accessToken: string;
  expiresInSec: number;
}

export class TokenBook {
  private readonly ordinary = new Map<string, number>(); // token → expiry (ms)
  private readonly stable = new Map<string, number>();
  private currentStable: string | undefined;
  private readonly lifetimeMs: number;

  constructor(
    private readonly policy: TokenPolicy,
    private readonly now: () => number,
  ) {
    this.lifetimeMs = policy.lifetimeMs ?? TOKEN_LIFETIME_MS;
  }

  issueOrdinary(): IssuedToken {
    const now = this.now();
    this.dropExpired(now);
    if (!this.policy.refetchKeepsOld) {
      for (const [token, expiry] of this.ordinary) this.ordinary.set(token, Math.min(expiry, now + TOKEN_OVERLAP_MS));
    }
    const accessToken = this.policy.mint();
    this.ordinary.set(accessToken, now + this.lifetimeMs);
    return { accessToken, expiresInSec: this.lifetimeMs / 1000 };
  }

  stableToken(forceRefresh: boolean): IssuedToken {
    const now = this.now();
    this.dropExpired(now);
    const current = this.currentStable;
    const expiry = current === undefined ? undefined : this.stable.get(current);
    if (current !== undefined && expiry !== undefined && !forceRefresh && expiry - now >= TOKEN_OVERLAP_MS) {
      return { accessToken: current, expiresInSec: Math.ceil((expiry - now) / 1000) };
    }
    // A pre-rotated token lives out its remaining time; a forced refresh kills it.
    if (current !== undefined && forceRefresh) this.stable.delete(current);
    const accessToken = this.policy.mint();
    this.stable.set(accessToken, now + this.lifetimeMs);
    this.currentStable = accessToken;
    return { accessToken, expiresInSec: this.lifetimeMs / 1000 };
  }

  isValid(token: string): boolean {
    const expiry = this.ordinary.get(token) ?? this.stable.get(token);
    return expiry !== undefined && expiry > this.now();
  }

  private dropExpired(now: number): void {
    for (const map of [this.ordinary, this.stable]) {
      for (const [token, expiry] of map) if (expiry <= now) map.delete(token);
    }
  }
}

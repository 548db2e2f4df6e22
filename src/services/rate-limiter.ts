import { AppError } from "../core/errors";
import type { Cache } from "../core/ports/cache";
import { rateLimitSubject } from "../net/client-ip";

/**
 * Fixed-window counters in the shared cache, so every process enforces the same limit.
 * A fixed window is coarse but costs one round trip, and the limits here are generous.
 */
export class RateLimiter {
  constructor(
    private readonly cache: Cache,
    private readonly enabled: boolean,
  ) {}

  /** Counts one request in `bucket`; throws 429 rate_limited (with Retry-After) past `max`. */
  async hit(bucket: string, max: number, windowSec: number): Promise<void> {
    if (!this.enabled) return;
    const { count, resetInMs } = await this.cache.increment(`rate:${bucket}`, windowSec);
    if (count > max) {
      const retryAfterSec = Math.max(1, Math.ceil(resetInMs / 1000));
      throw new AppError("rate_limited", { data: { retryAfterSec }, headers: { "Retry-After": String(retryAfterSec) } });
    }
  }

  /** Counts one request of a client address in `group` (IPv6 by its /64: see rateLimitSubject). */
  async hitAddress(group: string, ip: string, max: number, windowSec: number): Promise<void> {
    if (!this.enabled) return;
    await this.hit(`ip:${group}:${rateLimitSubject(ip)}`, max, windowSec);
  }

  /** Drops the counters of these buckets (an erased user's). */
  async forget(...buckets: string[]): Promise<void> {
    if (buckets.length > 0) await this.cache.delete(...buckets.map((b) => `rate:${b}`));
  }
}

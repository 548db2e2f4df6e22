import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { Cache } from "../core/ports/cache";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import type { PlatformClient } from "../platforms/platform";

export interface PlatformTokenView {
  access_token: string;
  /** Seconds the token still has, not its original lifetime. */
  expires_in: number;
}

interface CachedToken {
  accessToken: string;
  /** Epoch ms when the platform says the token dies. */
  expiresAt: number;
  /** Epoch ms after which we fetch a new one; the cache TTL ends near it too. */
  refreshAt: number;
}

export interface PlatformTokenServiceOptions {
  /** Refresh this long before the platform's expiry (capped at half the lifetime). */
  refreshMarginSec: number;
  /** How long a process waits for another process that holds the fetch lock. */
  lockWaitMs: number;
  now?: () => number;
  metrics?: Metrics;
}

const POLL_INTERVAL_MS = 50;

/**
 * Platform server access tokens, cached so the platform's daily quota is never at risk:
 * in one process concurrent requests share one fetch (single-flight); across processes a lock in
 * the cache lets one process fetch while the others wait for its result.
 */
export class PlatformTokenService {
  private readonly inflight = new Map<string, Promise<CachedToken>>();
  private readonly now: () => number;

  constructor(
    private readonly clients: ReadonlyMap<string, { client: PlatformClient; appId: string }>,
    private readonly cache: Cache,
    private readonly logger: Logger,
    private readonly options: PlatformTokenServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async getAccessToken(platform: string): Promise<PlatformTokenView> {
    const entry = this.clients.get(platform);
    if (!entry) throw new AppError("unknown_platform");
    const key = `platform_access_token:${platform}:${entry.appId}`;

    let token = await this.readCached(key);
    if (token) this.options.metrics?.accessTokenServed(platform, "hit");
    if (!token) {
      let pending = this.inflight.get(key);
      if (!pending) {
        pending = this.fetchUnderLock(key, entry.client).finally(() => this.inflight.delete(key));
        this.inflight.set(key, pending);
      }
      token = await pending;
    }
    return { access_token: token.accessToken, expires_in: Math.max(0, Math.floor((token.expiresAt - this.now()) / 1000)) };
  }

  private async fetchUnderLock(key: string, client: PlatformClient): Promise<CachedToken> {
    const lockKey = `lock:${key}`;
    const owner = crypto.randomBytes(8).toString("hex");
    const deadline = this.now() + this.options.lockWaitMs;
    for (;;) {
      if (await this.cache.setIfAbsent(lockKey, owner, this.options.lockWaitMs)) {
        try {
          // Another process may have stored a token between our miss and our lock.
          const cached = await this.readCached(key);
          if (cached) return cached;
          return await this.fetchAndStore(key, client);
        } finally {
          await this.cache.deleteIfEquals(lockKey, owner).catch(() => undefined);
        }
      }
      await sleep(POLL_INTERVAL_MS);
      const cached = await this.readCached(key);
      if (cached) return cached;
      if (this.now() > deadline) {
        throw new AppError("platform_unavailable", { data: { platform: client.platform, reason: "token_lock_timeout" } });
      }
    }
  }

  private async fetchAndStore(key: string, client: PlatformClient): Promise<CachedToken> {
    const fetched = await client.fetchAccessToken();
    this.options.metrics?.accessTokenServed(client.platform, "fetch");
    // The stable token can arrive with as little as 300 s left: the margin never eats the whole lifetime.
    const margin = Math.min(this.options.refreshMarginSec, Math.floor(fetched.expiresInSec / 2));
    const ttlSec = Math.max(1, fetched.expiresInSec - margin);
    const fetchedAt = this.now();
    const token: CachedToken = {
      accessToken: fetched.accessToken,
      expiresAt: fetchedAt + fetched.expiresInSec * 1000,
      refreshAt: fetchedAt + ttlSec * 1000,
    };
    await this.cache.set(key, JSON.stringify(token), ttlSec);
    this.logger.info({ event: "platform_token_fetched", platform: client.platform, ttlSec }, "platform access token fetched");
    return token;
  }

  private async readCached(key: string): Promise<CachedToken | null> {
    const raw = await this.cache.get(key);
    if (!raw) return null;
    try {
      const parsed = JSON.parse(raw) as CachedToken;
      if (typeof parsed.accessToken === "string" && typeof parsed.refreshAt === "number" && parsed.refreshAt > this.now()) {
        return parsed;
      }
    } catch {
      // A corrupt entry is treated as a miss and overwritten by the next fetch.
    }
    return null;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

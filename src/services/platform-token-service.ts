import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { Cache } from "../core/ports/cache";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { PlatformTokenRejectedError } from "../platforms/platform";
import type { PlatformApp, PlatformApps } from "./platform-apps";
import { cacheKeyOf, labels, parseToken, type CachedToken, type FailedToken } from "./platform-token-record";

export interface PlatformTokenView {
  access_token: string;
  /** Seconds the token still has, not its original lifetime. */
  expires_in: number;
}

export interface PlatformTokenServiceOptions {
  /** Refresh this long before the platform's expiry (capped at half the lifetime). */
  refreshMarginSec: number;
  /** How long a process waits for another process that holds the fetch lock. */
  lockWaitMs: number;
  /** Forced stable-token refreshes allowed per (Beijing) day; the platforms allow 20. */
  forceRefreshPerDay?: number;
  /** Minimum gap between forced refreshes; the platforms ignore a force sooner than 30 s after the last. */
  forceRefreshGapSec?: number;
  /** How long this process serves its own copy of a cached token before reading the cache again. */
  copyTtlMs?: number;
  now?: () => number;
  metrics?: Metrics;
}

/** Told the cache key of every token this process stored or deleted, so other processes drop their copies. */
export type PlatformTokenChangeListener = (cacheKey: string) => void;

/**
 * A copy is served for at most this long without reading the cache. Short on purpose: a change in
 * another process is announced and drops the copy at once; this bounds the case where that message
 * is lost. Within it a caller may get a token another process just replaced, which callers must
 * handle anyway (they hold tokens for minutes): report it, and the heal answers the new one.
 */
const COPY_TTL_MS = 1000;
const POLL_INTERVAL_MS = 50;
const BEIJING_OFFSET_MS = 8 * 3600_000;

/**
 * Platform server access tokens, cached so the platform's daily quota is never at risk:
 * in one process concurrent requests share one fetch (single-flight); across processes a lock in
 * the cache lets one process fetch while the others wait for its result.
 *
 * Tokens heal themselves: a business call that the platform answers with its bad-token code
 * reports the token, which is deleted only if it is still the cached one (compare-and-delete, so
 * a late report never throws away a newer token), and a new one is fetched under the same lock.
 *
 * Each process serves its own copy of the cached token for up to COPY_TTL_MS (a cache round trip
 * per request was most of this route's cost on Redis). Every store and delete is announced
 * (onTokenChange) and other processes drop their copies (forgetCopy); a heal always reads the cache.
 */
export class PlatformTokenService {
  private readonly inflight = new Map<string, Promise<CachedToken>>();
  /**
   * Per cache key (one per platform and app), the entry last read or written: its text, decoded once
   * (the same text is served for hours), and until when it may be served without reading the cache.
   */
  private readonly lastSeen = new Map<string, { raw: string; token: CachedToken | undefined; freshUntil: number }>();
  /** Moves on at every forgotten copy: a cache read that began before it must not keep its answer. */
  private copyGeneration = 0;
  private readonly changeListeners: PlatformTokenChangeListener[] = [];
  private readonly copyTtlMs: number;
  private readonly now: () => number;
  private readonly forcePerDay: number;
  private readonly forceGapMs: number;

  constructor(
    private readonly apps: PlatformApps,
    private readonly cache: Cache,
    private readonly logger: Logger,
    private readonly options: PlatformTokenServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.forcePerDay = options.forceRefreshPerDay ?? 20;
    this.forceGapMs = (options.forceRefreshGapSec ?? 30) * 1000;
    this.copyTtlMs = options.copyTtlMs ?? COPY_TTL_MS;
  }

  onTokenChange(listener: PlatformTokenChangeListener): void {
    this.changeListeners.push(listener);
  }

  /** Another process stored or deleted the token under this cache key: read the cache next time. */
  forgetCopy(cacheKey: string): void {
    const seen = this.lastSeen.get(cacheKey);
    if (seen) seen.freshUntil = 0; // the decoded text stays: the next read likely finds the same
    this.copyGeneration++;
  }

  /** The token of `app` on `platform`: each app has its own, under its own cache key and lock. */
  async getAccessToken(platform: string, app: string): Promise<PlatformTokenView> {
    return this.view(await this.obtain(this.apps.get(platform, app)));
  }

  /**
   * A caller reports that `failedToken` of this app was rejected. Answers the current token: a newer
   * one if the cache already moved on, otherwise one fetched by the healing rule.
   */
  async invalidate(platform: string, app: string, failedToken: string): Promise<PlatformTokenView> {
    return this.view(await this.heal(this.apps.get(platform, app), failedToken));
  }

  /**
   * Runs one platform business call with the cached token. If the platform rejects the token
   * (the client throws PlatformTokenRejectedError), the token is healed and the call retried once;
   * a second rejection is final, since a refresh cannot fix e.g. a token of the wrong kind.
   */
  async withPlatformToken<T>(platform: string, app: string, call: (accessToken: string) => Promise<T>): Promise<T> {
    const entry = this.apps.get(platform, app);
    const first = await this.obtain(entry);
    try {
      return await call(first.accessToken);
    } catch (err) {
      if (!(err instanceof PlatformTokenRejectedError)) throw err;
      const healed = await this.heal(entry, first.accessToken);
      // The force limit may leave us with the very token that failed: retrying it would only fail again.
      if (healed.accessToken === first.accessToken) throw err;
      return await call(healed.accessToken);
    }
  }

  private async heal(entry: PlatformApp, failedToken: string): Promise<CachedToken> {
    const key = cacheKeyOf(entry);
    const raw = await this.cache.get(key);
    const holdsFailed = raw !== null && parseToken(raw)?.accessToken === failedToken;
    if (holdsFailed && (await this.cache.deleteIfEquals(key, raw))) {
      const { platform, app } = labels(entry);
      this.tokenChanged(key);
      this.options.metrics?.platformTokenInvalidated(platform, app);
      this.logger.warn({ event: "platform_token_invalidated", platform, app }, "platform rejected the cached access token; fetching a new one");
    }
    return this.obtain(entry, { token: failedToken, staleEntry: holdsFailed ? raw : null });
  }

  private async obtain(entry: PlatformApp, failed?: FailedToken): Promise<CachedToken> {
    const key = cacheKeyOf(entry);
    const cached = await this.readUsable(key, failed);
    if (cached) {
      this.options.metrics?.accessTokenServed(entry.definition.name, entry.app, "hit");
      return cached;
    }
    const flightKey = failed ? `${key}\0${failed.token}` : key;
    let pending = this.inflight.get(flightKey);
    if (!pending) {
      pending = this.fetchUnderLock(key, entry, failed).finally(() => this.inflight.delete(flightKey));
      this.inflight.set(flightKey, pending);
    }
    return pending;
  }

  private async fetchUnderLock(key: string, entry: PlatformApp, failed?: FailedToken): Promise<CachedToken> {
    const lockKey = `lock:${key}`;
    const owner = crypto.randomBytes(8).toString("hex");
    const deadline = this.now() + this.options.lockWaitMs;
    for (;;) {
      if (await this.cache.setIfAbsent(lockKey, owner, this.options.lockWaitMs)) {
        try {
          // Another process may have stored a token between our miss and our lock.
          const cached = await this.readUsable(key, failed);
          if (cached) return cached;
          return await this.fetchAndStore(key, entry, failed);
        } finally {
          await this.cache.deleteIfEquals(lockKey, owner).catch(() => undefined);
        }
      }
      await sleep(POLL_INTERVAL_MS);
      const cached = await this.readUsable(key, failed);
      if (cached) return cached;
      if (this.now() > deadline) {
        throw new AppError("platform_unavailable", { data: { platform: entry.definition.name, reason: "token_lock_timeout" } });
      }
    }
  }

  private async fetchAndStore(key: string, entry: PlatformApp, failed?: FailedToken): Promise<CachedToken> {
    const { client } = entry;
    const { platform, app } = labels(entry);
    const metrics = this.options.metrics;
    let fetched = await client.fetchAccessToken();
    metrics?.accessTokenServed(platform, app, "fetch");
    // A stable-token API in normal mode still handing out the token that failed: only a force replaces it.
    if (failed && client.tokenApi === "stable" && fetched.accessToken === failed.token) {
      const forced = await this.mayForceRefresh(platform, entry.appId);
      metrics?.platformTokenForced(platform, app, forced ? "done" : "blocked");
      if (forced) {
        fetched = await client.fetchAccessToken({ forceRefresh: true });
        metrics?.accessTokenServed(platform, app, "fetch");
        this.logger.warn({ event: "platform_token_forced", platform, app }, "forced a new stable access token");
      } else {
        const message = "the stable token was rejected but the force-refresh limit blocks a new one; serving the current token";
        this.logger.warn({ event: "platform_token_force_blocked", platform, app }, message);
      }
    }
    // The stable token can arrive with as little as 300 s left: the margin never eats the whole lifetime.
    const margin = Math.min(this.options.refreshMarginSec, Math.floor(fetched.expiresInSec / 2));
    const ttlSec = Math.max(1, fetched.expiresInSec - margin);
    const fetchedAt = this.now();
    const token: CachedToken = {
      accessToken: fetched.accessToken,
      expiresAt: fetchedAt + fetched.expiresInSec * 1000,
      refreshAt: fetchedAt + ttlSec * 1000,
      fetchId: crypto.randomBytes(6).toString("base64url"),
    };
    const raw = JSON.stringify(token);
    await this.cache.set(key, raw, ttlSec);
    this.tokenChanged(key);
    this.lastSeen.set(key, { raw, token: Object.freeze(token), freshUntil: this.now() + this.copyTtlMs });
    this.logger.info({ event: "platform_token_fetched", platform, app, ttlSec }, "platform access token fetched");
    return token;
  }

  /**
   * The platforms' force limit, shared by every process through the cache: at least the gap since
   * the last force, and at most forcePerDay per day. The day is Beijing's calendar day, where the
   * platforms' daily quotas are assumed to reset (unconfirmed for the force limit itself).
   */
  private async mayForceRefresh(platform: string, appId: string): Promise<boolean> {
    const scope = `${platform}:${appId}`;
    if (!(await this.cache.setIfAbsent(`platform_token_force_gap:${scope}`, "1", this.forceGapMs))) return false;
    const day = new Date(this.now() + BEIJING_OFFSET_MS).toISOString().slice(0, 10);
    const { count } = await this.cache.increment(`platform_token_force_day:${scope}:${day}`, 2 * 86_400);
    return count <= this.forcePerDay;
  }

  /**
   * A cached token worth serving: not due for refresh, and not the token a heal is replacing.
   * This process's copy answers while it is fresh, except during a heal, which reads the cache.
   */
  private async readUsable(key: string, failed?: FailedToken): Promise<CachedToken | null> {
    const copy = failed ? undefined : this.lastSeen.get(key);
    if (copy?.token && copy.freshUntil > this.now() && copy.token.refreshAt > this.now()) return copy.token;
    const generation = this.copyGeneration;
    const raw = await this.cache.get(key);
    const seen = raw === null ? undefined : this.decode(key, raw);
    const token = seen?.token;
    if (!seen || !token || token.refreshAt <= this.now()) return null;
    if (failed && raw === failed.staleEntry) return null;
    if (generation === this.copyGeneration) seen.freshUntil = this.now() + this.copyTtlMs;
    return token;
  }

  /** This process stored or deleted the token under `key`: its copy goes, and the other processes are told. */
  private tokenChanged(key: string): void {
    this.forgetCopy(key);
    for (const listener of this.changeListeners) listener(key);
  }

  /** The record of this text, decoded once; a new text starts out not fresh (readUsable decides). */
  private decode(key: string, raw: string) {
    const last = this.lastSeen.get(key);
    if (last?.raw === raw) return last;
    const token = parseToken(raw);
    // Frozen: callers share it. One entry per platform and app, so the map stays as small as the config.
    if (token) Object.freeze(token);
    const seen = { raw, token, freshUntil: 0 };
    this.lastSeen.set(key, seen);
    return seen;
  }

  private view(token: CachedToken): PlatformTokenView {
    return { access_token: token.accessToken, expires_in: Math.max(0, Math.floor((token.expiresAt - this.now()) / 1000)) };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

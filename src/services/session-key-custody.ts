import { perUserKey } from "../core/apps";
import type { Cache, CacheEntry } from "../core/ports/cache";
import { SessionKeys } from "./session-keys";

/** Cache key of a player's platform session key: one per user and app, like the session tokens (spec 5.5). */
export const sessionKeyKey = (userId: string, app: string, hashTagged = false) => perUserKey("session_key", userId, app, hashTagged);

/** What the server keeps from a login so it can decrypt, verify and check on the player's behalf. */
export interface KeptSessionKey {
  platform: string;
  /** The platform openid the key belongs to; "" when the login gave none. */
  openid: string;
  sessionKey: string;
  /** When the login kept it (epoch ms): an order waiting for a new login knows one happened. Absent in entries kept before. */
  keptAt?: number;
}

/**
 * Keeps each player's latest platform `session_key` in the cache, never in logs or the database.
 * A login replaces it (the platform invalidates the old one anyway); a logout or erase removes it.
 */
export class SessionKeyCustody {
  private readonly keys: SessionKeys;

  constructor(
    private readonly cache: Cache,
    /** As long as the session it came with can live; the platform may retire it sooner. */
    private readonly ttlSec: number,
  ) {
    this.keys = new SessionKeys(cache);
  }

  /**
   * The cache entry that keeps this key, for a caller that writes it together with other entries
   * (a login's session). A login without a key (Douyin anonymous) must not leave the previous
   * login's key behind: that one is deleted here and null returned.
   */
  async entryFor(userId: string, app: string, kept: KeptSessionKey): Promise<CacheEntry | null> {
    if (!kept.sessionKey) {
      await this.forget(userId, app);
      return null;
    }
    return { key: this.keys.key({ name: "session_key", userId, app }), value: JSON.stringify(kept), ttlSec: this.ttlSec };
  }

  /** The key of the player's latest login to `app`: each game has its own (the platform issues one per app). */
  async read(userId: string, app: string): Promise<KeptSessionKey | undefined> {
    const [raw] = await this.keys.read([{ name: "session_key", userId, app }]);
    if (raw === null) return undefined;
    try {
      const parsed = JSON.parse(raw) as KeptSessionKey;
      return typeof parsed.sessionKey === "string" && typeof parsed.platform === "string" ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  async forget(userId: string, app: string): Promise<void> {
    await this.cache.delete(...this.keys.allKeys([{ name: "session_key", userId, app }]));
  }
}

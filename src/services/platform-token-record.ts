/** A cached platform access token as stored, and the keys and labels of one platform app's token. */
import type { PlatformApp } from "./platform-apps";

export interface CachedToken {
  accessToken: string;
  /** Epoch ms when the platform says the token dies. */
  expiresAt: number;
  /** Epoch ms after which we fetch a new one; the cache TTL ends near it too. */
  refreshAt: number;
  /** Unique per upstream fetch, so a heal can tell a fresh answer from the entry that failed. */
  fetchId?: string;
}

/**
 * A token a caller saw fail, and the cache entry that held it then (null if none). Any later
 * entry is a fresh answer, even if it repeats the token (a stable token the force limit kept).
 */
export interface FailedToken {
  token: string;
  staleEntry: string | null;
}

/** One key per platform app id: the default app's is the key it had before apps existed. */
export function cacheKeyOf(entry: PlatformApp): string {
  return `platform_access_token:${entry.definition.name}:${entry.appId}`;
}

export function labels(entry: PlatformApp): { platform: string; app: string } {
  return { platform: entry.definition.name, app: entry.app };
}

/** A corrupt entry is treated as a miss and overwritten by the next fetch. */
export function parseToken(raw: string): CachedToken | undefined {
  try {
    const parsed = JSON.parse(raw) as CachedToken;
    if (typeof parsed.accessToken === "string" && typeof parsed.refreshAt === "number" && typeof parsed.expiresAt === "number") {
      return parsed;
    }
  } catch {
    // fall through
  }
  return undefined;
}


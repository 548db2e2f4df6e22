/**
 * The session core for unit tests: the real TokenSigner, MemoryCache and SessionService on one fixed,
 * hand-moved clock, with the in-memory user store. No network, no database, no timers.
 */
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { SessionService, type SessionEndReason } from "../../src/services/session-service";
import { TokenSigner } from "../../src/services/token-signer";
import { MemoryUserStore } from "./memory-user-store";

export const ACCESS_TTL_SEC = 900;
export const REFRESH_TTL_SEC = 30 * 24 * 3600;
export const REFRESH_GRACE_SEC = 10;

export interface UnitSessions {
  clock: { ms: number; advanceSec(sec: number): void };
  signer: TokenSigner;
  cache: MemoryCache;
  store: MemoryUserStore;
  sessions: SessionService;
  /** Every session change the service announced, in order. */
  ended: { userId: string; reason: SessionEndReason }[];
}

export function unitSessions(options: { refreshGraceSec?: number } = {}): UnitSessions {
  const clock = {
    ms: Date.UTC(2026, 0, 1, 12),
    advanceSec(sec: number) {
      this.ms += sec * 1000;
    },
  };
  const now = () => clock.ms;
  const signer = new TokenSigner({
    secret: "unit-test-secret-of-enough-length-0123456789",
    previousSecrets: [],
    accessTtlSec: ACCESS_TTL_SEC,
    refreshTtlSec: REFRESH_TTL_SEC,
    now,
  });
  const cache = new MemoryCache({ now });
  const store = new MemoryUserStore(now);
  const sessions = new SessionService(signer, cache, store, { refreshGraceSec: options.refreshGraceSec ?? REFRESH_GRACE_SEC });
  const ended: UnitSessions["ended"] = [];
  sessions.onSessionChange((userId, reason) => ended.push({ userId, reason }));
  return { clock, signer, cache, store, sessions, ended };
}

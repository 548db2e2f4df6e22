/**
 * Operators' mutes: a muted player's chat in rooms is refused until the mute ends. The user store
 * holds the mute (it survives a restart, on every database); the shared cache holds a copy that
 * each chat message reads, so a mute reaches the player's rooms on every process at once and a
 * chat costs no database query. Knows nothing of Colyseus: rooms map `muted` to their `error`.
 */
import { AppError } from "../core/errors";
import type { Cache } from "../core/ports/cache";
import type { UserMute, UserStore } from "../core/ports/user-store";

/** The longest mute an operator may give (a year); longer is a disable's job. */
export const MUTE_MAX_SEC = 365 * 24 * 3600;
/** The cache's "not muted", kept a minute: a mute overwrites it at once, so only reads are spared. */
const NOT_MUTED = "-";
const NOT_MUTED_TTL_MS = 60_000;

export const muteCacheKey = (userId: string) => `mute:${userId}`;

export class MuteService {
  private readonly lookups = new Map<string, Promise<string | null>>();

  constructor(
    private readonly store: UserStore,
    private readonly cache: Cache,
    private readonly now: () => number = Date.now,
  ) {}

  /** Mutes the player for `durationSec` from now (a later mute replaces an earlier one). */
  async mute(userId: string, input: { reason: string; durationSec: number }): Promise<UserMute> {
    if (!Number.isInteger(input.durationSec) || input.durationSec < 1 || input.durationSec > MUTE_MAX_SEC) {
      throw new AppError("invalid_request", { message: `durationSec: 1 to ${MUTE_MAX_SEC}` });
    }
    const at = this.now();
    const mute: UserMute = { reason: input.reason, until: new Date(at + input.durationSec * 1000).toISOString() };
    if (!(await this.store.muteUser(userId, mute, new Date(at).toISOString()))) throw new AppError("user_disabled", { message: "No such player" });
    // Unconditional: replaces a "not muted" a room cached a moment ago.
    await this.cache.set(muteCacheKey(userId), mute.until, input.durationSec);
    return mute;
  }

  async unmute(userId: string): Promise<void> {
    if (!(await this.store.unmuteUser(userId, new Date(this.now()).toISOString()))) throw new AppError("user_disabled", { message: "No such player" });
    await this.cache.set(muteCacheKey(userId), NOT_MUTED, NOT_MUTED_TTL_MS / 1000);
  }

  /** The mute in force, as stored (the console's view). */
  find(userId: string): Promise<UserMute | null> {
    return this.store.findMute(userId);
  }

  /**
   * When the player's mute ends, or null when they may chat: what a room asks on every chat message.
   * Messages of one player asking together share one lookup, so they go on in the order they came
   * (separate lookups, one a cache miss, could answer out of order and swap the chat lines).
   */
  mutedUntil(userId: string): Promise<string | null> {
    let lookup = this.lookups.get(userId);
    if (!lookup) {
      lookup = this.lookUp(userId).finally(() => this.lookups.delete(userId));
      this.lookups.set(userId, lookup);
    }
    return lookup;
  }

  private async lookUp(userId: string): Promise<string | null> {
    const key = muteCacheKey(userId);
    const cached = await this.cache.get(key);
    if (cached !== null) return cached === NOT_MUTED || Date.parse(cached) <= this.now() ? null : cached;
    // Not in the cache (first chat, expired, a restarted memory cache): the store decides.
    const mute = await this.store.findMute(userId);
    const ttlMs = mute ? Date.parse(mute.until) - this.now() : NOT_MUTED_TTL_MS;
    // Only if still absent: a mute or unmute written since this read began is newer and stays.
    if (ttlMs > 0) await this.cache.setIfAbsent(key, mute?.until ?? NOT_MUTED, ttlMs);
    return mute && ttlMs > 0 ? mute.until : null;
  }

  /** Throws `muted` (with `until`) while the player is muted. */
  async requireUnmuted(userId: string): Promise<void> {
    const until = await this.mutedUntil(userId);
    if (until) throw new AppError("muted", { data: { until } });
  }
}

import { perUserKey } from "../core/apps";
import type { Cache } from "../core/ports/cache";

/** The per-user entries of a session: interface spec 5.5 names the first two. */
export type SessionKeyName = "access_token" | "refresh_token" | "session_key";

export interface SessionKeyRef {
  name: SessionKeyName;
  userId: string;
  app: string;
}

/** A value read, with the key that held it (the current spelling when none did). */
export interface FoundEntry {
  key: string;
  value: string | null;
}

/**
 * The spelling of a user's session keys on one cache: the spec's `access_token:<userId>` unless the
 * cache is a Redis Cluster, which needs `access_token:{<userId>}` (Cache.hashTags). On one shared
 * Redis, earlier versions wrote the braced spelling: a key this version has not written yet is read
 * from there, so sessions from before an upgrade go on until they expire (no migration, no forced
 * login). A key this version wrote always wins: the earlier entry is then an older session.
 */
export class SessionKeys {
  private readonly tagged: boolean;
  private readonly hasEarlier: boolean;

  constructor(private readonly cache: Cache) {
    this.tagged = cache.hashTags === "required";
    this.hasEarlier = cache.hashTags === "legacy";
  }

  key(ref: SessionKeyRef): string {
    return perUserKey(ref.name, ref.userId, ref.app, this.tagged);
  }

  /** The braced spelling earlier versions wrote, or null where none can exist (memory, cluster). */
  earlierKey(ref: SessionKeyRef): string | null {
    return this.hasEarlier ? perUserKey(ref.name, ref.userId, ref.app, true) : null;
  }

  /** Every spelling of the refs, for a delete that must leave nothing behind. */
  allKeys(refs: readonly SessionKeyRef[]): string[] {
    return refs.flatMap((ref) => [this.key(ref), this.earlierKey(ref)].filter((k): k is string => k !== null));
  }

  /** One round trip: each ref's value under its current key, else under the earlier one. */
  async find(refs: readonly SessionKeyRef[]): Promise<FoundEntry[]> {
    const current = refs.map((ref) => this.key(ref));
    if (!this.hasEarlier) {
      const values = current.length === 1 ? [await this.cache.get(current[0])] : await this.cache.getMany(current);
      return current.map((key, i) => ({ key, value: values[i] }));
    }
    const earlier = this.earlierKeys(refs);
    const values = await this.cache.getMany([...current, ...earlier]);
    return current.map((key, i) =>
      values[i] !== null ? { key, value: values[i] } : { key: values[i + refs.length] !== null ? earlier[i] : key, value: values[i + refs.length] },
    );
  }

  async read(refs: readonly SessionKeyRef[]): Promise<(string | null)[]> {
    return (await this.find(refs)).map((found) => found.value);
  }

  /** The earlier spelling's keys of `refs`, none where none can exist (memory, cluster). */
  earlierKeys(refs: readonly SessionKeyRef[]): string[] {
    return refs.flatMap((ref) => this.earlierKey(ref) ?? []);
  }

  /** Drops the earlier spelling of `refs` once this version has written its own. */
  async dropEarlier(refs: readonly SessionKeyRef[]): Promise<void> {
    const earlier = this.earlierKeys(refs);
    if (earlier.length > 0) await this.cache.delete(...earlier);
  }
}

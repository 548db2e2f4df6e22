import { USER_STATUS_ACTIVE, type PlatformIdentityKey, type User } from "../core/user";
import { TtlLru } from "./ttl-lru";

export interface RecentUsersOptions {
  /** How long a record is served without asking the store; 0 turns the cache off. */
  ttlMs: number;
  /** At most this many records; the least recently used goes first. */
  maxEntries: number;
  now?: () => number;
}

/**
 * Active user records this process read recently, for the token verification every authenticated
 * request and room join makes. Correctness rests on two rules:
 * - only ACTIVE users are kept: a disabled user is read from the store every time, so a ban's end
 *   is decided against the clock on every read (the store computes the status on read);
 * - every change to a user drops its record (`forget`): this process's writes through
 *   ChangeAnnouncingUserStore, other processes' and `npm run admin`'s through the presence channel.
 * A read that was in flight while any record was forgotten is not kept, so a change can never be
 * overwritten by the answer of a read that started before it.
 */
export class RecentUsers {
  private readonly records: TtlLru<User>;
  /**
   * Platform identity → user id, for returning players' logins. Only a hint: it is used when the
   * user's record is itself present and fresh. An identity leaves its user only when the user is
   * erased (forgotten for good), and is attached only while free, so a hint is never wrong while
   * its record is kept.
   */
  private readonly owners = new Map<string, string>();
  /** Bumped by every forget; a read only stores its answer if no forget happened meanwhile. */
  private generation = 0;

  constructor(private readonly options: RecentUsersOptions) {
    this.records = new TtlLru(options.maxEntries, options.ttlMs, options.now ?? Date.now);
  }

  async find(userId: string, load: (userId: string) => Promise<User | null>): Promise<User | null> {
    const hit = this.records.get(userId);
    if (hit) return hit;
    const generation = this.generation;
    const user = await load(userId);
    this.keep(user, generation);
    return user;
  }

  /** The user holding a platform identity, like UserStore.findByIdentity. */
  async findByIdentity(identity: PlatformIdentityKey, load: (identity: PlatformIdentityKey) => Promise<User | null>): Promise<User | null> {
    const key = `${identity.platform}\u0000${identity.platformId}`;
    const owner = this.owners.get(key);
    const hit = owner === undefined ? undefined : this.records.get(owner);
    if (hit) return hit;
    const generation = this.generation;
    const user = await load(identity);
    if (this.keep(user, generation)) {
      if (this.owners.size >= this.options.maxEntries && !this.owners.has(key)) this.owners.delete(this.owners.keys().next().value as string);
      this.owners.set(key, user!.id);
    }
    return user;
  }

  /** Keeps an active user read while no forget happened; says whether it did. */
  private keep(user: User | null, generation: number): boolean {
    if (!user || user.status !== USER_STATUS_ACTIVE || this.options.ttlMs <= 0 || generation !== this.generation) return false;
    this.records.set(user.id, user);
    return true;
  }

  forget(userId: string): void {
    this.generation++;
    this.records.delete(userId);
  }

  get size(): number {
    return this.records.size;
  }
}

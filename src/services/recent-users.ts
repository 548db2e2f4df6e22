import { USER_STATUS_ACTIVE, type User } from "../core/user";

export interface RecentUsersOptions {
  /** How long a record is served without asking the store; 0 turns the cache off. */
  ttlMs: number;
  /** At most this many records; the least recently stored goes first. */
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
  private readonly records = new Map<string, { user: User; expiresAt: number }>();
  private readonly now: () => number;
  /** Bumped by every forget; a read only stores its answer if no forget happened meanwhile. */
  private generation = 0;

  constructor(private readonly options: RecentUsersOptions) {
    this.now = options.now ?? Date.now;
  }

  async find(userId: string, load: (userId: string) => Promise<User | null>): Promise<User | null> {
    const hit = this.records.get(userId);
    if (hit) {
      if (hit.expiresAt > this.now()) return hit.user;
      this.records.delete(userId);
    }
    const generation = this.generation;
    const user = await load(userId);
    if (user && user.status === USER_STATUS_ACTIVE && this.options.ttlMs > 0 && generation === this.generation) {
      if (this.records.size >= this.options.maxEntries) this.records.delete(this.records.keys().next().value as string);
      this.records.set(userId, { user, expiresAt: this.now() + this.options.ttlMs });
    }
    return user;
  }

  forget(userId: string): void {
    this.generation++;
    this.records.delete(userId);
  }

  get size(): number {
    return this.records.size;
  }
}

import type { UserStore } from "../core/ports/user-store";

/** Told the id of every user whose record a write may have changed. */
export type UserChangeListener = (userId: string) => void;

/** Methods of the port that change an existing user's record; each takes the user id first. */
const WRITES: readonly (keyof UserStore)[] = ["attachIdentity", "updateProfile", "setPassword", "setStatus", "disableUser", "enableUser", "muteUser", "unmuteUser", "deleteUser"];

/**
 * The user store with an announcement after every write to an existing user (status, ban, profile,
 * password, identities, erase), so per-process copies (RecentUsers) are dropped here at once and,
 * through the listener the composition root adds, in every other process. A write that failed is
 * announced too: it may have been committed before the failure reached us.
 */
export function announceUserChanges(store: UserStore, listener: UserChangeListener): UserStore {
  const announced = new Set<string>(WRITES);
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== "string" || !announced.has(property) || typeof value !== "function") return value;
      return async (userId: string, ...rest: unknown[]) => {
        try {
          return await (value as (...args: unknown[]) => Promise<unknown>).apply(target, [userId, ...rest]);
        } finally {
          listener(userId);
        }
      };
    },
  });
}

/** Fan-out of user changes made in this process (see announceUserChanges). */
export class UserChangeFeed {
  private readonly listeners: UserChangeListener[] = [];

  on(listener: UserChangeListener): void {
    this.listeners.push(listener);
  }

  readonly announce = (userId: string): void => {
    for (const listener of this.listeners) listener(userId);
  };
}

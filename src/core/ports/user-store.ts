import type { PlatformIdentityKey, User } from "../user";

/** What a store needs to create a user; the store fills status=1, version=1, timestamps. */
export interface NewUser {
  id: string;
  username: string;
  email: string;
  passwordHash: string;
  openid: string | null;
  /** ISO 8601 UTC; used for both createdAt and updatedAt. */
  createdAt: string;
  /** Set when the owner chose the password (registration); absent for a random one (platform login). */
  passwordSetAt?: string | null;
}

export interface UserCredentials {
  user: User;
  passwordHash: string;
  /** When the owner chose a password; null while it is still the random one made at creation. */
  passwordSetAt: string | null;
}

export interface ProfileChanges {
  nickname?: string | null;
  avatar?: string | null;
}

/** Why and until when a user is disabled (status other than 1). */
export interface UserRestriction {
  /** The operator's reason; null when disabled without one (e.g. by setStatus). */
  reason: string | null;
  /** ISO 8601 UTC end of a ban; null while disabled indefinitely. */
  until: string | null;
}

/** An operator's mute: the player's chat in rooms is refused until `until`. */
export interface UserMute {
  reason: string;
  /** ISO 8601 UTC end of the mute; after it the player reads as not muted, without any write. */
  until: string;
}

/** A platform identity as stored, with when it was linked. */
export interface StoredIdentity extends PlatformIdentityKey {
  createdAt: string;
}

/**
 * Everything stored about a user except the password hash: every column of the user's record
 * (camelCase, timestamps as ISO text) and its identities. For the data-access right (export).
 */
export interface UserRecord {
  user: Record<string, unknown>;
  identities: StoredIdentity[];
}

/** Thrown by `createUser` when a platform identity already belongs to a user. Nothing was written. */
export class IdentityTakenError extends Error {
  constructor(readonly identity: PlatformIdentityKey) {
    super(`identity ${identity.platform}:${identity.platformId} already belongs to a user`);
    this.name = "IdentityTakenError";
  }
}

/** Thrown by `createUser` when the username or email is taken. Nothing was written. */
export class AccountTakenError extends Error {
  constructor() {
    super("username or email already taken");
    this.name = "AccountTakenError";
  }
}

/**
 * Persistence of users and their platform identities. Narrow on purpose: each method is one
 * atomic step, so a document store (MongoDB) fits as well as SQL.
 * Uniqueness of (platform, platformId), username and email is enforced by the store itself.
 */
export interface UserStore {
  /** Brings the schema to the current version; safe to call on every boot. */
  migrate(): Promise<void>;
  findById(id: string): Promise<User | null>;
  findByIdentity(identity: PlatformIdentityKey): Promise<User | null>;
  /** Creates the user and all identities atomically, or throws IdentityTakenError / AccountTakenError. */
  createUser(user: NewUser, identities: PlatformIdentityKey[]): Promise<User>;
  /**
   * Links another identity to an existing user. With `asPrimary`, the user's `openid` becomes this
   * platformId and `version` increments. Returns the updated user, or null when the identity already
   * belongs to a user or the user does not exist (then nothing changed).
   */
  attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null>;
  /** Every platform identity that leads to the user, oldest first; empty for an unknown user. */
  listIdentities(userId: string): Promise<PlatformIdentityKey[]>;
  findCredentialsByUsername(username: string): Promise<UserCredentials | null>;
  /** Users whose nickname is exactly this, oldest first, at most `limit` (an operator's search; no index, a scan). */
  findByNickname(nickname: string, limit: number): Promise<User[]>;
  /**
   * Users whose nickname or username contains `part` (letter case ignored; `%`, `_` and regex signs
   * are plain text), oldest first, at most `limit`: a support person's "part of a name". A scan.
   */
  findByNamePart(part: string, limit: number): Promise<User[]>;
  findCredentialsByEmail(email: string): Promise<UserCredentials | null>;
  findCredentialsById(id: string): Promise<UserCredentials | null>;
  /**
   * Applies profile changes if the stored version equals `expectedVersion`; increments version and
   * updatedAt. Returns the updated user, "version_conflict", or null when the user does not exist.
   */
  updateProfile(id: string, changes: ProfileChanges, expectedVersion: number): Promise<User | "version_conflict" | null>;
  /** Stores a new password hash chosen by the owner (sets passwordSetAt); increments version. */
  setPassword(id: string, passwordHash: string, at: string): Promise<User | null>;
  setStatus(id: string, status: number): Promise<User | null>;
  /**
   * Disables the user (status 2) with a reason and an optional end; increments version. A user
   * whose ban has ended reads as status 1 on every read afterwards, without any write.
   */
  disableUser(id: string, restriction: { reason: string; until: string | null }, at: string): Promise<User | null>;
  /** Makes the user active again and forgets the restriction; increments version. */
  enableUser(id: string, at: string): Promise<User | null>;
  /** The restriction in force, or null when the user is active (a ban that ended included) or missing. */
  findRestriction(id: string): Promise<UserRestriction | null>;
  /** Mutes the user's chat until `mute.until` (a later mute replaces it); increments version. Null for a missing user. */
  muteUser(id: string, mute: UserMute, at: string): Promise<User | null>;
  /** Lifts the mute; increments version. Null for a missing user. */
  unmuteUser(id: string, at: string): Promise<User | null>;
  /** The mute in force, or null when there is none, it has ended, or the user is missing. */
  findMute(id: string): Promise<UserMute | null>;
  /** Everything stored about the user except the password hash, or null when the user does not exist. */
  exportUser(id: string): Promise<UserRecord | null>;
  /** Removes the user and its identities atomically; false when there was no such user. */
  deleteUser(id: string): Promise<boolean>;
  /**
   * Only for stores whose erase takes several steps (MongoDB): finishes every erase a crash or a
   * lost answer interrupted, and returns how many were finished, by this call or by lookups since
   * the last call (a lookup that meets such a user finishes its erase and then finds nothing).
   */
  finishInterruptedErases?(): Promise<number>;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Brings one LeanCloud player into the user store so that their next platform login finds them.
 *
 * The player is found and created under the same identity keys as the login (player-identity-keys),
 * plus one more: `leancloud[@<app>]:<objectId>`, which records where they came from and makes the
 * import idempotent: a player whose objectId is already stored is never created again, whatever
 * crashed or ran twice. Creation is the store's atomic createUser (identities are unique in every
 * store), so an import racing a login of the same player ends with one user either way.
 */
import { DEFAULT_APP, identityNamespace } from "../../core/apps";
import { AppError } from "../../core/errors";
import { KeyedTurns } from "../../core/keyed-turns";
import { AccountTakenError, IdentityTakenError, type UserStore } from "../../core/ports/user-store";
import { acceptedAvatar, acceptedNickname } from "../../core/text-rules";
import type { PlatformIdentityKey, User } from "../../core/user";
import type { UserKeyField } from "../../platforms/platform";
import { identityNamespaces, playerIdentityKeys, type IdentityNamespaces } from "../player-identity-keys";
import { newPlatformUser } from "../user-factory";
import type { LeanCloudPlayer } from "./leancloud-users";

/** What the importer needs to know of the app the players belong to. */
export interface ImportApp {
  key: string;
  /** Platform → the app's platform app id, for each platform the app is on. */
  platformAppIds: Record<string, string>;
  /** Platform → how many apps of the deployment are on it (unionid linking needs more than one). */
  appsOnPlatform: Record<string, number>;
  /** Platform → the order of fields a user is keyed by (the platform module's userKeyOrder). */
  keyOrder: Record<string, readonly UserKeyField[]>;
  linkAppsByUnionid: boolean;
  placeholderEmailDomain: string;
}

/** What earlier attempts for a player had started writing when their answer was lost (see importPlayer). */
export interface UnfinishedAttempt {
  /** The ids of the users earlier attempts asked the store to create: finding one of them means it was this run's. */
  createdIds?: string[];
  /** An attempt was recording the objectId on a user who logged in first, and its answer was lost. */
  merging?: boolean;
}

export type ImportOutcome =
  | { kind: "imported" | "merged" | "already"; userId: string; notes: string[] }
  | { kind: "would_import" | "would_merge"; userId?: string; notes: string[] }
  | { kind: "skipped"; reason: string; notes: string[] };

/** The identity namespace of LeanCloud objectIds (`leancloud:<objectId>`, another app's `leancloud@<app key>:…`). */
export const LEANCLOUD_NAMESPACE = "leancloud";

const MAX_ATTEMPTS = 4;
const USERNAME = /^[A-Za-z][A-Za-z0-9_]{2,31}$/;
const EMAIL = /^[^\s@"<>()\\,;:]+@[^\s@"<>()\\,;:]+\.[^\s@"<>()\\,;:]+$/;

export class PlayerImporter {
  private readonly namespaces = new Map<string, IdentityNamespaces>();
  private readonly sourceNamespace: string;
  /** Imports by objectId, one at a time: a copy of the record waits for the one under way. */
  private readonly copies = new KeyedTurns();

  constructor(
    private readonly store: UserStore,
    private readonly app: ImportApp,
    private readonly dryRun = false,
  ) {
    this.sourceNamespace = identityNamespace(LEANCLOUD_NAMESPACE, app.key === DEFAULT_APP ? null : app.key);
    for (const [platform, appId] of Object.entries(app.platformAppIds)) {
      const own = identityNamespace(platform, app.key === DEFAULT_APP ? null : appId);
      this.namespaces.set(platform, identityNamespaces(platform, own, app.appsOnPlatform[platform] ?? 1, app.linkAppsByUnionid));
    }
  }

  /** The identity recording a LeanCloud objectId (also how an operator finds the player: `leancloud:<objectId>`). */
  sourceKey(objectId: string): PlatformIdentityKey {
    return { platform: this.sourceNamespace, platformId: objectId };
  }

  /**
   * `unfinished` carries what earlier attempts for this player in this run got as far as, when a write
   * went unanswered: a user found afterwards under an id one of them asked for is this run's import;
   * under any other id, someone else's (another copy of the record, a login, an earlier run).
   */
  async importPlayer(player: LeanCloudPlayer, unfinished: UnfinishedAttempt = {}): Promise<ImportOutcome> {
    // Copies of one record in one run go one after the other: two at once can both attach the
    // objectId to the same user (the store answers a repeated attach as done, as it must for a
    // write whose answer was lost), and both would count as `merged` where the second is `already`.
    return this.copies.run(player.objectId, () => this.importOnce(player, unfinished));
  }

  private async importOnce(player: LeanCloudPlayer, unfinished: UnfinishedAttempt): Promise<ImportOutcome> {
    const notes: string[] = [];
    const keys = this.keysOf(player, notes);
    if (keys.length === 0) return { kind: "skipped", reason: "platform_not_served", notes };
    const source = this.sourceKey(player.objectId);
    let accountFields = this.accountFields(player, notes);
    for (let attempt = 1; ; attempt++) {
      const already = await this.store.findByIdentity(source);
      if (already) {
        if (!this.dryRun) await this.completeMerge(already, keys, player, notes);
        // Told by the user's id, not by what was tried: a copy of this record (or a login) may have written it.
        const kind = unfinished.createdIds?.includes(already.id) ? "imported" : unfinished.merging ? "merged" : "already";
        // A username or email "taken" by the very user found (another copy of this record made it) is no news.
        const said = kind === "imported" ? notes : notes.filter((note) => !note.endsWith("_taken"));
        return { kind, userId: already.id, notes: said };
      }
      const owner = await this.findOwner(keys);
      if (owner) {
        if (this.dryRun) return { kind: "would_merge", userId: owner.id, notes };
        // The objectId first: once it is stored, a rerun resumes this merge instead of starting another.
        const before = unfinished.merging;
        unfinished.merging = true;
        if (!(await this.store.attachIdentity(owner.id, source, { asPrimary: false }))) {
          // Refused (another copy of this record, or a login, got there first): this attempt wrote nothing.
          unfinished.merging = before;
          if (attempt < MAX_ATTEMPTS) continue;
          throw new Error(`could not record LeanCloud objectId ${player.objectId}: changed concurrently ${attempt} times`);
        }
        await this.completeMerge(owner, keys, player, notes);
        // The LeanCloud username and email are not applied to a merged user: a clash found on the way is no news.
        return { kind: "merged", userId: owner.id, notes: notes.filter((note) => !note.endsWith("_taken")) };
      }
      if (this.dryRun) return { kind: "would_import", notes };
      try {
        const user = await this.create(player, keys, source, accountFields, unfinished);
        await this.fillProfile(user, player, notes);
        return { kind: "imported", userId: user.id, notes };
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS) {
          // A key stays claimed while no user can be read behind it: a creation in flight (or one a crash
          // left for the store's recovery). Retryable, like the login's answer; never a second user.
          if (err instanceof IdentityTakenError) throw new AppError("service_unavailable", { message: "A creation of this player is still in flight; retry", cause: err });
          throw err;
        }
        if (err instanceof AccountTakenError && (accountFields.username || accountFields.email)) {
          const taken = await this.takenAccountFields(accountFields);
          // Claimed, but by no user that can be read: a creation in flight or cut short (its recovery
          // frees it). Waited for, so a resumed run keeps the name the uninterrupted one would.
          if (taken.length === 0) throw new AppError("service_unavailable", { message: "The player's username or email is held by a creation in flight; retry", cause: err });
          notes.push(...taken.map((field) => `${field}_taken`));
          // Only what is taken goes: the other field, valid and free, is kept.
          accountFields = Object.fromEntries(Object.entries(accountFields).filter(([field]) => !taken.includes(field as "username" | "email")));
          continue;
        }
        if (!(err instanceof IdentityTakenError)) throw err;
        // A login (or another import) stored one of these keys first: look again, then merge.
      }
    }
  }

  /** Every key the player is found by, per the login's rules, for the platforms this app is on. */
  private keysOf(player: LeanCloudPlayer, notes: string[]): PlatformIdentityKey[] {
    const keys: PlatformIdentityKey[] = [];
    for (const identity of player.identities) {
      const ns = this.namespaces.get(identity.platform);
      if (!ns) {
        notes.push(`platform_not_served:${identity.platform}`);
        continue;
      }
      // The login's rule: the first field of the platform's key order the player has is their key.
      const field = (this.app.keyOrder[identity.platform] ?? ["openid", "unionid"]).find((f) => identity[f]);
      if (!field) continue;
      const found = { key: identity[field]!, field };
      const { primary, anonymous, union } = playerIdentityKeys(ns, found, { unionid: identity.unionid, anonymousOpenid: identity.anonymousOpenid });
      for (const key of [primary, anonymous, union]) {
        if (!key) continue;
        if (!keys.some((k) => k.platform === key.platform && k.platformId === key.platformId)) keys.push(key);
      }
    }
    return keys;
  }

  private async findOwner(keys: PlatformIdentityKey[]): Promise<User | null> {
    for (const key of keys) {
      const user = await this.store.findByIdentity(key);
      if (user) return user;
    }
    return null;
  }

  private async create(player: LeanCloudPlayer, keys: PlatformIdentityKey[], source: PlatformIdentityKey, fields: { username?: string; email?: string }, unfinished: UnfinishedAttempt): Promise<User> {
    const first = keys[0];
    const createdAt = player.createdAt ? new Date(player.createdAt) : new Date();
    const draft = newPlatformUser(first.platform.split("@")[0], first.platformId, this.app.placeholderEmailDomain, createdAt);
    // Kept before the write: if its answer is lost, finding this id later is how the next attempt knows it landed.
    (unfinished.createdIds ??= []).push(draft.id);
    return this.store.createUser({ ...draft, ...fields }, [...keys, source]);
  }

  /** The keys a merged user lacks (each only if nobody holds it), then the profile where ours is empty. */
  private async completeMerge(user: User, keys: PlatformIdentityKey[], player: LeanCloudPlayer, notes: string[]): Promise<void> {
    for (const key of keys) {
      const holder = await this.store.findByIdentity(key);
      if (holder && holder.id !== user.id) notes.push(`identity_held_by_other_user:${key.platform}:${holder.id}`);
      else if (!holder) await this.store.attachIdentity(user.id, key, { asPrimary: false });
    }
    await this.fillProfile(user, player, notes);
  }

  /** The LeanCloud nickname and avatar, where the user has none yet and the API would accept them (its own rules). */
  private async fillProfile(user: User, player: LeanCloudPlayer, notes: string[]): Promise<void> {
    const changes: { nickname?: string; avatar?: string } = {};
    if (player.nickname && user.nickname === null) {
      const nickname = acceptedNickname(player.nickname);
      if (nickname !== undefined) changes.nickname = nickname;
      else notes.push("nickname_refused");
    }
    if (player.avatar && user.avatar === null) {
      if (acceptedAvatar(player.avatar)) changes.avatar = player.avatar;
      else notes.push("avatar_refused");
    }
    if (Object.keys(changes).length === 0) return;
    for (let current: User | null = user, attempt = 0; current && attempt < MAX_ATTEMPTS; attempt++) {
      const updated = await this.store.updateProfile(current.id, changes, current.version);
      if (updated !== "version_conflict") return;
      current = await this.store.findById(user.id);
      if (current?.nickname !== null) delete changes.nickname;
      if (current?.avatar !== null) delete changes.avatar;
      if (Object.keys(changes).length === 0) return;
    }
  }

  private async takenAccountFields(fields: { username?: string; email?: string }): Promise<Array<"username" | "email">> {
    const taken: Array<"username" | "email"> = [];
    if (fields.username && (await this.store.findCredentialsByUsername(fields.username))) taken.push("username");
    if (fields.email && (await this.store.findCredentialsByEmail(fields.email))) taken.push("email");
    return taken;
  }

  /** The LeanCloud username and email where they fit this server's rules (else the placeholders stay). */
  private accountFields(player: LeanCloudPlayer, notes: string[]): { username?: string; email?: string } {
    const fields: { username?: string; email?: string } = {};
    if (player.username) {
      if (USERNAME.test(player.username) && !player.username.toLowerCase().startsWith("mg_")) fields.username = player.username;
      else notes.push("username_not_kept");
    }
    if (player.email) {
      const email = player.email.toLowerCase();
      if (email.length <= 254 && EMAIL.test(email) && !email.endsWith(`@${this.app.placeholderEmailDomain.toLowerCase()}`)) fields.email = email;
      else notes.push("email_not_kept");
    }
    return fields;
  }
}

/**
 * The UserStore over MongoDB, written with mongoose, with the SQL stores' guarantees and no
 * transaction: uniqueness through claim documents (claims.ts), every change as a version claim
 * (user-versions.ts). Runs the same on MongoDB and on FerretDB 1.x, which CI tests it against.
 */
import type { Connection, mongo } from "mongoose";
import {
  AccountTakenError,
  IdentityTakenError,
  type NewUser,
  type ProfileChanges,
  type UserCredentials,
  type UserMute,
  type UserRecord,
  type UserRestriction,
  type UserStore,
} from "../../../core/ports/user-store";
import { USER_STATUS_ACTIVE, USER_STATUS_DISABLED, type PlatformIdentityKey, type User } from "../../../core/user";
import { isFerretdb, releaseClaim, releaseClaims, takeClaim, type ClaimOwners } from "./claims";
import { defineModels, ensureCollection, identityKey, linkKey, newUserDoc, normalizeKey, type IdentityClaim, type KeyClaim, type MongoModels, type UserDoc } from "./mongo-models";
import { RecoverySweep, type SweepReport } from "./recovery-sweep";
import { confirmedHeads, namePartQuery, nicknameQuery, type UserNameQuery } from "./user-name-search";
import { insertOrReadBack, OutcomeUnknownError } from "./unknown-outcome";
import { finishErase, identityClaimsOf } from "./user-erase";
import { exportedFields, storedIdentities } from "./user-records";
import { readNewest, writeNextVersion, type Change } from "./user-versions";

export interface MongoUserStoreOptions {
  /** Clock for updatedAt on changes and for ban ends; tests may pin it. */
  now?: () => Date;
  /** How often the recovery sweep runs (recovery-sweep.ts); 0: only when `sweep()` is called. */
  sweepIntervalMs?: number;
  /** How long a creation waits for another still in flight before a retryable 503 (claims.ts). */
  inFlightWaitMs?: number;
  /** How long a failed creation's answer waits for its claims to be removed (claims.ts releaseClaims). */
  releaseWaitMs?: number;
  /** When a claim without its user is taken over as left by a crash (claims.ts; default 30 s). */
  orphanAfterMs?: number;
}

/** Every 5 minutes: a sweep reads the user collections whole, which FerretDB answers by scanning. */
const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;

export class MongoUserStore implements UserStore {
  private readonly models: MongoModels;
  private readonly now: () => Date;
  private readonly owners: ClaimOwners;
  private readonly sweeper: RecoverySweep;
  /** Erases finished by a lookup that met a marked user (see finishInterruptedErases). */
  private erasesFinishedByReads = 0;

  constructor(
    private readonly connection: Connection,
    private readonly options: MongoUserStoreOptions = {},
  ) {
    this.models = defineModels(connection);
    this.now = options.now ?? (() => new Date());
    this.owners = { readUser: (id) => readNewest(this.models, id), finishErase: (user) => finishErase(this.models, this.owners, user), byIdOnly: true, inFlightWaitMs: options.inFlightWaitMs, releaseWaitMs: options.releaseWaitMs, orphanAfterMs: options.orphanAfterMs };
    this.sweeper = new RecoverySweep(this.models, this.owners);
  }

  /**
   * Collections and their plain indexes (the uniqueness lives in `_id`, which needs no building);
   * learns which server it talks to, and starts the recovery sweep.
   */
  async migrate(): Promise<void> {
    const { users, versions, identities, usernames, emails, links } = this.models;
    for (const model of [users, versions, identities, usernames, emails, links]) await ensureCollection(model);
    // Only FerretDB needs owner checks by a read (claims.ts releaseClaim); MongoDB's filter is atomic.
    this.owners.byIdOnly = await isFerretdb(this.connection.db!);
    this.sweeper.start(this.options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  }

  /** One recovery sweep now (recovery-sweep.ts): finishes erases, removes claims crashes left. */
  sweep(): Promise<SweepReport> {
    return this.sweeper.run();
  }

  async finishInterruptedErases(): Promise<number> {
    const byLookups = this.erasesFinishedByReads;
    this.erasesFinishedByReads = 0;
    return byLookups + (await this.sweep()).erasesFinished;
  }

  async findById(id: string): Promise<User | null> {
    return this.toUser(await this.readActive(id));
  }

  async findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    const claim = await this.models.collections.identities.findOne({ _id: identityKey(identity.platform, identity.platformId) });
    return claim ? this.toUser(await this.readActive(claim.userId)) : null;
  }

  /** The operator's name searches (user-name-search.ts). */
  findByNickname = (nickname: string, limit: number): Promise<User[]> => this.findByName(nicknameQuery(nickname), limit);
  findByNamePart = (part: string, limit: number): Promise<User[]> => this.findByName(namePartQuery(part), limit);
  private findByName = async (query: UserNameQuery, limit: number) => (await confirmedHeads(this.models, (id) => this.readActive(id), query, limit)).map((u) => this.toUser(u)!);

  /**
   * Claims every identity, the username and the email, then writes the user. Until the user's own
   * insert is sent, any failure removes the claims made (no user can exist that needs them; one whose
   * insert's answer was lost goes too, being ours by its owner id). Once it is sent, nothing is
   * undone: a lost answer is a retryable 503, the claims kept for the user that may exist, which
   * the next login finds. A crash part-way leaves claims without a user, taken over after 30 s or
   * removed by the sweep. Removing claims is never refused for lack of time (claims.ts releaseClaims).
   */
  async createUser(input: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
    const user = newUserDoc(input, identities);
    const claimed: { release(): Promise<void> }[] = [];
    const releaseAll = () => releaseClaims(claimed, this.owners.releaseWaitMs);
    const claim = async <T extends IdentityClaim | KeyClaim>(collection: mongo.Collection<T>, doc: T) => {
      // Listed before the insert: a claim whose answer was lost is released as well (if it landed).
      claimed.push({ release: () => releaseClaim(collection, doc._id, doc.userId, this.owners.byIdOnly) });
      if ((await takeClaim(collection, doc, this.owners)) === "taken") return true;
      claimed.pop();
      return false;
    };
    const now = () => new Date();
    try {
      for (const [i, identity] of identities.entries()) {
        const doc: IdentityClaim = { _id: user.identityKeys![i], userId: input.id, ...identity, createdAt: user.createdAt, at: now() };
        if (!(await claim(this.models.collections.identities, doc))) throw new IdentityTakenError(identity);
      }
      if (!(await claim(this.models.collections.usernames, { _id: user.usernameNorm, userId: input.id, at: now() }))) throw new AccountTakenError();
      if (!(await claim(this.models.collections.emails, { _id: user.emailNorm, userId: input.id, at: now() }))) throw new AccountTakenError();
    } catch (err) {
      await releaseAll();
      throw err;
    }
    try {
      // The id is new: a document under it is this user, written by this very insert.
      await insertOrReadBack(this.models.collections.users, user, () => true, `user ${input.id}`);
    } catch (err) {
      // Never sent (no time left, no server): no user needs the claims.
      if (!(err instanceof OutcomeUnknownError)) await releaseAll();
      throw err;
    }
    return this.toUser(user)!;
  }

  async attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null> {
    const current = await this.readActive(userId);
    if (!current) return null;
    const doc: IdentityClaim = { _id: identityKey(identity.platform, identity.platformId), userId, ...identity, createdAt: this.now(), at: new Date() };
    // The link first, so an erase finds the claim by `_id` whatever happens after.
    await this.link(userId, doc._id);
    if ((await takeClaim(this.models.collections.identities, doc, this.owners)) === "held") return null;
    if (!options.asPrimary) return this.toUser(current);
    const updated = await this.write(userId, (u) => ({ ...u, openid: identity.platformId, updatedAt: this.now() }));
    // Deleted meanwhile: the new claim must not outlive its user.
    if (!updated) await releaseClaim(this.models.collections.identities, doc._id, userId, this.owners.byIdOnly);
    return updated;
  }

  /** Records that `key` may be linked to the user: the next free link number, by insert. */
  private async link(userId: string, key: string): Promise<void> {
    for (let n = 1; ; n++) {
      const doc = { _id: linkKey(userId, n), userId, key, at: new Date() };
      const outcome = await insertOrReadBack(this.models.collections.links, doc, (stored) => stored.key === key);
      if (outcome.kind === "inserted") return;
    }
  }

  async listIdentities(userId: string): Promise<PlatformIdentityKey[]> {
    const user = await this.readActive(userId);
    return (user ? await storedIdentities(this.models, user) : []).map(({ platform, platformId }) => ({ platform, platformId }));
  }

  async findCredentialsByUsername(username: string): Promise<UserCredentials | null> {
    return this.credentialsByClaim(await this.models.collections.usernames.findOne({ _id: normalizeKey(username) }));
  }

  async findCredentialsByEmail(email: string): Promise<UserCredentials | null> {
    return this.credentialsByClaim(await this.models.collections.emails.findOne({ _id: normalizeKey(email) }));
  }

  async findCredentialsById(id: string): Promise<UserCredentials | null> {
    return this.credentials(await this.readActive(id));
  }

  async updateProfile(id: string, changes: ProfileChanges, expectedVersion: number): Promise<User | "version_conflict" | null> {
    // undefined leaves a field untouched; null clears it.
    const change: Change = (u) => ({
      ...u,
      nickname: changes.nickname !== undefined ? changes.nickname : u.nickname,
      avatar: changes.avatar !== undefined ? changes.avatar : u.avatar,
      updatedAt: this.now(),
    });
    const outcome = await writeNextVersion(this.models, id, change, { expectedVersion, now: this.now });
    if (outcome.kind === "conflict") return "version_conflict";
    return outcome.kind === "written" ? this.toUser(outcome.user) : null;
  }

  setPassword(id: string, passwordHash: string, at: string): Promise<User | null> {
    return this.write(id, (u) => ({ ...u, passwordHash, passwordSetAt: new Date(at), updatedAt: new Date(at) }));
  }

  setStatus(id: string, status: number): Promise<User | null> {
    return this.write(id, (u) => ({ ...u, status, updatedAt: this.now() }));
  }

  disableUser(id: string, restriction: { reason: string; until: string | null }, at: string): Promise<User | null> {
    return this.write(id, (u) => ({
      ...u,
      status: USER_STATUS_DISABLED,
      disabledReason: restriction.reason,
      disabledUntil: restriction.until === null ? null : new Date(restriction.until),
      updatedAt: new Date(at),
    }));
  }

  enableUser(id: string, at: string): Promise<User | null> {
    return this.write(id, (u) => ({ ...u, status: USER_STATUS_ACTIVE, disabledReason: null, disabledUntil: null, updatedAt: new Date(at) }));
  }

  async findRestriction(id: string): Promise<UserRestriction | null> {
    const user = await this.readActive(id);
    if (!user || this.effectiveStatus(user) === USER_STATUS_ACTIVE) return null;
    return { reason: user.disabledReason, until: user.disabledUntil?.toISOString() ?? null };
  }

  muteUser(id: string, mute: UserMute, at: string): Promise<User | null> {
    return this.write(id, (u) => ({ ...u, muteReason: mute.reason, mutedUntil: new Date(mute.until), updatedAt: new Date(at) }));
  }

  unmuteUser(id: string, at: string): Promise<User | null> {
    return this.write(id, (u) => ({ ...u, muteReason: null, mutedUntil: null, updatedAt: new Date(at) }));
  }

  async findMute(id: string): Promise<UserMute | null> {
    const user = await this.readActive(id);
    if (!user?.mutedUntil || user.mutedUntil.getTime() <= this.now().getTime()) return null;
    return { reason: user.muteReason ?? "", until: user.mutedUntil.toISOString() };
  }

  async exportUser(id: string): Promise<UserRecord | null> {
    const stored = await this.readActive(id);
    return stored ? { user: exportedFields(stored), identities: await storedIdentities(this.models, stored) } : null;
  }

  /**
   * Marks the user as being deleted (it reads as gone from then on, its claims are free), then
   * removes its documents (user-erase.ts). A delete interrupted by a crash or a lost answer is
   * finished by calling it again, by any read of the user, or by the recovery sweep.
   */
  async deleteUser(id: string): Promise<boolean> {
    const user = await readNewest(this.models, id);
    if (!user) return false;
    if (user.deletingAt !== null) {
      await finishErase(this.models, this.owners, user);
      return true;
    }
    const marked = await writeNextVersion(this.models, id, (u) => ({ ...u, deletingAt: u.deletingAt ?? this.now() }), {
      now: this.now,
      includeDeleting: true,
      current: user,
    });
    if (marked.kind !== "written") return false;
    await finishErase(this.models, this.owners, marked.user, true);
    return true;
  }

  async ping(): Promise<void> {
    await this.connection.db!.admin().command({ ping: 1 });
  }

  async close(): Promise<void> {
    this.sweeper.stop();
    await this.connection.close();
  }

  /** The newest version of a user that is not being deleted; one being deleted gets its erase finished. */
  private async readActive(userId: string): Promise<UserDoc | null> {
    const user = await readNewest(this.models, userId);
    if (user && user.deletingAt !== null) {
      await finishErase(this.models, this.owners, user);
      this.erasesFinishedByReads++;
    }
    return user && user.deletingAt === null ? user : null;
  }

  private async write(id: string, change: Change): Promise<User | null> {
    const outcome = await writeNextVersion(this.models, id, change, { now: this.now });
    return outcome.kind === "written" ? this.toUser(outcome.user) : null;
  }

  private async credentialsByClaim(claim: { userId: string } | null): Promise<UserCredentials | null> {
    return claim ? this.credentials(await this.readActive(claim.userId)) : null;
  }

  private credentials(user: UserDoc | null): UserCredentials | null {
    if (!user) return null;
    return { user: this.toUser(user)!, passwordHash: user.passwordHash, passwordSetAt: user.passwordSetAt?.toISOString() ?? null };
  }

  /** A disabled user whose ban end has passed is active again: decided on every read, never stored. */
  private effectiveStatus(user: UserDoc): number {
    if (user.status === USER_STATUS_ACTIVE || user.disabledUntil === null) return user.status;
    return user.disabledUntil.getTime() <= this.now().getTime() ? USER_STATUS_ACTIVE : user.status;
  }

  private toUser(doc: UserDoc | null): User | null {
    if (!doc) return null;
    return {
      id: doc._id,
      username: doc.username,
      email: doc.email,
      nickname: doc.nickname,
      avatar: doc.avatar,
      openid: doc.openid,
      guildId: doc.guildId,
      status: this.effectiveStatus(doc),
      createdAt: doc.createdAt.toISOString(),
      updatedAt: doc.updatedAt.toISOString(),
      version: doc.version,
    };
  }
}

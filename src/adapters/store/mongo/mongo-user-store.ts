/**
 * The UserStore over MongoDB, written with mongoose, with the SQL stores' guarantees and no
 * transaction: uniqueness through claim documents (claims.ts), every change as a version claim
 * (user-versions.ts). Runs the same on MongoDB and on FerretDB 1.x, which CI tests it against.
 */
import type { Connection, Model, mongo } from "mongoose";
import {
  AccountTakenError,
  IdentityTakenError,
  type NewUser,
  type ProfileChanges,
  type StoredIdentity,
  type UserCredentials,
  type UserRecord,
  type UserRestriction,
  type UserStore,
} from "../../../core/ports/user-store";
import { USER_STATUS_ACTIVE, USER_STATUS_DISABLED, type PlatformIdentityKey, type User } from "../../../core/user";
import { releaseClaim, takeClaim } from "./claims";
import { defineModels, identityKey, normalizeKey, type IdentityClaim, type KeyClaim, type MongoModels, type UserDoc } from "./mongo-models";
import { readNewest, writeNextVersion, type Change } from "./user-versions";

export interface MongoUserStoreOptions {
  /** Clock for updatedAt on changes and for ban ends; tests may pin it. */
  now?: () => Date;
}

export class MongoUserStore implements UserStore {
  private readonly models: MongoModels;
  private readonly now: () => Date;

  constructor(
    private readonly connection: Connection,
    options: MongoUserStoreOptions = {},
  ) {
    this.models = defineModels(connection);
    this.now = options.now ?? (() => new Date());
  }

  /** Collections and their plain indexes; the uniqueness lives in `_id`, which needs no building. */
  async migrate(): Promise<void> {
    const { users, versions, identities, usernames, emails } = this.models;
    for (const model of [users, versions, identities, usernames, emails]) await ensureCollection(model);
  }

  async findById(id: string): Promise<User | null> {
    return this.toUser(await this.readActive(id));
  }

  async findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    const claim = await this.models.collections.identities.findOne({ _id: identityKey(identity.platform, identity.platformId) });
    return claim ? this.toUser(await this.readActive(claim.userId)) : null;
  }

  /** Candidates by their head document, each confirmed on its newest version (a head may lag one write). */
  async findByNickname(nickname: string, limit: number): Promise<User[]> {
    const heads = await this.models.collections.users.find({ nickname }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
    const newest = await Promise.all(heads.map((head) => this.readActive(head._id)));
    return newest.filter((u): u is UserDoc => u !== null && u.nickname === nickname).map((u) => this.toUser(u)!);
  }

  /**
   * Claims every identity, the username and the email, then writes the user. A claim held by
   * someone else undoes the claims made so far: nothing is left behind on failure, and a crash
   * part-way leaves only claims without a user, which the next taker removes (claims.ts).
   */
  async createUser(input: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
    const at = new Date(input.createdAt);
    const taken: { release(): Promise<void> }[] = [];
    const claim = async <T extends IdentityClaim | KeyClaim>(collection: mongo.Collection<T>, doc: T) => {
      const outcome = await takeClaim(collection, doc, this.readNewest);
      if (outcome === "taken") taken.push({ release: () => releaseClaim(collection, doc._id, doc.userId) });
      return outcome === "taken";
    };
    try {
      for (const identity of identities) {
        const doc: IdentityClaim = { _id: identityKey(identity.platform, identity.platformId), userId: input.id, ...identity, createdAt: at, at: new Date() };
        if (!(await claim(this.models.collections.identities, doc))) throw new IdentityTakenError(identity);
      }
      const usernameNorm = normalizeKey(input.username);
      const emailNorm = normalizeKey(input.email);
      if (!(await claim(this.models.collections.usernames, { _id: usernameNorm, userId: input.id, at: new Date() }))) throw new AccountTakenError();
      if (!(await claim(this.models.collections.emails, { _id: emailNorm, userId: input.id, at: new Date() }))) throw new AccountTakenError();
      const user: UserDoc = {
        _id: input.id,
        username: input.username,
        usernameNorm,
        email: input.email,
        emailNorm,
        passwordHash: input.passwordHash,
        passwordSetAt: input.passwordSetAt ? new Date(input.passwordSetAt) : null,
        nickname: null,
        avatar: null,
        openid: input.openid,
        guildId: null,
        status: USER_STATUS_ACTIVE,
        disabledReason: null,
        disabledUntil: null,
        createdAt: at,
        updatedAt: at,
        version: 1,
        deletingAt: null,
      };
      await this.models.collections.users.insertOne(user);
      return this.toUser(user)!;
    } catch (err) {
      await Promise.allSettled(taken.map((t) => t.release()));
      throw err;
    }
  }

  async attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null> {
    const current = await this.readActive(userId);
    if (!current) return null;
    const doc: IdentityClaim = { _id: identityKey(identity.platform, identity.platformId), userId, ...identity, createdAt: this.now(), at: new Date() };
    if ((await takeClaim(this.models.collections.identities, doc, this.readNewest)) === "held") return null;
    if (!options.asPrimary) return this.toUser(current);
    const updated = await this.write(userId, (u) => ({ ...u, openid: identity.platformId, updatedAt: this.now() }));
    // Deleted meanwhile: the new claim must not outlive its user.
    if (!updated) await releaseClaim(this.models.collections.identities, doc._id, userId);
    return updated;
  }

  async listIdentities(userId: string): Promise<PlatformIdentityKey[]> {
    return (await this.identitiesWithDates(userId)).map(({ platform, platformId }) => ({ platform, platformId }));
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

  async exportUser(id: string): Promise<UserRecord | null> {
    const stored = await this.readActive(id);
    if (!stored) return null;
    // Every stored field but the hash and the store's own bookkeeping, as the SQL stores export columns.
    const { _id, passwordHash: _hash, usernameNorm: _u, emailNorm: _e, deletingAt: _d, ...fields } = stored;
    const user: Record<string, unknown> = { id: _id };
    for (const [key, value] of Object.entries(fields)) user[key] = value instanceof Date ? value.toISOString() : value;
    return { user, identities: await this.identitiesWithDates(id) };
  }

  /**
   * Marks the user as being deleted (it reads as gone from then on, its claims are free), removes
   * its claims and versions, then the user. Every step can be redone: a delete interrupted by a
   * crash is finished by calling it again; until then its identities can already be taken.
   */
  async deleteUser(id: string): Promise<boolean> {
    const marked = await writeNextVersion(this.models, id, (u) => ({ ...u, deletingAt: u.deletingAt ?? this.now() }), {
      now: this.now,
      includeDeleting: true,
    });
    if (marked.kind !== "written") return false;
    const { identities, usernames, emails, versions, users } = this.models;
    await Promise.all([identities.deleteMany({ userId: id }), usernames.deleteMany({ userId: id }), emails.deleteMany({ userId: id })]);
    await versions.deleteMany({ userId: id });
    await users.deleteOne({ _id: id });
    return true;
  }

  async ping(): Promise<void> {
    await this.connection.db!.admin().command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private readonly readNewest = (userId: string) => readNewest(this.models, userId);

  /** The newest version of a user that is not being deleted. */
  private async readActive(userId: string): Promise<UserDoc | null> {
    const user = await readNewest(this.models, userId);
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

  private async identitiesWithDates(userId: string): Promise<StoredIdentity[]> {
    const claims = await this.models.identities.find({ userId }).lean();
    return claims
      .map((c) => ({ platform: c.platform, platformId: c.platformId, createdAt: c.createdAt.toISOString() }))
      .sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.platform, b.platform) || compare(a.platformId, b.platformId));
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

/** The collection and its plain indexes; tolerant of another process having made them first. */
async function ensureCollection(model: Pick<Model<never>, "createCollection" | "createIndexes">): Promise<void> {
  await model.createCollection().catch((err: { code?: number }) => {
    if (err?.code !== 48) throw err; // NamespaceExists
  });
  await model.createIndexes();
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

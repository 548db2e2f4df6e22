/**
 * An in-memory UserStore for unit tests of the services: the semantics of the port that the session
 * and login services rely on (identity uniqueness, attachIdentity's null on a taken identity, a ban
 * whose end has passed reading as active), without a database. The real stores are held to the same
 * rules by test/integration/user-store.contract.test.ts. Methods no unit test needs throw.
 */
import { AccountTakenError, IdentityTakenError, type NewUser, type UserMute, type UserRestriction, type UserStore } from "../../src/core/ports/user-store";
import { USER_STATUS_ACTIVE, USER_STATUS_DISABLED, type PlatformIdentityKey, type User } from "../../src/core/user";

interface Row {
  user: User;
  restriction: UserRestriction | null;
  mute?: UserMute | null;
}

const identityKey = (identity: PlatformIdentityKey) => `${identity.platform}\u0000${identity.platformId}`;

export class MemoryUserStore implements UserStore {
  private readonly rows = new Map<string, Row>();
  /** identity key → user id, in link order. */
  private readonly identities = new Map<string, { userId: string; identity: PlatformIdentityKey }>();
  /** Calls made, by method name, so tests can tell what the service asked for. */
  readonly calls: string[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  async migrate(): Promise<void> {}

  async findById(id: string): Promise<User | null> {
    const row = this.rows.get(id);
    return row ? this.read(row) : null;
  }

  async findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    this.calls.push("findByIdentity");
    const link = this.identities.get(identityKey(identity));
    return link ? this.findById(link.userId) : null;
  }

  async createUser(draft: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
    this.calls.push("createUser");
    for (const identity of identities) if (this.identities.has(identityKey(identity))) throw new IdentityTakenError(identity);
    for (const row of this.rows.values()) {
      if (row.user.username === draft.username || row.user.email === draft.email) throw new AccountTakenError();
    }
    const user: User = {
      id: draft.id,
      username: draft.username,
      email: draft.email,
      nickname: null,
      avatar: null,
      openid: draft.openid,
      guildId: null,
      status: USER_STATUS_ACTIVE,
      createdAt: draft.createdAt,
      updatedAt: draft.createdAt,
      version: 1,
    };
    this.rows.set(user.id, { user, restriction: null });
    for (const identity of identities) this.identities.set(identityKey(identity), { userId: user.id, identity });
    return { ...user };
  }

  async attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null> {
    this.calls.push("attachIdentity");
    const row = this.rows.get(userId);
    if (!row || this.identities.has(identityKey(identity))) return null;
    this.identities.set(identityKey(identity), { userId, identity });
    if (options.asPrimary) this.change(row, { openid: identity.platformId });
    return this.read(row);
  }

  async listIdentities(userId: string): Promise<PlatformIdentityKey[]> {
    return [...this.identities.values()].filter((link) => link.userId === userId).map((link) => ({ ...link.identity }));
  }

  async setStatus(id: string, status: number): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    row.restriction = status === USER_STATUS_ACTIVE ? null : { reason: null, until: null };
    this.change(row, { status });
    return this.read(row);
  }

  async disableUser(id: string, restriction: { reason: string; until: string | null }, at: string): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    row.restriction = { ...restriction };
    this.change(row, { status: USER_STATUS_DISABLED, updatedAt: at });
    return this.read(row);
  }

  async enableUser(id: string, at: string): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    row.restriction = null;
    this.change(row, { status: USER_STATUS_ACTIVE, updatedAt: at });
    return this.read(row);
  }

  async findRestriction(id: string): Promise<UserRestriction | null> {
    const row = this.rows.get(id);
    if (!row || this.effectiveStatus(row) === USER_STATUS_ACTIVE) return null;
    return row.restriction ?? { reason: null, until: null };
  }

  async muteUser(id: string, mute: UserMute, at: string): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    row.mute = { ...mute };
    this.change(row, { updatedAt: at });
    return this.read(row);
  }

  async unmuteUser(id: string, at: string): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    row.mute = null;
    this.change(row, { updatedAt: at });
    return this.read(row);
  }

  async findMute(id: string): Promise<UserMute | null> {
    this.calls.push("findMute");
    const mute = this.rows.get(id)?.mute;
    return mute && Date.parse(mute.until) > this.now() ? { ...mute } : null;
  }

  async deleteUser(id: string): Promise<boolean> {
    for (const [key, link] of this.identities) if (link.userId === id) this.identities.delete(key);
    return this.rows.delete(id);
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {}

  findCredentialsByUsername(): never {
    return notNeeded("findCredentialsByUsername");
  }
  findByNickname(): never {
    return notNeeded("findByNickname");
  }
  findByNamePart(): never {
    return notNeeded("findByNamePart");
  }

  findCredentialsByEmail(): never {
    return notNeeded("findCredentialsByEmail");
  }
  findCredentialsById(): never {
    return notNeeded("findCredentialsById");
  }
  updateProfile(): never {
    return notNeeded("updateProfile");
  }
  setPassword(): never {
    return notNeeded("setPassword");
  }
  exportUser(): never {
    return notNeeded("exportUser");
  }

  private change(row: Row, changes: Partial<User>): void {
    row.user = { ...row.user, updatedAt: new Date(this.now()).toISOString(), ...changes, version: row.user.version + 1 };
  }

  /** Like the real stores: a ban whose end has passed reads as active, decided on every read. */
  private effectiveStatus(row: Row): number {
    const until = row.restriction?.until;
    if (row.user.status === USER_STATUS_ACTIVE || !until) return row.user.status;
    return Date.parse(until) <= this.now() ? USER_STATUS_ACTIVE : row.user.status;
  }

  private read(row: Row): User {
    return { ...row.user, status: this.effectiveStatus(row) };
  }
}

function notNeeded(method: string): never {
  throw new Error(`MemoryUserStore.${method} is not implemented: no unit test needs it`);
}

/**
 * The UserStore over Kysely: one implementation for SQLite and PostgreSQL. The few places where
 * the dialects differ are apart: error shapes in unique-keys.ts, timestamp values in user-tables.ts,
 * PostgreSQL's one-statement creation in user-statements.ts.
 */
import { sql, type CompiledQuery, type Kysely, type Transaction } from "kysely";
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
import { migrateToLatest, type SqlDialect } from "./migrations";
import { PostgresUserBatches } from "./postgres-user-batches";
import { createUserInOneStatement, insertNewUser } from "./new-user-writes";
import type { SqliteGroupCommit } from "./sqlite-group-commit";
import { compileUserStatements, type UserStatements } from "./user-statements";
import { exportUserRow, toIso, USER_COLUMNS, type Database, type UserRow } from "./user-tables";

export type { Database } from "./user-tables";

/** The columns the account and status writes change. */
type VersionedFields = Partial<{
  password_hash: string;
  password_set_at: string;
  status: number;
  disabled_reason: string | null;
  disabled_until: string | null;
  mute_reason: string | null;
  muted_until: string | null;
}>;

/** Thrown inside a transaction to roll it back when the outcome is "nothing happened", not an error. */
class Rollback extends Error {}

export interface KyselyUserStoreOptions {
  /** Clock for updated_at on changes; tests may pin it. */
  now?: () => Date;
}

export class KyselyUserStore implements UserStore {
  private readonly now: () => Date;
  private readonly statements: UserStatements;
  /** PostgreSQL: the hot reads and creations of one event-loop turn go as one statement. */
  private readonly batches?: PostgresUserBatches;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    options: KyselyUserStoreOptions = {},
    /** SQLite: new users are written through this, in groups that share one commit. */
    private readonly sqliteWrites?: SqliteGroupCommit,
  ) {
    this.now = options.now ?? (() => new Date());
    this.statements = compileUserStatements(db, dialect);
    const createOne = this.statements.createUserStatement;
    if (dialect === "postgres" && createOne) {
      this.batches = new PostgresUserBatches(db, {
        findByIdentity: (identity) => this.findOneByIdentity(identity),
        findById: (id) => this.findOneById(id),
        createUser: async (user, identities) => this.toUser(await createUserInOneStatement(db, createOne, user, identities, (identity) => this.findByIdentity(identity))),
        toUser: (row) => this.toUser(row),
      });
    }
  }

  /** Runs a precompiled query with new parameters, in the order its placeholders appear. */
  private async first(query: CompiledQuery<UserRow>, parameters: unknown[]): Promise<User | null> {
    const limit = query.parameters.slice(parameters.length);
    const { rows } = await this.db.executeQuery<UserRow>({ ...query, parameters: [...parameters, ...limit] });
    return rows[0] ? this.toUser(rows[0]) : null;
  }

  migrate(): Promise<void> {
    return migrateToLatest(this.db, this.dialect);
  }

  findById(id: string): Promise<User | null> {
    return this.batches ? this.batches.byId.add(id) : this.findOneById(id);
  }

  private findOneById(id: string): Promise<User | null> {
    return this.first(this.statements.byIdQuery, [id]);
  }

  findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    return this.batches ? this.batches.byIdentity.add(identity) : this.findOneByIdentity(identity);
  }

  private findOneByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    return this.first(this.statements.byIdentityQuery, [identity.platform, identity.platformId]);
  }

  async createUser(user: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
    if (this.batches) return this.batches.creations.add({ user, identities });
    if (!this.sqliteWrites) throw new Error("a SQLite user store is opened with its group commit (create-user-store.ts)");
    const { insertUserQuery, insertIdentityQuery } = this.statements;
    return this.toUser(await this.sqliteWrites.write((run) => insertNewUser(run, { insertUserQuery, insertIdentityQuery }, user, identities)));
  }

  /** False when the identity belongs to someone already. */
  private async insertIdentity(trx: Transaction<Database>, userId: string, identity: PlatformIdentityKey, at: string): Promise<boolean> {
    const values = { platform: identity.platform, platform_id: identity.platformId, user_id: userId, created_at: at };
    const { rows } = await trx.executeQuery(this.statements.insertIdentityQuery.with(values));
    return rows.length > 0;
  }

  async findByNickname(nickname: string, limit: number): Promise<User[]> {
    const rows = await this.db.selectFrom("users").select(USER_COLUMNS).where("users.nickname", "=", nickname).orderBy("users.created_at").orderBy("users.id").limit(limit).execute();
    return rows.map((row) => this.toUser(row));
  }

  async findByNamePart(part: string, limit: number): Promise<User[]> {
    // LIKE with its wildcards escaped; lower() on both sides, as PostgreSQL's LIKE minds letter case.
    const pattern = `%${part.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db
      .selectFrom("users")
      .select(USER_COLUMNS)
      .where((eb) => eb.or([sql<boolean>`lower(users.nickname) like ${pattern} escape '\\'`, sql<boolean>`lower(users.username) like ${pattern} escape '\\'`]))
      .orderBy("users.created_at")
      .orderBy("users.id")
      .limit(limit)
      .execute();
    return rows.map((row) => this.toUser(row));
  }

  async attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null> {
    const at = this.now().toISOString();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const current = await trx.selectFrom("users").select(USER_COLUMNS).where("users.id", "=", userId).executeTakeFirst();
        if (!current) throw new Rollback();
        if (!(await this.insertIdentity(trx, userId, identity, at))) throw new Rollback();
        if (!options.asPrimary) return this.toUser(current);
        const updated = await trx
          .updateTable("users")
          .set((eb) => ({ openid: identity.platformId, version: eb("version", "+", 1), updated_at: at }))
          .where("id", "=", userId)
          .returning(USER_COLUMNS)
          .executeTakeFirstOrThrow();
        return this.toUser(updated);
      });
    } catch (err) {
      if (err instanceof Rollback) return null;
      throw err;
    }
  }

  async listIdentities(userId: string): Promise<PlatformIdentityKey[]> {
    const rows = await this.db
      .selectFrom("user_identities")
      .select(["platform", "platform_id"])
      .where("user_id", "=", userId)
      .orderBy("created_at")
      .orderBy("platform")
      .orderBy("platform_id")
      .execute();
    return rows.map((r) => ({ platform: r.platform, platformId: r.platform_id }));
  }

  findCredentialsByUsername(username: string): Promise<UserCredentials | null> {
    return this.findCredentials("username", username);
  }

  findCredentialsByEmail(email: string): Promise<UserCredentials | null> {
    return this.findCredentials("email", email);
  }

  findCredentialsById(id: string): Promise<UserCredentials | null> {
    return this.findCredentials("id", id);
  }

  async updateProfile(id: string, changes: ProfileChanges, expectedVersion: number): Promise<User | "version_conflict" | null> {
    // undefined leaves a column untouched; null clears it.
    const fields: { nickname?: string | null; avatar?: string | null } = {};
    if (changes.nickname !== undefined) fields.nickname = changes.nickname;
    if (changes.avatar !== undefined) fields.avatar = changes.avatar;
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({ ...fields, version: eb("version", "+", 1), updated_at: this.now().toISOString() }))
      .where("id", "=", id)
      .where("version", "=", expectedVersion)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    if (row) return this.toUser(row);
    const exists = await this.db.selectFrom("users").select("id").where("id", "=", id).executeTakeFirst();
    return exists ? "version_conflict" : null;
  }

  setPassword(id: string, passwordHash: string, at: string): Promise<User | null> {
    return this.writeNextVersion(id, { password_hash: passwordHash, password_set_at: at }, at);
  }

  setStatus(id: string, status: number): Promise<User | null> {
    return this.writeNextVersion(id, { status }, this.now().toISOString());
  }

  disableUser(id: string, restriction: { reason: string; until: string | null }, at: string): Promise<User | null> {
    return this.writeNextVersion(id, { status: USER_STATUS_DISABLED, disabled_reason: restriction.reason, disabled_until: restriction.until }, at);
  }

  enableUser(id: string, at: string): Promise<User | null> {
    return this.writeNextVersion(id, { status: USER_STATUS_ACTIVE, disabled_reason: null, disabled_until: null }, at);
  }

  muteUser(id: string, mute: UserMute, at: string): Promise<User | null> {
    return this.writeNextVersion(id, { mute_reason: mute.reason, muted_until: mute.until }, at);
  }

  unmuteUser(id: string, at: string): Promise<User | null> {
    return this.writeNextVersion(id, { mute_reason: null, muted_until: null }, at);
  }

  async findMute(id: string): Promise<UserMute | null> {
    const row = await this.db.selectFrom("users").select(["mute_reason", "muted_until"]).where("id", "=", id).executeTakeFirst();
    if (!row || row.muted_until === null || new Date(row.muted_until).getTime() <= this.now().getTime()) return null;
    return { reason: row.mute_reason ?? "", until: toIso(row.muted_until) };
  }

  /** One statement: the change, the next version and updatedAt together (atomic on both dialects). */
  private async writeNextVersion(id: string, fields: VersionedFields, at: string): Promise<User | null> {
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({ ...fields, version: eb("version", "+", 1), updated_at: at }))
      .where("id", "=", id)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    return row ? this.toUser(row) : null;
  }

  async findRestriction(id: string): Promise<UserRestriction | null> {
    const row = await this.db
      .selectFrom("users")
      .select(["status", "disabled_reason", "disabled_until"])
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row || this.effectiveStatus(row) === USER_STATUS_ACTIVE) return null;
    return { reason: row.disabled_reason, until: row.disabled_until === null ? null : toIso(row.disabled_until) };
  }

  exportUser(id: string): Promise<UserRecord | null> {
    return exportUserRow(this.db, id);
  }

  async deleteUser(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("user_identities").where("user_id", "=", id).execute();
      const deleted = await trx.deleteFrom("users").where("id", "=", id).returning("id").executeTakeFirst();
      return deleted !== undefined;
    });
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** A disabled user whose ban end has passed is active again: decided on every read, never stored. */
  private effectiveStatus(row: { status: number; disabled_until: Date | string | null }): number {
    const status = Number(row.status);
    if (status === USER_STATUS_ACTIVE || row.disabled_until === null) return status;
    return new Date(row.disabled_until).getTime() <= this.now().getTime() ? USER_STATUS_ACTIVE : status;
  }

  private toUser(row: UserRow): User {
    return {
      id: row.id,
      username: row.username,
      email: row.email,
      nickname: row.nickname,
      avatar: row.avatar,
      openid: row.openid,
      guildId: row.guild_id,
      status: this.effectiveStatus(row),
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
      version: Number(row.version),
    };
  }

  /**
   * The only reads that select the password columns. Usernames and emails match ignoring letter
   * case, through the same lower() expression their unique indexes use.
   */
  private async findCredentials(column: "id" | "username" | "email", value: string): Promise<UserCredentials | null> {
    const row = await this.db
      .selectFrom("users")
      .select([...USER_COLUMNS, "users.password_hash", "users.password_set_at"])
      .where((eb) =>
        column === "id" ? eb("users.id", "=", value) : eb(eb.fn("lower", [eb.ref(`users.${column}`)]), "=", eb.fn("lower", [eb.val(value)])),
      )
      .executeTakeFirst();
    if (!row) return null;
    return {
      user: this.toUser(row),
      passwordHash: row.password_hash,
      passwordSetAt: row.password_set_at === null ? null : toIso(row.password_set_at),
    };
  }
}

/**
 * The UserStore over Kysely: one implementation for SQLite and PostgreSQL. The few places where
 * the dialects differ (error shapes, timestamp values) are the helpers at the bottom.
 */
import { sql, type ColumnType, type CompiledQuery, type Kysely, type Selectable, type Transaction } from "kysely";
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
import { caseInsensitiveIndexName, migrateToLatest, type SqlDialect } from "./migrations";
import { precompile, type Precompiled } from "./precompiled-query";
import type { RunQuery, SqliteGroupCommit } from "./sqlite-group-commit";

/** Written as ISO text on both dialects; read back as Date (PG timestamptz) or text (SQLite). */
type Timestamp = ColumnType<Date | string, string, string>;

interface UsersTable {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  password_set_at: Timestamp | null;
  nickname: string | null;
  avatar: string | null;
  openid: string | null;
  guild_id: string | null;
  status: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: ColumnType<number, number | undefined, number>;
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  disabled_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

interface UserIdentitiesTable {
  platform: string;
  platform_id: string;
  user_id: string;
  created_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  user_identities: UserIdentitiesTable;
}

/**
 * Everything a User shows, plus the ban end that decides its status on read. password_hash is
 * deliberately absent: it is never read with a user.
 */
const USER_COLUMNS = [
  "users.id",
  "users.username",
  "users.email",
  "users.nickname",
  "users.avatar",
  "users.openid",
  "users.guild_id",
  "users.status",
  "users.created_at",
  "users.updated_at",
  "users.version",
  "users.disabled_until",
] as const;

type UserRow = Pick<
  Selectable<UsersTable>,
  | "id"
  | "username"
  | "email"
  | "nickname"
  | "avatar"
  | "openid"
  | "guild_id"
  | "status"
  | "created_at"
  | "updated_at"
  | "version"
  | "disabled_until"
>;

/** Thrown inside a transaction to roll it back when the outcome is "nothing happened", not an error. */
class Rollback extends Error {}

export interface KyselyUserStoreOptions {
  /** Clock for updated_at on changes; tests may pin it. */
  now?: () => Date;
}

export class KyselyUserStore implements UserStore {
  private readonly now: () => Date;
  /**
   * The two reads on every authenticated request and every login, built and compiled once:
   * building and compiling a Kysely query costs more than running it on SQLite.
   */
  private readonly byIdQuery: CompiledQuery<UserRow>;
  private readonly byIdentityQuery: CompiledQuery<UserRow>;
  /** A new player's two inserts, compiled once for the same reason: they run on every first login. */
  private readonly insertUserQuery: Precompiled<UserRow, NewUserValues>;
  private readonly insertIdentityQuery: Precompiled<{ platform: string }, IdentityValues>;
  /** PostgreSQL: a new user and its identities in one statement, so one round trip instead of four. */
  private readonly createUserStatement?: Precompiled<UserRow, NewUserValues & NewIdentitiesValues>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    options: KyselyUserStoreOptions = {},
    /** SQLite: new users are written through this, in groups that share one commit. */
    private readonly sqliteWrites?: SqliteGroupCommit,
  ) {
    this.now = options.now ?? (() => new Date());
    this.byIdQuery = db.selectFrom("users").select(USER_COLUMNS).where("users.id", "=", "").limit(1).compile();
    this.byIdentityQuery = db
      .selectFrom("user_identities")
      .innerJoin("users", "users.id", "user_identities.user_id")
      .select(USER_COLUMNS)
      .where("user_identities.platform", "=", "")
      .where("user_identities.platform_id", "=", "")
      .limit(1)
      .compile();
    this.insertUserQuery = precompile(NEW_USER_VALUE_NAMES, (values) =>
      db.insertInto("users").values(values).returning(USER_COLUMNS).compile(),
    );
    this.insertIdentityQuery = precompile(IDENTITY_VALUE_NAMES, (values) =>
      db
        .insertInto("user_identities")
        .values(values)
        // ON CONFLICT waits for a concurrent inserter of the same key to finish, then yields no row.
        .onConflict((oc) => oc.columns(["platform", "platform_id"]).doNothing())
        .returning("platform")
        .compile(),
    );
    if (dialect === "postgres") {
      // Data-modifying CTEs run exactly once and the statement is atomic: a taken identity (a
      // unique violation, after waiting for a concurrent inserter like ON CONFLICT would) leaves
      // no user behind.
      const returned = sql.join(USER_COLUMNS.map((column) => sql.ref(column.slice("users.".length))));
      this.createUserStatement = precompile([...NEW_USER_VALUE_NAMES, ...NEW_IDENTITIES_VALUE_NAMES], (v) =>
        sql<UserRow>`with new_user as (
            insert into users (id, username, email, password_hash, password_set_at, openid, created_at, updated_at)
            values (${v.id}, ${v.username}, ${v.email}, ${v.password_hash}, ${v.password_set_at}, ${v.openid}, ${v.created_at}, ${v.updated_at})
            returning ${returned}
          ), new_identities as (
            insert into user_identities (platform, platform_id, user_id, created_at)
            select given.platform, given.platform_id, ${v.id}, cast(${v.created_at} as timestamptz)
            from unnest(cast(${v.platforms} as text[]), cast(${v.platform_ids} as text[])) as given(platform, platform_id)
          )
          select * from new_user`.compile(db),
      );
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
    return this.first(this.byIdQuery, [id]);
  }

  findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    return this.first(this.byIdentityQuery, [identity.platform, identity.platformId]);
  }

  async createUser(user: NewUser, identities: PlatformIdentityKey[]): Promise<User> {
    if (this.createUserStatement) return this.createUserInOneStatement(this.createUserStatement, user, identities);
    if (!this.sqliteWrites) throw new Error("a SQLite user store is opened with its group commit (create-user-store.ts)");
    return this.sqliteWrites.write((run) => this.insertNewUser(run, user, identities));
  }

  /** SQLite: runs inside a savepoint of a group commit; throwing rolls back this user alone. */
  private insertNewUser(run: RunQuery, user: NewUser, identities: PlatformIdentityKey[]): User {
    let row: UserRow;
    try {
      row = run(this.insertUserQuery.with(newUserValues(user)))[0];
    } catch (err) {
      if (ACCOUNT_KEYS.some((key) => isUniqueViolation(err, key))) throw new AccountTakenError();
      throw err;
    }
    for (const identity of identities) {
      const values = { platform: identity.platform, platform_id: identity.platformId, user_id: user.id, created_at: user.createdAt };
      if (run(this.insertIdentityQuery.with(values)).length === 0) throw new IdentityTakenError(identity);
    }
    return this.toUser(row);
  }

  private async createUserInOneStatement(
    statement: Precompiled<UserRow, NewUserValues & NewIdentitiesValues>,
    user: NewUser,
    identities: PlatformIdentityKey[],
  ): Promise<User> {
    try {
      const { rows } = await this.db.executeQuery(
        statement.with({
          ...newUserValues(user),
          platforms: identities.map((i) => i.platform),
          platform_ids: identities.map((i) => i.platformId),
        }),
      );
      return this.toUser(rows[0]);
    } catch (err) {
      if (ACCOUNT_KEYS.some((key) => isUniqueViolation(err, key))) throw new AccountTakenError();
      if (isUniqueViolation(err, IDENTITY_KEY)) {
        // Which one: asked again rather than parsed out of the error text, which quotes ids as they are.
        for (const identity of identities) if (await this.findByIdentity(identity)) throw new IdentityTakenError(identity);
        throw new IdentityTakenError(identities[0]);
      }
      throw err;
    }
  }

  /** False when the identity belongs to someone already. */
  private async insertIdentity(trx: Transaction<Database>, userId: string, identity: PlatformIdentityKey, at: string): Promise<boolean> {
    const values = { platform: identity.platform, platform_id: identity.platformId, user_id: userId, created_at: at };
    const { rows } = await trx.executeQuery(this.insertIdentityQuery.with(values));
    return rows.length > 0;
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

  async setPassword(id: string, passwordHash: string, at: string): Promise<User | null> {
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({ password_hash: passwordHash, password_set_at: at, version: eb("version", "+", 1), updated_at: at }))
      .where("id", "=", id)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    return row ? this.toUser(row) : null;
  }

  async setStatus(id: string, status: number): Promise<User | null> {
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({ status, version: eb("version", "+", 1), updated_at: this.now().toISOString() }))
      .where("id", "=", id)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    return row ? this.toUser(row) : null;
  }

  async disableUser(id: string, restriction: { reason: string; until: string | null }, at: string): Promise<User | null> {
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({
        status: USER_STATUS_DISABLED,
        disabled_reason: restriction.reason,
        disabled_until: restriction.until,
        version: eb("version", "+", 1),
        updated_at: at,
      }))
      .where("id", "=", id)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
    return row ? this.toUser(row) : null;
  }

  async enableUser(id: string, at: string): Promise<User | null> {
    const row = await this.db
      .updateTable("users")
      .set((eb) => ({
        status: USER_STATUS_ACTIVE,
        disabled_reason: null,
        disabled_until: null,
        version: eb("version", "+", 1),
        updated_at: at,
      }))
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

  /** The identities with when each was linked, for the export. */
  private async identitiesWithDates(userId: string): Promise<StoredIdentity[]> {
    const rows = await this.db
      .selectFrom("user_identities")
      .select(["platform", "platform_id", "created_at"])
      .where("user_id", "=", userId)
      .orderBy("created_at")
      .orderBy("platform")
      .orderBy("platform_id")
      .execute();
    return rows.map((r) => ({ platform: r.platform, platformId: r.platform_id, createdAt: toIso(r.created_at) }));
  }

  async exportUser(id: string): Promise<UserRecord | null> {
    // Every column, so a column added later is exported without touching this method.
    const row = await this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) return null;
    const user: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) {
      if (column === "password_hash") continue;
      user[camelCase(column)] = value instanceof Date ? value.toISOString() : isTimestampColumn(column) && value !== null ? toIso(value as string) : value;
    }
    return { user, identities: await this.identitiesWithDates(id) };
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

/** A new user's columns as the precompiled inserts take them (by column name). */
type NewUserValues = Pick<UsersTable, "id" | "username" | "email" | "password_hash" | "openid"> & {
  password_set_at: string | null;
  created_at: string;
  updated_at: string;
};
const NEW_USER_VALUE_NAMES = ["id", "username", "email", "password_hash", "password_set_at", "openid", "created_at", "updated_at"] as const;
type NewIdentitiesValues = { platforms: string[]; platform_ids: string[] };
const NEW_IDENTITIES_VALUE_NAMES = ["platforms", "platform_ids"] as const;
type IdentityValues = { platform: string; platform_id: string; user_id: string; created_at: string };
const IDENTITY_VALUE_NAMES = ["platform", "platform_id", "user_id", "created_at"] as const;

function newUserValues(user: NewUser): NewUserValues {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    password_hash: user.passwordHash,
    password_set_at: user.passwordSetAt ?? null,
    openid: user.openid,
    created_at: user.createdAt,
    updated_at: user.createdAt,
  };
}



function camelCase(column: string): string {
  return column.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
}

/** SQLite keeps timestamps as text; these columns are normalised to the API's ISO form on export. */
function isTimestampColumn(column: string): boolean {
  return column.endsWith("_at") || column === "disabled_until";
}

/** PG hands back Date, SQLite the ISO text we wrote; both leave as `2026-11-22T07:50:00.000Z`. */
function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

interface UniqueKey {
  /** PG constraint or index name (named in the migrations). */
  constraint: string;
  /** How SQLite names it: "UNIQUE constraint failed: users.username" or "…: index 'users_username_ci_key'". */
  sqliteName: string;
}

/** The exact-match constraints of the first schema and the case-insensitive indexes since 0005. */
const ACCOUNT_KEYS: UniqueKey[] = [
  { constraint: "users_username_key", sqliteName: "users.username" },
  { constraint: "users_email_key", sqliteName: "users.email" },
  { constraint: caseInsensitiveIndexName("username"), sqliteName: `'${caseInsensitiveIndexName("username")}'` },
  { constraint: caseInsensitiveIndexName("email"), sqliteName: `'${caseInsensitiveIndexName("email")}'` },
];

/** The identities' primary key (PostgreSQL's one-statement create reports a taken identity through it). */
const IDENTITY_KEY: UniqueKey = { constraint: "user_identities_pkey", sqliteName: "user_identities.platform" };

function isUniqueViolation(err: unknown, key: UniqueKey): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === "23505") return e.constraint === key.constraint;
  if (e.code === "SQLITE_CONSTRAINT_UNIQUE") return typeof e.message === "string" && e.message.includes(key.sqliteName);
  return false;
}

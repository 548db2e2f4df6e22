/**
 * The user store's hot statements, built and compiled once per store: building and compiling a
 * Kysely query costs more than running it on SQLite.
 */
import { sql, type CompiledQuery, type Kysely } from "kysely";
import type { NewUser } from "../../../core/ports/user-store";
import type { SqlDialect } from "./migrations";
import { precompile, type Precompiled } from "./precompiled-query";
import { USER_COLUMNS, type Database, type UserRow, type UsersTable } from "./user-tables";

export interface UserStatements {
  /** The two reads on every authenticated request and every login. */
  byIdQuery: CompiledQuery<UserRow>;
  byIdentityQuery: CompiledQuery<UserRow>;
  /** A new player's two inserts: they run on every first login. */
  insertUserQuery: Precompiled<UserRow, NewUserValues>;
  insertIdentityQuery: Precompiled<{ platform: string }, IdentityValues>;
  /** PostgreSQL: a new user and its identities in one statement, so one round trip instead of four. */
  createUserStatement?: Precompiled<UserRow, NewUserValues & NewIdentitiesValues>;
}

export function compileUserStatements(db: Kysely<Database>, dialect: SqlDialect): UserStatements {
  const byIdQuery = db.selectFrom("users").select(USER_COLUMNS).where("users.id", "=", "").limit(1).compile();
  const byIdentityQuery = db
    .selectFrom("user_identities")
    .innerJoin("users", "users.id", "user_identities.user_id")
    .select(USER_COLUMNS)
    .where("user_identities.platform", "=", "")
    .where("user_identities.platform_id", "=", "")
    .limit(1)
    .compile();
  const insertUserQuery = precompile(NEW_USER_VALUE_NAMES, (values) =>
    db.insertInto("users").values(values).returning(USER_COLUMNS).compile(),
  );
  const insertIdentityQuery = precompile(IDENTITY_VALUE_NAMES, (values) =>
    db
      .insertInto("user_identities")
      .values(values)
      // ON CONFLICT waits for a concurrent inserter of the same key to finish, then yields no row.
      .onConflict((oc) => oc.columns(["platform", "platform_id"]).doNothing())
      .returning("platform")
      .compile(),
  );
  let createUserStatement: UserStatements["createUserStatement"];
  if (dialect === "postgres") {
    // Data-modifying CTEs run exactly once and the statement is atomic: a taken identity (a
    // unique violation, after waiting for a concurrent inserter like ON CONFLICT would) leaves
    // no user behind.
    const returned = sql.join(USER_COLUMNS.map((column) => sql.ref(column.slice("users.".length))));
    createUserStatement = precompile([...NEW_USER_VALUE_NAMES, ...NEW_IDENTITIES_VALUE_NAMES], (v) =>
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
  return { byIdQuery, byIdentityQuery, insertUserQuery, insertIdentityQuery, createUserStatement };
}

/** A new user's columns as the precompiled inserts take them (by column name). */
export type NewUserValues = Pick<UsersTable, "id" | "username" | "email" | "password_hash" | "openid"> & {
  password_set_at: string | null;
  created_at: string;
  updated_at: string;
};
const NEW_USER_VALUE_NAMES = ["id", "username", "email", "password_hash", "password_set_at", "openid", "created_at", "updated_at"] as const;
export type NewIdentitiesValues = { platforms: string[]; platform_ids: string[] };
const NEW_IDENTITIES_VALUE_NAMES = ["platforms", "platform_ids"] as const;
export type IdentityValues = { platform: string; platform_id: string; user_id: string; created_at: string };
const IDENTITY_VALUE_NAMES = ["platform", "platform_id", "user_id", "created_at"] as const;

export function newUserValues(user: NewUser): NewUserValues {
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

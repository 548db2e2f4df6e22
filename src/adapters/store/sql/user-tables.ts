/**
 * The user store's tables as Kysely sees them, the columns a user is read with, and how column
 * values become the API's (camelCase names, ISO timestamps) on both dialects.
 */
import type { ColumnType, Kysely, Selectable } from "kysely";
import type { UserRecord } from "../../../core/ports/user-store";

/** Written as ISO text on both dialects; read back as Date (PG timestamptz) or text (SQLite). */
export type Timestamp = ColumnType<Date | string, string, string>;

export interface UsersTable {
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
  mute_reason: ColumnType<string | null, string | null | undefined, string | null>;
  muted_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
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
export const USER_COLUMNS = [
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

export type UserRow = Pick<
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

export function camelCase(column: string): string {
  return column.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
}

/** SQLite keeps timestamps as text; these columns are normalised to the API's ISO form on export. */
export function isTimestampColumn(column: string): boolean {
  return column.endsWith("_at") || column === "disabled_until" || column === "muted_until";
}

/** PG hands back Date, SQLite the ISO text we wrote; both leave as `2026-11-22T07:50:00.000Z`. */
export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Everything stored about a user but the password hash; every column, so one added later is exported without a change here. */
export async function exportUserRow(db: Kysely<Database>, id: string): Promise<UserRecord | null> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const user: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column === "password_hash") continue;
    user[camelCase(column)] = value instanceof Date ? value.toISOString() : isTimestampColumn(column) && value !== null ? toIso(value as string) : value;
  }
  const identities = await db
    .selectFrom("user_identities")
    .select(["platform", "platform_id", "created_at"])
    .where("user_id", "=", id)
    .orderBy("created_at")
    .orderBy("platform")
    .orderBy("platform_id")
    .execute();
  return { user, identities: identities.map((r) => ({ platform: r.platform, platformId: r.platform_id, createdAt: toIso(r.created_at) })) };
}

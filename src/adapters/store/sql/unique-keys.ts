/**
 * Which unique key a failed insert hit, on both dialects: PostgreSQL names the constraint, SQLite
 * only says it in the message. The names are the ones the migrations give.
 */
import { caseInsensitiveIndexName } from "./migrations";

interface UniqueKey {
  /** PG constraint or index name (named in the migrations). */
  constraint: string;
  /** How SQLite names it: "UNIQUE constraint failed: users.username" or "…: index 'users_username_ci_key'". */
  sqliteName: string;
}

/** The exact-match constraints of the first schema and the case-insensitive indexes since 0005. */
export const ACCOUNT_KEYS: UniqueKey[] = [
  { constraint: "users_username_key", sqliteName: "users.username" },
  { constraint: "users_email_key", sqliteName: "users.email" },
  { constraint: caseInsensitiveIndexName("username"), sqliteName: `'${caseInsensitiveIndexName("username")}'` },
  { constraint: caseInsensitiveIndexName("email"), sqliteName: `'${caseInsensitiveIndexName("email")}'` },
];

/** The identities' primary key (PostgreSQL's one-statement create reports a taken identity through it). */
export const IDENTITY_KEY: UniqueKey = { constraint: "user_identities_pkey", sqliteName: "user_identities.platform" };

export function isUniqueViolation(err: unknown, key: UniqueKey): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === "23505") return e.constraint === key.constraint;
  if (e.code === "SQLITE_CONSTRAINT_UNIQUE") return typeof e.message === "string" && e.message.includes(key.sqliteName);
  return false;
}

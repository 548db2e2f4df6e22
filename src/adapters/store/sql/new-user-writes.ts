/**
 * A new player's row and identities, written as each dialect does it best: SQLite inside a
 * savepoint of its group commit, PostgreSQL in one statement. Both report a taken username or
 * email as AccountTakenError and a taken identity as IdentityTakenError, which the login retries.
 */
import type { Kysely } from "kysely";
import { AccountTakenError, IdentityTakenError, type NewUser } from "../../../core/ports/user-store";
import type { PlatformIdentityKey } from "../../../core/user";
import type { Precompiled } from "./precompiled-query";
import type { RunQuery } from "./sqlite-group-commit";
import { ACCOUNT_KEYS, IDENTITY_KEY, isUniqueViolation } from "./unique-keys";
import { newUserValues, type IdentityValues, type NewIdentitiesValues, type NewUserValues } from "./user-statements";
import type { Database, UserRow } from "./user-tables";

/** SQLite: runs inside a savepoint of a group commit; throwing rolls back this user alone. */
export function insertNewUser(
  run: RunQuery,
  statements: { insertUserQuery: Precompiled<UserRow, NewUserValues>; insertIdentityQuery: Precompiled<{ platform: string }, IdentityValues> },
  user: NewUser,
  identities: PlatformIdentityKey[],
): UserRow {
  let row: UserRow;
  try {
    row = run(statements.insertUserQuery.with(newUserValues(user)))[0];
  } catch (err) {
    if (ACCOUNT_KEYS.some((key) => isUniqueViolation(err, key))) throw new AccountTakenError();
    throw err;
  }
  for (const identity of identities) {
    const values = { platform: identity.platform, platform_id: identity.platformId, user_id: user.id, created_at: user.createdAt };
    if (run(statements.insertIdentityQuery.with(values)).length === 0) throw new IdentityTakenError(identity);
  }
  return row;
}

/** PostgreSQL: the user and its identities in one statement (user-statements.ts). */
export async function createUserInOneStatement(
  db: Kysely<Database>,
  statement: Precompiled<UserRow, NewUserValues & NewIdentitiesValues>,
  user: NewUser,
  identities: PlatformIdentityKey[],
  findByIdentity: (identity: PlatformIdentityKey) => Promise<unknown>,
): Promise<UserRow> {
  try {
    const { rows } = await db.executeQuery(
      statement.with({
        ...newUserValues(user),
        platforms: identities.map((i) => i.platform),
        platform_ids: identities.map((i) => i.platformId),
      }),
    );
    return rows[0];
  } catch (err) {
    if (ACCOUNT_KEYS.some((key) => isUniqueViolation(err, key))) throw new AccountTakenError();
    if (isUniqueViolation(err, IDENTITY_KEY)) {
      // Which one: asked again rather than parsed out of the error text, which quotes ids as they are.
      for (const identity of identities) if (await findByIdentity(identity)) throw new IdentityTakenError(identity);
      throw new IdentityTakenError(identities[0]);
    }
    throw err;
  }
}

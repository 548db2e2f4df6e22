/**
 * PostgreSQL: the user store's hot statements, batched per event-loop turn (turn-batch.ts). The
 * lookups of a login and of an authenticated request, and a new player's creation, are sent as one
 * statement for every call made in the same turn. A batch of one runs the single-row statement, so
 * a quiet server sends exactly what it sent before.
 *
 * Nothing is weakened: each creation is committed by its statement before its caller hears of it,
 * and the unique keys decide races as before. When a batched creation meets a unique violation
 * (a taken identity, username or email, or two creations of the same player in one turn), the whole
 * statement is rolled back and each creation of the batch runs alone, so each gets its own outcome.
 */
import { sql, type Kysely } from "kysely";
import type { NewUser } from "../../../core/ports/user-store";
import type { PlatformIdentityKey, User } from "../../../core/user";
import { precompile } from "./precompiled-query";
import { found, settle, TurnBatch, type Outcome } from "./turn-batch";
import { newUserValues } from "./user-statements";
import { USER_COLUMNS, type Database, type UserRow } from "./user-tables";

/** The store's single-row statements, and how it turns a row into a User. */
export interface SingleUserStatements {
  findByIdentity(identity: PlatformIdentityKey): Promise<User | null>;
  findById(id: string): Promise<User | null>;
  createUser(user: NewUser, identities: PlatformIdentityKey[]): Promise<User>;
  toUser(row: UserRow): User;
}

interface Creation {
  user: NewUser;
  identities: PlatformIdentityKey[];
}

/** PostgreSQL's SQLSTATE for any unique key: which one is for the single statements to tell. */
const UNIQUE_VIOLATION = "23505";

export class PostgresUserBatches {
  readonly byIdentity: TurnBatch<PlatformIdentityKey, User | null>;
  readonly byId: TurnBatch<string, User | null>;
  readonly creations: TurnBatch<Creation, User>;

  constructor(db: Kysely<Database>, single: SingleUserStatements) {
    const columns = sql.join(USER_COLUMNS.map((column) => sql.ref(column)));
    const returned = sql.join(USER_COLUMNS.map((column) => sql.ref(column.slice("users.".length))));
    const identityLookup = precompile(["platforms", "platform_ids"], (v: { platforms: string[]; platform_ids: string[] }) =>
      sql<UserRow & { ord: string }>`select given.ord, ${columns}
        from unnest(cast(${v.platforms} as text[]), cast(${v.platform_ids} as text[])) with ordinality as given(platform, platform_id, ord)
        join user_identities on user_identities.platform = given.platform and user_identities.platform_id = given.platform_id
        join users on users.id = user_identities.user_id`.compile(db),
    );
    const idLookup = precompile(["ids"], (v: { ids: string[] }) =>
      sql<UserRow>`select ${columns} from users where users.id = any(cast(${v.ids} as text[]))`.compile(db),
    );
    const names = ["ids", "usernames", "emails", "hashes", "set_ats", "openids", "created_ats", "i_platforms", "i_platform_ids", "i_user_ids", "i_created_ats"] as const;
    type CreateValues = Record<(typeof names)[number], (string | null)[]>;
    const createMany = precompile(names, (v: CreateValues) =>
      sql<UserRow>`with new_users as (
          insert into users (id, username, email, password_hash, password_set_at, openid, created_at, updated_at)
          select * from unnest(cast(${v.ids} as text[]), cast(${v.usernames} as text[]), cast(${v.emails} as text[]), cast(${v.hashes} as text[]),
            cast(${v.set_ats} as timestamptz[]), cast(${v.openids} as text[]), cast(${v.created_ats} as timestamptz[]), cast(${v.created_ats} as timestamptz[]))
          returning ${returned}
        ), new_identities as (
          insert into user_identities (platform, platform_id, user_id, created_at)
          select * from unnest(cast(${v.i_platforms} as text[]), cast(${v.i_platform_ids} as text[]), cast(${v.i_user_ids} as text[]), cast(${v.i_created_ats} as timestamptz[]))
        )
        select * from new_users`.compile(db),
    );

    this.byIdentity = new TurnBatch(async (keys) => {
      if (keys.length === 1) return [found(await single.findByIdentity(keys[0]))];
      const { rows } = await db.executeQuery(identityLookup.with({ platforms: keys.map((k) => k.platform), platform_ids: keys.map((k) => k.platformId) }));
      const answers: (User | null)[] = keys.map(() => null);
      for (const row of rows) answers[Number(row.ord) - 1] = single.toUser(row);
      return answers.map(found);
    });

    this.byId = new TurnBatch(async (ids) => {
      if (ids.length === 1) return [found(await single.findById(ids[0]))];
      const { rows } = await db.executeQuery(idLookup.with({ ids }));
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => {
        const row = byId.get(id);
        return found(row ? single.toUser(row) : null);
      });
    });

    this.creations = new TurnBatch(async (batch) => {
      const alone = () => Promise.all(batch.map(({ user, identities }) => settle(single.createUser(user, identities))));
      if (batch.length === 1) return alone();
      const users = batch.map((c) => newUserValues(c.user));
      const identities = batch.flatMap((c) => c.identities.map((identity) => ({ identity, user: c.user })));
      let rows: UserRow[];
      try {
        ({ rows } = await db.executeQuery(
          createMany.with({
            ids: users.map((u) => u.id),
            usernames: users.map((u) => u.username),
            emails: users.map((u) => u.email),
            hashes: users.map((u) => u.password_hash),
            set_ats: users.map((u) => u.password_set_at),
            openids: users.map((u) => u.openid),
            created_ats: users.map((u) => u.created_at),
            i_platforms: identities.map((i) => i.identity.platform),
            i_platform_ids: identities.map((i) => i.identity.platformId),
            i_user_ids: identities.map((i) => i.user.id),
            i_created_ats: identities.map((i) => i.user.createdAt),
          }),
        ));
      } catch (err) {
        // Nothing of the batch was written: each creation finds out alone which key is taken.
        if ((err as { code?: unknown } | null)?.code === UNIQUE_VIOLATION) return alone();
        throw err;
      }
      const byId = new Map(rows.map((row) => [row.id, row]));
      return batch.map(({ user }) => {
        const row = byId.get(user.id);
        return row ? found(single.toUser(row)) : { ok: false, error: new Error(`the batched creation returned no row for ${user.id}`) };
      });
    });
  }
}

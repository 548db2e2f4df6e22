/**
 * The MongoDB store's collections. Every uniqueness rule is a collection of insert-only "claim"
 * documents whose `_id` is the normalized key, so each relies on the `_id` index alone:
 *
 *   users           the user as of its newest written version (the head; `_id` = user id)
 *   user_versions   one claim per change, `_id` = "<userId>:<version>", holding the whole new user
 *   user_identities `_id` = "<platform>:<platformId>"   (the identity belongs to `userId`)
 *   user_usernames  `_id` = lower-cased username
 *   user_emails     `_id` = lower-cased email
 *   user_identity_links  `_id` = "<userId>:<n>": identity n linked after creation (`key`), so an
 *                   erase reaches every identity claim of a user by `_id` (the ones made with the
 *                   user are listed in its `identityKeys`)
 *
 * Why claims rather than unique secondary indexes, transactions or conditional updates: the store
 * must behave the same on MongoDB and on FerretDB 1.x (what CI runs), which has no transactions,
 * reports a duplicate key without naming the index, answers a unique clash caused by an update with
 * code 1, and runs updates as read-modify-write, so a filter on a version decides nothing under
 * concurrency. Only an insert into `_id` is race-free on both. Every filter on the login, link and
 * erase paths is exactly `{ _id }`: the only filter FerretDB's SQLite handler passes to SQL at all,
 * and the one any MongoDB answers from an index. (FerretDB 1.24 still scans for it: its SQL compares
 * `json->'$._id'` while its index is on `json->"_id"`, and its PostgreSQL handler compares with `@>`,
 * which its btree indexes cannot serve; docs/stores.md has the measured cost.)
 *
 * mongoose defines the schemas, builds the indexes and keeps the connection; the per-request reads
 * and inserts go through each model's collection (`Model.collection`), the documents being built
 * fully typed here: mongoose's per-query casting and hydration cost about as much client CPU as the
 * round trip itself (measured: a findOne 1.9 vs 1.2 ms of CPU on the 2-core CI machine).
 */
import { Schema, type Connection, type Model, type mongo } from "mongoose";
import type { NewUser } from "../../../core/ports/user-store";
import { USER_STATUS_ACTIVE, type PlatformIdentityKey } from "../../../core/user";
import { underCallBudget } from "./operation-gate";

/** Everything stored about a user; `usernameNorm` / `emailNorm` name the claims it holds. */
export interface UserDoc {
  _id: string;
  username: string;
  usernameNorm: string;
  email: string;
  emailNorm: string;
  passwordHash: string;
  passwordSetAt: Date | null;
  nickname: string | null;
  avatar: string | null;
  openid: string | null;
  guildId: string | null;
  status: number;
  disabledReason: string | null;
  disabledUntil: Date | null;
  /** An operator's mute of the player's chat; absent on users written before mutes existed. */
  muteReason?: string | null;
  mutedUntil?: Date | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  /** Set by deleteUser's first step: the user reads as gone, its claims are free to take. */
  deletingAt: Date | null;
  /**
   * The identity keys it was created with (later ones are in user_identity_links). Absent on users
   * written before it existed: their erase finds their claims by `userId` instead (a scan).
   */
  identityKeys?: string[];
}

/** Identity `key` was linked to `userId` after its creation, as its `n`th link (`_id` = "<userId>:<n>"). */
export interface IdentityLink {
  _id: string;
  userId: string;
  key: string;
  at: Date;
}

export interface VersionClaim {
  _id: string;
  userId: string;
  version: number;
  user: UserDoc;
  at: Date;
  /** A random id of the write that inserted it (absent on older claims). */
  writer?: string;
}

export interface IdentityClaim {
  _id: string;
  userId: string;
  platform: string;
  platformId: string;
  /** When the identity was linked, as exported (a new user's identities share its creation time). */
  createdAt: Date;
  /** When this claim was inserted, by the server's wall clock: how old an unowned claim is. */
  at: Date;
}

/** A username or email claim. */
export interface KeyClaim {
  _id: string;
  userId: string;
  /** When this claim was inserted, by the server's wall clock. */
  at: Date;
}

export interface MongoModels {
  users: Model<UserDoc>;
  versions: Model<VersionClaim>;
  identities: Model<IdentityClaim>;
  usernames: Model<KeyClaim>;
  emails: Model<KeyClaim>;
  links: Model<IdentityLink>;
  /** The same collections for the per-request reads and inserts (see above). */
  collections: {
    users: mongo.Collection<UserDoc>;
    versions: mongo.Collection<VersionClaim>;
    identities: mongo.Collection<IdentityClaim>;
    usernames: mongo.Collection<KeyClaim>;
    emails: mongo.Collection<KeyClaim>;
    links: mongo.Collection<IdentityLink>;
  };
}

/**
 * No `select: false`, `collation`, `sparse`, partial or TTL index anywhere: FerretDB answers each
 * with "not implemented" (a hidden field would also add a projection to find-and-modify, which it
 * refuses). No `__v`: the user's own `version` is the one that counts.
 */
const OPTIONS = { versionKey: false, _id: false, strict: true, autoIndex: false, autoCreate: false } as const;

const nullableString = { type: String, default: null };
const nullableDate = { type: Date, default: null };

const userFields = {
  _id: { type: String, required: true },
  username: { type: String, required: true },
  usernameNorm: { type: String, required: true },
  email: { type: String, required: true },
  emailNorm: { type: String, required: true },
  passwordHash: { type: String, required: true },
  passwordSetAt: nullableDate,
  nickname: nullableString,
  avatar: nullableString,
  openid: nullableString,
  guildId: nullableString,
  status: { type: Number, required: true },
  disabledReason: nullableString,
  disabledUntil: nullableDate,
  muteReason: nullableString,
  mutedUntil: nullableDate,
  createdAt: { type: Date, required: true },
  updatedAt: { type: Date, required: true },
  version: { type: Number, required: true },
  deletingAt: nullableDate,
  identityKeys: { type: [String], default: undefined },
};

export function defineModels(connection: Connection): MongoModels {
  const userSchema = new Schema<UserDoc>(userFields, OPTIONS);
  const versionSchema = new Schema<VersionClaim>(
    {
      _id: { type: String, required: true },
      userId: { type: String, required: true },
      version: { type: Number, required: true },
      user: { type: new Schema<UserDoc>(userFields, OPTIONS), required: true },
      at: { type: Date, required: true },
    },
    OPTIONS,
  );
  // Plain indexes, for listing and erasing a user's claims (never for uniqueness).
  versionSchema.index({ userId: 1 });
  const identitySchema = new Schema<IdentityClaim>(
    {
      _id: { type: String, required: true },
      userId: { type: String, required: true },
      platform: { type: String, required: true },
      platformId: { type: String, required: true },
      createdAt: { type: Date, required: true },
      at: { type: Date, required: true },
    },
    OPTIONS,
  );
  identitySchema.index({ userId: 1 });
  const keySchema = () => {
    const schema = new Schema<KeyClaim>(
      { _id: { type: String, required: true }, userId: { type: String, required: true }, at: { type: Date, required: true } },
      OPTIONS,
    );
    schema.index({ userId: 1 });
    return schema;
  };
  const linkSchema = new Schema<IdentityLink>(
    { _id: { type: String, required: true }, userId: { type: String, required: true }, key: { type: String, required: true }, at: { type: Date, required: true } },
    OPTIONS,
  );
  const models = {
    users: connection.model("User", userSchema, "users"),
    versions: connection.model("UserVersion", versionSchema, "user_versions"),
    identities: connection.model("UserIdentity", identitySchema, "user_identities"),
    usernames: connection.model("UserUsername", keySchema(), "user_usernames"),
    emails: connection.model("UserEmail", keySchema(), "user_emails"),
    links: connection.model("UserIdentityLink", linkSchema, "user_identity_links"),
  };
  // mongoose types a model's collection without its document type; these are the same objects.
  // Inside a store call, each operation passes the connection's gate (operation-gate.ts).
  const typed = <T extends { _id: string }>(model: Model<T>) => underCallBudget(model.collection as unknown as mongo.Collection<T>, connection);
  const collections = {
    users: typed(models.users),
    versions: typed(models.versions),
    identities: typed(models.identities),
    usernames: typed(models.usernames),
    emails: typed(models.emails),
    links: typed(models.links),
  };
  return { ...models, collections };
}

/** The collection and its plain indexes; tolerant of another process having made them first. */
export async function ensureCollection(model: Pick<Model<never>, "createCollection" | "createIndexes">): Promise<void> {
  await model.createCollection().catch((err: { code?: number }) => {
    if (err?.code !== 48) throw err; // NamespaceExists
  });
  await model.createIndexes();
}

/** A new user's document, version 1, listing the identity keys it is created with. */
export function newUserDoc(input: NewUser, identities: PlatformIdentityKey[]): UserDoc & { identityKeys: string[] } {
  const at = new Date(input.createdAt);
  return {
    _id: input.id,
    username: input.username,
    usernameNorm: normalizeKey(input.username),
    email: input.email,
    emailNorm: normalizeKey(input.email),
    passwordHash: input.passwordHash,
    passwordSetAt: input.passwordSetAt ? new Date(input.passwordSetAt) : null,
    nickname: null,
    avatar: null,
    openid: input.openid,
    guildId: null,
    status: USER_STATUS_ACTIVE,
    disabledReason: null,
    disabledUntil: null,
    muteReason: null,
    mutedUntil: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
    deletingAt: null,
    identityKeys: identities.map((identity) => identityKey(identity.platform, identity.platformId)),
  };
}

/** Case-insensitive keys as the SQL stores compare them (lower() on both sides). */
export function normalizeKey(value: string): string {
  return value.toLowerCase();
}

/** The separator cannot appear in the platform part, so no two identities share a key. */
export function identityKey(platform: string, platformId: string): string {
  return `${encodeURIComponent(platform)}:${platformId}`;
}

export function versionKey(userId: string, version: number): string {
  return `${userId}:${version}`;
}

export function linkKey(userId: string, n: number): string {
  return `${userId}:${n}`;
}

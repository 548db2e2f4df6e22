/**
 * Erasing a user from the MongoDB store, without a transaction and resumable at every step:
 *
 *   1. the user is marked (`deletingAt`, as a new version: it reads as gone from then on);
 *   2. the head document is made that marked version (so no later step can bring back an older one);
 *   3. its identity, username and email claims are removed, each by `_id` and only while still its own;
 *   4. its version claims and identity links, by `_id`;
 *   5. the head document.
 *
 * Whoever meets a marked user finishes its erase: a read of it (the player's retry, `npm run admin`),
 * a login that wants one of its claims, the recovery sweep (recovery-sweep.ts). Every step reaches
 * documents by `_id` alone, the only filter FerretDB's SQLite handler does not answer by a scan.
 */
import { releaseClaim, type ClaimOwners } from "./claims";
import { linkKey, versionKey, type IdentityClaim, type MongoModels, type UserDoc } from "./mongo-models";

/** Versions removed concurrently per round trip batch. */
const PARALLEL_DELETES = 16;

/** Every identity key the user holds and its link documents; null for a user written before identityKeys. */
export async function identityKeysOf(models: MongoModels, user: UserDoc): Promise<{ keys: string[]; links: string[] } | null> {
  if (!user.identityKeys) return null;
  const keys = [...user.identityKeys];
  const links: string[] = [];
  for (let n = 1; ; n++) {
    const link = await models.collections.links.findOne({ _id: linkKey(user._id, n) });
    if (!link) break;
    links.push(link._id);
    if (!keys.includes(link.key)) keys.push(link.key);
  }
  return { keys, links };
}

/** The user's identity claims that are still its own, read by `_id` (or by `userId` for an old user). */
export async function identityClaimsOf(models: MongoModels, user: UserDoc): Promise<IdentityClaim[]> {
  const held = await identityKeysOf(models, user);
  if (!held) return models.identities.find({ userId: user._id }).lean<IdentityClaim[]>();
  const claims = await Promise.all(held.keys.map((key) => models.collections.identities.findOne({ _id: key })));
  return claims.filter((c): c is IdentityClaim => c !== null && c.userId === user._id);
}

/**
 * Steps 2–5 above for a user already marked; safe to run again, and concurrently. `headWritten`:
 * the caller has just made the head that marked version (each FerretDB lookup costs a scan).
 */
export async function finishErase(models: MongoModels, owners: Pick<ClaimOwners, "byIdOnly">, user: UserDoc, headWritten = false): Promise<void> {
  const id = user._id;
  const { users, identities, usernames, emails, versions, links } = models.collections;
  if (!headWritten) await users.replaceOne({ _id: id }, user);
  const held = await identityKeysOf(models, user);
  if (held) {
    await Promise.all([
      ...held.keys.map((key) => releaseClaim(identities, key, id, owners.byIdOnly)),
      releaseClaim(usernames, user.usernameNorm, id, owners.byIdOnly),
      releaseClaim(emails, user.emailNorm, id, owners.byIdOnly),
    ]);
    // Version 1 is the head's own; a claim may stand one past the version read.
    const deletes = [
      ...range(2, user.version + 1).map((v) => () => versions.deleteOne({ _id: versionKey(id, v) })),
      ...held.links.map((_id) => () => links.deleteOne({ _id })),
    ];
    for (let i = 0; i < deletes.length; i += PARALLEL_DELETES) await Promise.all(deletes.slice(i, i + PARALLEL_DELETES).map((run) => run()));
  } else {
    await Promise.all([identities.deleteMany({ userId: id }), usernames.deleteMany({ userId: id }), emails.deleteMany({ userId: id })]);
    await versions.deleteMany({ userId: id });
  }
  await users.deleteOne({ _id: id });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

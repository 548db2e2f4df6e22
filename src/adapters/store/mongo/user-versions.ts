/**
 * Every change to a user is a move from version v to v+1, decided by inserting the version claim
 * `<userId>:<v+1>`: of concurrent writers that read v, exactly one inserts it (the `_id` index is
 * the only guarantee FerretDB 1.x keeps under concurrency; a `{ version: v }` filter on an update
 * is not, see mongo-models.ts). The winner then copies the new user into the head document.
 *
 * The chain of claims is the truth and the head a shortcut to its end: a reader starts at the
 * head and follows any claim past it. So a writer that stopped between its claim and its head
 * write loses nothing (the next writer builds on the claim and writes the head), and a delayed
 * head write that lands after a newer one only makes readers take one more step.
 */
import type { MongoModels, UserDoc, VersionClaim } from "./mongo-models";
import { versionKey } from "./mongo-models";
import { randomUUID } from "node:crypto";
import { insertOrReadBack } from "./unknown-outcome";

/** Thrown when a write kept losing to concurrent writers of the same user; the caller may retry. */
export class StoreContentionError extends Error {
  readonly code = "STORE_CONTENTION";
  constructor(userId: string) {
    super(`user ${userId} kept changing under this write`);
    this.name = "StoreContentionError";
  }
}

const MAX_WRITE_ATTEMPTS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The user's newest version, including one being deleted; null when there is no such user. */
export async function readNewest(models: MongoModels, userId: string): Promise<UserDoc | null> {
  const { users, versions } = models.collections;
  let user = await users.findOne({ _id: userId });
  if (!user) return null;
  for (;;) {
    const next: VersionClaim | null = await versions.findOne({ _id: versionKey(userId, user.version + 1) });
    if (!next) return user;
    user = next.user;
  }
}

/** What a change makes of the current user; the version and updatedAt are the caller's to set. */
export type Change = (current: UserDoc) => UserDoc;

export type WriteOutcome = { kind: "written"; user: UserDoc } | { kind: "missing" } | { kind: "conflict" };

/**
 * Applies `change` as the next version. With `expectedVersion`, only on that version and only once
 * among concurrent writers ("conflict" otherwise); without, it is re-read and re-applied until it
 * wins. "missing" for a user that does not exist or is being deleted.
 */
export async function writeNextVersion(
  models: MongoModels,
  userId: string,
  change: Change,
  options: { expectedVersion?: number; now: () => Date; includeDeleting?: boolean; current?: UserDoc },
): Promise<WriteOutcome> {
  for (let attempt = 1; ; attempt++) {
    // The caller's fresh read serves the first attempt (on FerretDB every lookup is a scan).
    const current = attempt === 1 && options.current ? options.current : await readNewest(models, userId);
    if (!current || (current.deletingAt !== null && !options.includeDeleting)) return { kind: "missing" };
    if (options.expectedVersion !== undefined && current.version !== options.expectedVersion) return { kind: "conflict" };
    const at = options.now();
    const next: UserDoc = { ...change(current), _id: userId, version: current.version + 1 };
    // `writer` tells this write from a concurrent one when a lost answer makes us read the claim back.
    const claim: VersionClaim = { _id: versionKey(userId, next.version), userId, version: next.version, user: next, at, writer: randomUUID() };
    const outcome = await insertOrReadBack(models.collections.versions, claim, (stored) => stored.writer === claim.writer);
    if (outcome.kind === "held") {
      if (options.expectedVersion !== undefined) return { kind: "conflict" };
      if (attempt >= MAX_WRITE_ATTEMPTS) throw new StoreContentionError(userId);
      // Spread the losers out so they do not all race for the following version too.
      await sleep(Math.random() * Math.min(2 ** attempt, 50));
      continue;
    }
    // A replace, never an upsert: a head removed by deleteUser must stay removed.
    await models.collections.users.replaceOne({ _id: userId }, next);
    return { kind: "written", user: next };
  }
}

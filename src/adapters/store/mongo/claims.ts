/**
 * Taking and releasing claim documents (see mongo-models.ts). A claim is taken by inserting it:
 * the `_id` index lets exactly one of any number of concurrent inserters win, on MongoDB and
 * FerretDB alike. A claim held by a creation still in flight is waited for, as SQL's unique
 * index waits for the inserting transaction; one left by a crashed creation is taken over.
 */
import type { mongo } from "mongoose";
import type { IdentityClaim, KeyClaim, UserDoc } from "./mongo-models";

/** A claim whose user never appeared after this long was left by a crash mid-creation. */
export const ORPHAN_AFTER_MS = 30_000;
/** How long a taker waits for an in-flight creation to show its user (or give the claim up). */
const IN_FLIGHT_WAIT_MS = 2_000;

type Claim = IdentityClaim | KeyClaim;

/**
 * 11000 is the only duplicate-key signal both servers give: FerretDB names neither the index nor
 * the key, so each claim collection has exactly one unique index (`_id`) and the code says which.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; writeErrors?: { code?: unknown }[] } | undefined;
  return e?.code === 11000 || (Array.isArray(e?.writeErrors) && e.writeErrors.some((w) => w.code === 11000));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The user a claim points at, as the store reads it (the newest version); null when missing. */
export type ReadUser = (userId: string) => Promise<UserDoc | null>;

export type ClaimOutcome = "taken" | "held";

/**
 * Inserts the claim. "taken": it is ours now. "held": it belongs to a live user (or to a creation
 * still in flight after waiting for it). A claim whose user is being deleted, or that a crashed
 * creation left behind, is removed and the insert retried.
 */
export async function takeClaim<T extends Claim>(collection: mongo.Collection<T>, claim: T, readUser: ReadUser): Promise<ClaimOutcome> {
  const waitUntil = Date.now() + IN_FLIGHT_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await collection.insertOne(claim as mongo.OptionalUnlessRequiredId<T>);
      return "taken";
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const holder = (await collection.findOne({ _id: claim._id } as mongo.Filter<T>)) as Claim | null;
    if (!holder) continue; // released between our insert and this read: try again
    const user = await readUser(holder.userId);
    if (user && user.deletingAt === null) return "held";
    // The wall clock, not the store's (tests move that one): this is about a crash, not about users.
    const age = Date.now() - holder.at.getTime();
    if (user || age >= ORPHAN_AFTER_MS) {
      await releaseClaim(collection, holder._id, holder.userId);
      continue;
    }
    // No user yet and the claim is young: its creation is in flight. It either shows the user or
    // gives the claim back within milliseconds.
    if (Date.now() >= waitUntil) return "held";
    await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 50));
  }
}

/** Removes the claim only while it still belongs to `userId`: never another user's claim of the same key. */
export async function releaseClaim<T extends Claim>(collection: mongo.Collection<T>, id: string, userId: string): Promise<void> {
  await collection.deleteOne({ _id: id, userId } as mongo.Filter<T>);
}

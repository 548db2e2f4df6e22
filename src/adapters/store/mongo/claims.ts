/**
 * Taking and releasing claim documents (see mongo-models.ts). A claim is taken by inserting it:
 * the `_id` index lets exactly one of any number of concurrent inserters win, on MongoDB and
 * FerretDB alike. A claim held by a creation still in flight is waited for briefly, then answered
 * with a retryable 503; one left by a crashed creation is taken over once ORPHAN_AFTER_MS old, and
 * the recovery sweep (recovery-sweep.ts) removes those nobody asks for again.
 */
import type { mongo } from "mongoose";
import type { IdentityClaim, KeyClaim, UserDoc } from "./mongo-models";
import { performance } from "node:perf_hooks";
import { currentBudget, withoutBudget } from "./call-budget";
import { insertOrReadBack, isDuplicateKey } from "./unknown-outcome";

/** A claim whose user never appeared after this long was left by a crash mid-creation. */
export const ORPHAN_AFTER_MS = 30_000;
/**
 * How long a taker waits for an in-flight creation to show its user before answering a retryable
 * 503, unless told otherwise (the user store waits DATABASE_QUERY_TIMEOUT_MS, the budget of one
 * database step): a creation that is alive shows it within milliseconds, one under heavy load
 * within that budget; one whose answer was lost, or whose process died, may never, and is taken
 * over once ORPHAN_AFTER_MS old (or by the recovery sweep).
 */
export const IN_FLIGHT_WAIT_MS = 800;
/** See releaseClaims. */
export const RELEASE_WAIT_MS = 100;

type Claim = IdentityClaim | KeyClaim;

/** A claim is held by a creation still in flight (or one that stopped less than ORPHAN_AFTER_MS ago). */
export class ClaimInFlightError extends Error {
  /** A code isUnavailable() knows: the request fails with a retryable 503. */
  readonly code = "STORE_CLAIM_IN_FLIGHT";
  constructor(key: string) {
    super(`${key} is being claimed by a creation still in progress; retry`);
    this.name = "ClaimInFlightError";
  }
}

export { isDuplicateKey };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The user a claim points at, as the store reads it (the newest version); null when missing. */
export type ReadUser = (userId: string) => Promise<UserDoc | null>;

export interface ClaimOwners {
  readUser: ReadUser;
  /** Finishes the erase of a user marked as being deleted (which frees its claims). */
  finishErase(user: UserDoc): Promise<void>;
  /** How `releaseClaim` matches the owner (see there). */
  byIdOnly: boolean;
  /** How long to wait for a young claim's creation (default IN_FLIGHT_WAIT_MS). */
  inFlightWaitMs?: number;
  /** How long a failed creation's answer waits for its claims to be removed (default RELEASE_WAIT_MS). */
  releaseWaitMs?: number;
  /** When a claim without its user counts as left by a crash (default ORPHAN_AFTER_MS; MONGODB_ORPHAN_CLAIM_SEC). */
  orphanAfterMs?: number;
}

export type ClaimOutcome = "taken" | "held";

/**
 * Inserts the claim. "taken": it is ours now (also when the insert's answer was lost and the
 * claim read back is ours). "held": it belongs to a live user. A claim whose user is being deleted
 * gets that erase finished, one a crashed creation left (no user after ORPHAN_AFTER_MS) is
 * removed, and the insert is retried. A claim whose creation is still young (in flight, or its
 * answer lost) answers ClaimInFlightError, a retryable 503, within IN_FLIGHT_WAIT_MS (or what its
 * call has left).
 */
export async function takeClaim<T extends Claim>(collection: mongo.Collection<T>, claim: T, owners: ClaimOwners): Promise<ClaimOutcome> {
  // Nor longer than the call's budget (call-budget.ts): waiting on a creation whose reply is late
  // is waiting on the same outage.
  const budget = currentBudget()?.remaining(performance.now()) ?? Infinity;
  const waitUntil = Date.now() + Math.min(owners.inFlightWaitMs ?? IN_FLIGHT_WAIT_MS, Math.max(0, budget));
  // Ours if read back with our owner and our insertion time: an owner's older claim of the same key is not.
  const ours = (stored: T) => stored.userId === claim.userId && stored.at.getTime() === claim.at.getTime();
  for (let attempt = 0; ; attempt++) {
    const roundStarted = Date.now();
    const outcome = await insertOrReadBack(collection, claim, ours);
    if (outcome.kind === "inserted") return "taken";
    const holder = outcome.holder as Claim;
    const user = await owners.readUser(holder.userId);
    if (user && user.deletingAt === null) return "held";
    if (user) {
      await owners.finishErase(user);
      continue;
    }
    // The wall clock, not the store's (tests move that one): this is about a crash, not about users.
    if (Date.now() - holder.at.getTime() >= (owners.orphanAfterMs ?? ORPHAN_AFTER_MS)) {
      await releaseClaim(collection, holder._id, holder.userId, owners.byIdOnly);
      continue;
    }
    // Another round (its pause, then a round's reads) that would end past the deadline would only
    // answer later: on a database taking 100–300 ms a read, a round started just before the deadline
    // answered up to a second after it.
    const pause = Math.min(5 * 2 ** Math.min(attempt, 4), 50);
    const now = Date.now();
    if (now + pause + (now - roundStarted) >= waitUntil) throw new ClaimInFlightError(collection.collectionName);
    await sleep(pause);
  }
}

/**
 * Removes the claim only while it still belongs to `userId`: never another user's claim of the
 * same key. On MongoDB the filter names both. FerretDB's SQLite handler pushes down only a filter
 * that is exactly `{ _id }` (anything more scans the collection) and checks any filter by reading
 * then deleting anyway, so there the owner is checked by a read and the delete is by `_id`: the
 * same guarantee FerretDB gives, without the scan.
 */
export async function releaseClaim<T extends Claim>(collection: mongo.Collection<T>, id: string, userId: string, byIdOnly: boolean): Promise<void> {
  await deleteOwned(collection, id, { userId } as Partial<T>, byIdOnly);
}

/**
 * Removes the claims a failed creation made. Outside its call's budget (call-budget.ts), so that a
 * creation that ran out of time still frees its keys; the caller waits at most `waitMs`, and a slow
 * database finishes the removal in the background under the connection's own timeouts.
 */
export async function releaseClaims(claims: { release(): Promise<void> }[], waitMs = RELEASE_WAIT_MS): Promise<void> {
  const done = withoutBudget(() => Promise.allSettled(claims.map((c) => c.release())));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
}

/** `releaseClaim` for any insert-only document: removes `_id` only while its fields match `owner`. */
export async function deleteOwned<T extends { _id: string }>(collection: mongo.Collection<T>, id: string, owner: Partial<T>, byIdOnly: boolean): Promise<void> {
  if (!byIdOnly) {
    await collection.deleteOne({ _id: id, ...owner } as mongo.Filter<T>);
    return;
  }
  const stored = (await collection.findOne({ _id: id } as mongo.Filter<T>)) as Record<string, unknown> | null;
  if (stored && Object.entries(owner).every(([field, value]) => stored[field] === value)) await collection.deleteOne({ _id: id } as mongo.Filter<T>);
}

/** True on FerretDB, whose SQLite handler answers any filter but `{ _id }` with a scan (see releaseClaim). */
export async function isFerretdb(db: mongo.Db): Promise<boolean> {
  return "ferretdbVersion" in (await db.admin().command({ buildInfo: 1 }));
}

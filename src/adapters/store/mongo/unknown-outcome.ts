/**
 * A write whose answer never came (the reply was late past DATABASE_QUERY_TIMEOUT_MS, the
 * connection dropped after the request left) may have been applied. Treating it as "not written"
 * and undoing what it may have written is how ghosts and duplicates are made, so a MongoDB store
 * resolves such a write instead. The write is answered with `OutcomeUnknownError`, a retryable 503
 * (unavailable-errors.ts), after which the caller undoes nothing it may have written; whoever
 * next inserts or reads that `_id` (the client's retry, the next login, the recovery sweep) finds
 * the document if it landed, and an insert that meets an 11000 reads the holder back to see whose
 * it is. Any store over MongoDB (users, ledgers, economy, leaderboards) can use `insertOrReadBack`
 * for its insert-only documents and `isOutcomeUnknown` to classify a driver error.
 */
import type { mongo } from "mongoose";

/**
 * 11000 is the only duplicate-key signal both servers give: FerretDB names neither the index nor
 * the key, so each claim collection has exactly one unique index (`_id`) and the code says which.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; writeErrors?: { code?: unknown }[] } | undefined;
  return e?.code === 11000 || (Array.isArray(e?.writeErrors) && e.writeErrors.some((w) => w.code === 11000));
}

/** Thrown when a write's outcome stays unknown; nothing it may have written is to be undone. */
export class OutcomeUnknownError extends Error {
  /** A code isUnavailable() knows: the request fails with a retryable 503. */
  readonly code = "STORE_OUTCOME_UNKNOWN";
  constructor(what: string, cause: unknown) {
    super(`the database did not answer whether ${what} was written; retry`, { cause });
    this.name = "OutcomeUnknownError";
  }
}

/** The driver's errors for a request that never left: nothing can have been written. */
const NEVER_SENT = new Set([
  "MongoServerSelectionError",
  "MongooseServerSelectionError",
  "MongoWaitQueueTimeoutError",
  "MongoNotConnectedError",
  "MongoTopologyClosedError",
]);

/**
 * The driver's client-side operation timeout (`timeoutMS`, call-deadline.ts) before the request was
 * written: while choosing a server (its cause a server selection error, or none), waiting for a
 * pooled connection (its cause the wait queue's timeout). Any other (during the write, the read,
 * or the server's own maxTimeMS) leaves the outcome unknown.
 */
const TIMED_OUT_BEFORE_SENDING = /^Timed out (in server selection|during server selection|during connection checkout|before socket write)\b/;

/**
 * True when the error says nothing about whether the server applied the write: anything but an
 * answer from the server itself (which carries a numeric code) or a request that was never sent.
 */
export function isOutcomeUnknown(err: unknown): boolean {
  if (err instanceof OutcomeUnknownError) return true;
  const e = err as { name?: unknown; code?: unknown; errorResponse?: unknown; message?: unknown; cause?: { name?: unknown } } | undefined;
  if (!e || typeof e !== "object") return false;
  if (typeof e.name === "string" && NEVER_SENT.has(e.name)) return false;
  if (e.name === "MongoOperationTimeoutError") {
    const neverSent = (typeof e.cause?.name === "string" && NEVER_SENT.has(e.cause.name)) || (typeof e.message === "string" && TIMED_OUT_BEFORE_SENDING.test(e.message));
    return !neverSent;
  }
  if (e.name === "MongoServerError" || e.name === "MongoBulkWriteError" || e.errorResponse !== undefined) return false;
  return typeof e.name === "string" && e.name.startsWith("Mongo");
}

export type InsertOutcome<T> = { kind: "inserted" } | { kind: "held"; holder: T };

/**
 * Inserts `doc` and says whether it is now stored ("inserted") or its `_id` is held by another
 * document ("held", with that document). `isOurs` tells our document from another's under the same
 * `_id` (same owner, same writer): an 11000 is read back, so a write of ours that did land (an
 * earlier attempt whose answer was lost, a retried request) counts as inserted, never as held.
 * A lost answer throws OutcomeUnknownError at once, within the one query timeout the request has
 * spent: sending it again would only double the wait during an outage, and the next request that
 * needs the `_id` reads it back anyway. A request never sent (nothing written) or refused by the
 * server throws the driver's error.
 */
export async function insertOrReadBack<T extends { _id: string }>(
  collection: mongo.Collection<T>,
  doc: T,
  isOurs: (stored: T) => boolean,
  what = `${collection.collectionName} ${doc._id}`,
): Promise<InsertOutcome<T>> {
  for (;;) {
    try {
      await collection.insertOne(doc as mongo.OptionalUnlessRequiredId<T>);
      return { kind: "inserted" };
    } catch (err) {
      if (!isDuplicateKey(err)) throw isOutcomeUnknown(err) ? new OutcomeUnknownError(what, err) : err;
    }
    const stored = await readBack(collection, doc._id, what);
    // Removed between the insert and the read (a released claim): insert again.
    if (stored) return isOurs(stored) ? { kind: "inserted" } : { kind: "held", holder: stored };
  }
}

/** The document under `_id`, or OutcomeUnknownError when the server cannot say. */
async function readBack<T extends { _id: string }>(collection: mongo.Collection<T>, id: string, what: string): Promise<T | null> {
  try {
    return (await collection.findOne({ _id: id } as mongo.Filter<T>)) as T | null;
  } catch (err) {
    throw new OutcomeUnknownError(what, err);
  }
}

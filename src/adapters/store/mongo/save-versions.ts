/**
 * How the MongoDB save store decides versions without a conditional update (FerretDB 1.x checks an
 * update's filter on a read and writes later, so a version in the filter lets several writers win:
 * ../shared/spec/ferretdb-notes.md). Only inserts into `_id` are race-free there, so:
 *
 *   save_claims     `_id` = "<object>#<version>": the whole object at that version, inserted by the
 *                   one writer that takes the version; never updated except to drop an old value
 *   save_heads      `_id` = "<object>": a copy of the newest version known, for listing and counting;
 *                   a hint that readers and writers roll forward from the claims above it
 *   save_batches    `_id` = batch id: the batch's outcome, inserted once (committed or aborted)
 *
 * A claim without a batch is in force as soon as it is inserted. A batch's claims are in force once
 * its `committed` outcome is inserted, and never if `aborted` is: the batch inserts `committed`
 * after its last claim, and anyone who meets a claim of an undecided batch older than
 * BATCH_GRACE_MS (a writer that died mid-batch) inserts `aborted`; one insert wins, so every reader
 * agrees. Batches that meet each other's undecided claims would wait on one another in a circle,
 * so the older batch (ids sort by start time) calls the younger off and goes on, and a younger one
 * waits for the older to decide ("wound-wait"): of batches racing over the same objects, one wins.
 * A claim of an aborted batch keeps its number (deleting it would let two writers who read
 * the same version both take a number), and the next writer takes the number after it.
 */
import crypto from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Collection } from "mongoose";
import type { SaveReadPermission, SaveRef, SaveWritePermission } from "../../../core/ports/save-store";
import { isDuplicateKey } from "./claims";

/** An undecided batch older than this was left by a writer that stopped: it is called off. */
export const BATCH_GRACE_MS = 10_000;
/**
 * How long a writer waits for a batch that holds its object to decide before it is told to retry
 * (ClaimInFlightError, a retryable 503). Not a conflict: what is in force may be exactly what the
 * writer expects, and an import's create-if-absent would take "there already" for a row that is not.
 */
const PENDING_WAIT_MS = 1_000;
const PENDING_POLL_MS = 20;
/** Claims this many versions behind a new one lose their value (their number stays taken). */
const KEEP_VALUES = 4;

/** One version of an object as stored (value as JSON text: the game's keys are never document keys). */
export interface SaveState {
  app: string;
  collection: string;
  key: string;
  ownerId: string;
  version: number;
  value: string | null;
  deleted: boolean;
  permissionRead: SaveReadPermission;
  permissionWrite: SaveWritePermission;
  createdAt: string;
  updatedAt: string;
}

export interface ClaimDoc extends SaveState {
  _id: string;
  batch: string | null;
  /** When the claim was inserted (ms), for the batch grace. */
  at: number;
}
export interface HeadDoc extends SaveState {
  _id: string;
}
export interface BatchDoc {
  _id: string;
  outcome: "committed" | "aborted";
  at: number;
}

const part = (s: string) => encodeURIComponent(s);
export const objectId = (ref: SaveRef) => [ref.app, ref.ownerId, ref.collection, ref.key].map(part).join("/");
const claimId = (object: string, version: number) => `${object}#${version}`;

/** Where an object stands: its newest version in force (null: never written), and the next free number. */
export interface Resolved {
  state: SaveState | null;
  next: number;
  /** The claim of an undecided batch at `next`: nobody may take a number until that batch is decided. */
  pending: ClaimDoc | null;
}

/** Batch ids sort by start time (see wound-wait in the header). */
export const newBatchId = (now = Date.now()) => `${now.toString(36).padStart(10, "0")}-${crypto.randomUUID()}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function stateOf(doc: SaveState): SaveState {
  const { app, collection, key, ownerId, version, value, deleted, permissionRead, permissionWrite, createdAt, updatedAt } = doc;
  return { app, collection, key, ownerId, version, value, deleted, permissionRead, permissionWrite, createdAt, updatedAt };
}

export class SaveVersions {
  constructor(
    readonly claims: Collection<ClaimDoc>,
    readonly heads: Collection<HeadDoc>,
    readonly batches: Collection<BatchDoc>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The object's newest version in force, read from its head and the claims above it (rolled into the head). */
  async resolve(ref: SaveRef, head?: HeadDoc | null): Promise<Resolved> {
    const id = objectId(ref);
    const start = head === undefined ? await this.heads.findOne({ _id: id }) : head;
    let state: SaveState | null = start ? stateOf(start) : null;
    let next = (start?.version ?? 0) + 1;
    for (;;) {
      const claim = await this.claims.findOne({ _id: claimId(id, next) });
      if (!claim) break;
      const status = await this.statusOf(claim);
      if (status === "pending") {
        if (state !== null && state.version !== start?.version) await this.raiseHead(state);
        return { state, next, pending: claim };
      }
      if (status === "live") state = stateOf(claim);
      next += 1;
    }
    if (state !== null && state.version !== start?.version) await this.raiseHead(state);
    return { state, next, pending: null };
  }

  /**
   * Waits (briefly) until no undecided batch holds the object's next number; a batch calls off the
   * younger batches it meets instead of waiting for them.
   */
  async settled(ref: SaveRef, batch: string | null): Promise<Resolved> {
    // Real time: the injected clock dates claims (the grace), a wait is always a real one.
    const deadline = performance.now() + PENDING_WAIT_MS;
    for (;;) {
      const resolved = await this.resolve(ref);
      const holder = resolved.pending?.batch;
      if (!holder || performance.now() >= deadline) return resolved;
      if (batch !== null && batch < holder) await this.decide(holder, "aborted");
      else await sleep(PENDING_POLL_MS);
    }
  }

  /** Takes version `state.version` of the object; false when another writer took that number first. */
  async claim(state: SaveState, batch: string | null): Promise<boolean> {
    try {
      await this.claims.insertOne({ ...state, _id: claimId(objectId(state), state.version), batch, at: this.now() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Inserts the batch's outcome; answers the outcome in force (another's `aborted` may have come first). */
  async decide(batch: string, outcome: BatchDoc["outcome"]): Promise<BatchDoc["outcome"]> {
    try {
      await this.batches.insertOne({ _id: batch, outcome, at: this.now() });
      return outcome;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const decided = await this.batches.findOne({ _id: batch });
      if (!decided) throw new Error(`batch ${batch}: outcome neither inserted nor found`);
      return decided.outcome;
    }
  }

  /** After a version is in force: the head shows it, and old claims drop their values. */
  async settle(state: SaveState): Promise<void> {
    await this.raiseHead(state);
    const old = state.version - KEEP_VALUES;
    if (old >= 1) {
      // Only the value goes: the claim keeps its number taken (see the header).
      await this.claims.updateOne({ _id: claimId(objectId(state), old) }, { $set: { value: null } }).catch(() => undefined);
    }
  }

  /**
   * The head is a hint the claims correct, so a lost race here costs reads only; the filter keeps a
   * slow writer from putting back an older version (an upsert that meets a newer head is refused
   * with a duplicate `_id`, which is the answer wanted).
   */
  private async raiseHead(state: SaveState): Promise<void> {
    const id = objectId(state);
    await this.heads.replaceOne({ _id: id, version: { $lt: state.version } }, { ...state }, { upsert: true }).catch(() => undefined);
  }

  private async statusOf(claim: ClaimDoc): Promise<"live" | "dead" | "pending"> {
    if (!claim.batch) return "live";
    const decided = await this.batches.findOne({ _id: claim.batch });
    if (decided) return decided.outcome === "committed" ? "live" : "dead";
    if (this.now() - claim.at < BATCH_GRACE_MS) return "pending";
    return (await this.decide(claim.batch, "aborted")) === "committed" ? "live" : "dead";
  }
}

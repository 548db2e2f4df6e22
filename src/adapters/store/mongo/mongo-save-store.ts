/**
 * The SaveStore on MongoDB, race-free on FerretDB 1.x: every new version of an object is decided by
 * inserting its claim (save-versions.ts explains the records). A writer that read version v takes
 * the next number with an insert; of any number of writers that read v, one insert succeeds and the
 * others, reading again, find the object past v and answer a conflict. A batch takes every object's
 * number first and puts them in force together by inserting its outcome.
 */
import type { Collection, Connection } from "mongoose";
import type { SaveChange, SaveObject, SavePage, SaveRef, SaveStore, SaveWriteResult, SaveWritten } from "../../../core/ports/save-store";
import { ClaimInFlightError } from "./claims";
import { newBatchId, objectId, SaveVersions, type BatchDoc, type ClaimDoc, type HeadDoc, type SaveState } from "./save-versions";

/** How often a writer reads again after another took the number it wanted (last-writer-wins only loops). */
const TAKE_ATTEMPTS = 50;

type Taken = { ok: true; state: SaveState; written: SaveWritten } | { ok: false; current: number | null; inFlight?: true };

const liveVersion = (state: SaveState | null) => (state && !state.deleted ? state.version : null);

export class MongoSaveStore implements SaveStore {
  private readonly versions: SaveVersions;
  private readonly heads: Collection<HeadDoc>;
  private readonly claims: Collection<ClaimDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.claims = connection.collection<ClaimDoc>("save_claims");
    this.heads = connection.collection<HeadDoc>("save_heads");
    this.versions = new SaveVersions(this.claims, this.heads, connection.collection<BatchDoc>("save_batches"), now);
  }

  async migrate(): Promise<void> {
    // Plain indexes for listing, counting and erase; every uniqueness is `_id` alone.
    await this.heads.createIndex({ ownerId: 1, app: 1, collection: 1, key: 1 });
    await this.claims.createIndex({ ownerId: 1 });
  }

  async read(ref: SaveRef): Promise<SaveObject | null> {
    const { state } = await this.versions.resolve(ref);
    return state && !state.deleted ? toObject(state) : null;
  }

  async write(changes: SaveChange[]): Promise<SaveWriteResult> {
    const batch = changes.length > 1 ? newBatchId(this.now()) : null;
    const taken: SaveState[] = [];
    const written: SaveWritten[] = [];
    for (const [index, change] of changes.entries()) {
      const outcome = await this.take(change, batch);
      if (!outcome.ok) {
        // The numbers this batch took stay taken but never come into force.
        if (batch && taken.length > 0) await this.versions.decide(batch, "aborted");
        // Held by a batch that has not decided (alive and slow, or dead and not past BATCH_GRACE_MS).
        if (outcome.inFlight) throw new ClaimInFlightError(objectId(change));
        return { ok: false, index, current: outcome.current };
      }
      taken.push(outcome.state);
      written.push(outcome.written);
    }
    if (batch && (await this.versions.decide(batch, "committed")) === "aborted") {
      // Called off by a reader because this writer took longer than the grace: nothing is in force.
      return { ok: false, index: 0, current: liveVersion((await this.versions.resolve(changes[0])).state) };
    }
    for (const state of taken) await this.versions.settle(state);
    return { ok: true, written };
  }

  async list(app: string, ownerId: string, collection: string, options: { limit: number; after?: string; publicOnly?: boolean }): Promise<SavePage> {
    const filter = { app, ownerId, collection, ...(options.after !== undefined ? { key: { $gt: options.after } } : {}) };
    const heads = await this.heads.find(filter).sort({ key: 1 }).limit(options.limit + 1).toArray();
    const page = heads.slice(0, options.limit);
    const states = await this.rollForward(page);
    const objects = states.filter((s) => !s.deleted && (!options.publicOnly || s.permissionRead === "public")).map(toObject);
    // A page may hold fewer objects than asked (deleted ones are skipped); the cursor says more may follow.
    return heads.length > options.limit ? { objects, next: page[page.length - 1].key } : { objects };
  }

  count(app: string, ownerId: string): Promise<number> {
    return this.heads.countDocuments({ app, ownerId, deleted: false });
  }

  async listByOwner(ownerId: string): Promise<SaveObject[]> {
    const heads = await this.heads.find({ ownerId }).toArray();
    const states = await this.rollForward(heads);
    return states
      .filter((s) => !s.deleted)
      .map(toObject)
      .sort((a, b) => (a.app + "\0" + a.collection + "\0" + a.key < b.app + "\0" + b.collection + "\0" + b.key ? -1 : 1));
  }

  async erase(ownerId: string): Promise<void> {
    await this.heads.deleteMany({ ownerId });
    await this.claims.deleteMany({ ownerId });
  }

  close(): Promise<void> {
    return this.onClose();
  }

  /** The heads as the claims above them have it (one query tells which heads are behind). */
  private async rollForward(heads: HeadDoc[]): Promise<SaveState[]> {
    if (heads.length === 0) return [];
    const above = await this.claims.find({ _id: { $in: heads.map((h) => `${h._id}#${h.version + 1}`) } }, { projection: { _id: 1 } }).toArray();
    const behind = new Set(above.map((c) => c._id.slice(0, c._id.lastIndexOf("#"))));
    const out: SaveState[] = [];
    for (const head of heads) {
      if (!behind.has(head._id)) out.push(head);
      else {
        const { state } = await this.versions.resolve(head, head);
        if (state) out.push(state);
      }
    }
    return out;
  }

  private async take(change: SaveChange, batch: string | null): Promise<Taken> {
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      const resolved = await this.versions.settled(change, batch);
      const current = liveVersion(resolved.state);
      if (resolved.pending) return { ok: false, current, inFlight: true };
      const expected = change.expected;
      const refused = expected === "absent" ? current !== null : expected === "any" ? change.kind === "delete" && current === null : current !== expected;
      if (refused) return { ok: false, current };
      const version = resolved.next;
      const ref = { app: change.app, collection: change.collection, key: change.key, ownerId: change.ownerId };
      const previous = resolved.state;
      const state: SaveState =
        change.kind === "put"
          ? {
              ...ref,
              version,
              value: JSON.stringify(change.value),
              deleted: false,
              permissionRead: change.permissionRead,
              permissionWrite: change.permissionWrite,
              createdAt: current === null ? change.at : previous!.createdAt,
              updatedAt: change.at,
            }
          : { ...ref, version, value: null, deleted: true, permissionRead: previous!.permissionRead, permissionWrite: previous!.permissionWrite, createdAt: previous!.createdAt, updatedAt: change.at };
      if (await this.versions.claim(state, batch)) {
        return { ok: true, state, written: { ...ref, version, updatedAt: change.at, created: change.kind === "put" && current === null } };
      }
      // Another writer took the number: read again; unless the last writer wins, that is a conflict.
    }
    throw Object.assign(new Error(`could not write ${objectId(change)}: ${TAKE_ATTEMPTS} concurrent writers got in first`), { code: "STORE_CONTENTION" });
  }
}

function toObject(state: SaveState): SaveObject {
  return {
    app: state.app,
    collection: state.collection,
    key: state.key,
    ownerId: state.ownerId,
    value: JSON.parse(state.value ?? "{}") as Record<string, unknown>,
    version: state.version,
    permissionRead: state.permissionRead,
    permissionWrite: state.permissionWrite,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}

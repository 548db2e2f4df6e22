/**
 * Cloud saves (docs/saves.md): players' game data kept by the server, per app, as objects
 * `(collection, key, owner)` holding a JSON object. Every change is compare-and-set on the object's
 * version: of any number of concurrent writers that read one version, exactly one wins, on every
 * backend and across processes (FerretDB included: see the Mongo adapter, which decides each new
 * version by an insert). A deleted object leaves a tombstone, so versions only ever grow and a
 * stale writer can never land on a version a delete went through. Versions grow but need not grow
 * by one (the MongoDB store skips the numbers of batches that were called off).
 */

export type SaveReadPermission = "owner" | "public";
export type SaveWritePermission = "owner" | "server";

/** Names one object of one app. */
export interface SaveRef {
  app: string;
  collection: string;
  key: string;
  ownerId: string;
}

export interface SaveObject extends SaveRef {
  /** A JSON object (validated by the service before it reaches a store). */
  value: Record<string, unknown>;
  version: number;
  permissionRead: SaveReadPermission;
  permissionWrite: SaveWritePermission;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
}

/**
 * What a change expects of the object: a version (it is that version now), `absent` (it does not
 * exist: create only), or `any` (last writer wins: whatever it is, it becomes this).
 */
export type ExpectedVersion = number | "absent" | "any";

export interface SavePut extends SaveRef {
  kind: "put";
  value: Record<string, unknown>;
  expected: ExpectedVersion;
  permissionRead: SaveReadPermission;
  permissionWrite: SaveWritePermission;
  at: string;
}

export interface SaveDelete extends SaveRef {
  kind: "delete";
  /** `absent` makes no sense for a delete; the service refuses it. */
  expected: number | "any";
  at: string;
}

export type SaveChange = SavePut | SaveDelete;

/** One applied change: the object's new version (a delete's is its tombstone's). */
export interface SaveWritten extends SaveRef {
  version: number;
  updatedAt: string;
  /** A put that made the object exist (201 rather than 200). */
  created: boolean;
}

export type SaveWriteResult =
  | { ok: true; written: SaveWritten[] }
  /** Nothing was written: change `index` did not find what it expected; `current` is the object's version now (null: absent). */
  | { ok: false; index: number; current: number | null };

export interface SavePage {
  objects: SaveObject[];
  /** The last key of this page when more may follow. */
  next?: string;
}

export interface SaveStore {
  /** Brings the schema to the current version; safe on every boot and from several processes. */
  migrate(): Promise<void>;
  /** The live object, or null (never written, or deleted). */
  read(ref: SaveRef): Promise<SaveObject | null>;
  /**
   * Applies every change or none, each compare-and-set on its object's version. At most one
   * change per object in one call (the service refuses repeats).
   */
  write(changes: SaveChange[]): Promise<SaveWriteResult>;
  /** An owner's live objects of a collection in key order, after `after`; `publicOnly` keeps the public ones. */
  list(app: string, ownerId: string, collection: string, options: { limit: number; after?: string; publicOnly?: boolean }): Promise<SavePage>;
  /** How many live objects the owner has in the app (the per-player limit). */
  count(app: string, ownerId: string): Promise<number>;
  /** Every live object the owner has, in every app (export). */
  listByOwner(ownerId: string): Promise<SaveObject[]>;
  /** Removes everything the owner has, tombstones and history included, in every app (erase). */
  erase(ownerId: string): Promise<void>;
  close(): Promise<void>;
}

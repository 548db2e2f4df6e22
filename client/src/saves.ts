/**
 * Cloud saves (`/api/saves`, docs/saves.md) for the logged-in player: `client.saves.get(…)`,
 * `.put(…)` with the version read, `.delete(…)`, `.list(…)`, `.batch(…)`. Every write is
 * compare-and-set: a version someone else moved past rejects with a `SaveConflictError` carrying the
 * version now, which the game resolves (read, merge, write again; `update` does that loop).
 */
import { ApiError } from "./errors";

export type SaveRequest = <T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) => Promise<T>;

export interface SavedObject<V = Record<string, unknown>> {
  collection: string;
  key: string;
  value: V;
  version: number;
  permissionRead: "owner" | "public";
  permissionWrite: "owner" | "server";
  updatedAt: string;
}

/** What a write answers: the object's new version, to send with the next write. */
export interface SaveReceipt {
  collection: string;
  key: string;
  version: number;
  updatedAt: string;
}

export interface SavePutOptions {
  /** The version read; omitted: create only (a conflict if it exists). */
  version?: number;
  /** Last writer wins: replace whatever is there. */
  overwrite?: boolean;
  /** `public`: every player of the game may read it (`get(…, { userId })`). Each write sets it; default `owner`. */
  permissionRead?: "owner" | "public";
}

export type SaveBatchWrite =
  | ({ collection: string; key: string; value: Record<string, unknown> } & SavePutOptions)
  | { collection: string; key: string; delete: true; version?: number; overwrite?: boolean };

/** `version_conflict`: the object is at `current` now (null: it does not exist). Read it again and retry. */
export class SaveConflictError extends ApiError {
  constructor(
    source: ApiError,
    /** The object's version now; null when it does not exist. */
    readonly current: number | null,
    /** In a batch: the write that did not match. */
    readonly index?: number,
  ) {
    super(source.status, source.code, source.message, source.data);
    this.name = "SaveConflictError";
  }
}

const part = encodeURIComponent;

function query(params: Record<string, string | number | boolean | undefined>): string {
  // Mini-game runtimes have no URLSearchParams.
  const text = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${part(key)}=${part(String(value))}`)
    .join("&");
  return text ? `?${text}` : "";
}

async function conflicts<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof ApiError && err.code === "version_conflict") {
      const data = (err.data ?? {}) as { version?: number | null; index?: number };
      throw new SaveConflictError(err, data.version ?? null, data.index);
    }
    throw err;
  }
}

export class Saves {
  constructor(private readonly request: SaveRequest) {}

  /** One object (with its version); rejects with `save_not_found` when absent (or another player's private one). */
  get<V = Record<string, unknown>>(collection: string, key: string, options: { userId?: string } = {}): Promise<SavedObject<V>> {
    return this.request("GET", `/api/saves/${part(collection)}/${part(key)}${query(options)}`);
  }

  /** Creates (no version) or changes (the version read) an object; rejects with SaveConflictError when stale. */
  put(collection: string, key: string, value: Record<string, unknown>, options: SavePutOptions = {}): Promise<SaveReceipt> {
    return conflicts(this.request("PUT", `/api/saves/${part(collection)}/${part(key)}`, { value, ...options }));
  }

  /** Deletes the object at the version read (or whatever is there with `overwrite`). */
  delete(collection: string, key: string, options: { version?: number; overwrite?: boolean }): Promise<SaveReceipt> {
    return conflicts(this.request("DELETE", `/api/saves/${part(collection)}/${part(key)}${query(options)}`));
  }

  /** A page of the player's objects in a collection (another player's public ones with `userId`); pass `cursor` on. */
  list<V = Record<string, unknown>>(collection: string, options: { limit?: number; cursor?: string; userId?: string } = {}): Promise<{ objects: SavedObject<V>[]; cursor?: string }> {
    return this.request("GET", `/api/saves/${part(collection)}${query(options)}`);
  }

  /** Several objects at once; null where one is absent or not visible. */
  async readMany(reads: Array<{ collection: string; key: string; userId?: string }>): Promise<Array<SavedObject | null>> {
    return (await this.request<{ objects: Array<SavedObject | null> }>("POST", "/api/saves/batch", { reads })).objects;
  }

  /** Writes every object or none (the game's state saved atomically); a stale one rejects with its `index`. */
  async batch(writes: SaveBatchWrite[]): Promise<SaveReceipt[]> {
    return (await conflicts(this.request<{ written: SaveReceipt[] }>("POST", "/api/saves/batch", { writes }))).written;
  }

  /**
   * Read, change, write, again while another device or tab got in first: `change` gets the value
   * now (null when absent) and returns the new one. Gives up with the last SaveConflictError.
   */
  async update(collection: string, key: string, change: (current: Record<string, unknown> | null) => Record<string, unknown>, attempts = 5): Promise<SaveReceipt> {
    for (let attempt = 1; ; attempt++) {
      let current: SavedObject | null = null;
      try {
        current = await this.get(collection, key);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === "save_not_found")) throw err;
      }
      try {
        // Each write sets who may read (default owner): the object's own setting is kept.
        return await this.put(collection, key, change(current ? current.value : null), current ? { version: current.version, permissionRead: current.permissionRead } : {});
      } catch (err) {
        if (!(err instanceof SaveConflictError) || attempt >= attempts) throw err;
      }
    }
  }
}

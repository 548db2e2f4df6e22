/**
 * Cloud saves (docs/saves.md): the one way to players' saved objects, for the player routes and for
 * server code (rooms, services) alike. Who may do what:
 *   - a player reads their own objects, and another player's only where it is `public` (else it
 *     does not exist for them: 404, so private keys cannot be probed);
 *   - a player writes their own objects, except in the server's collections (SAVES_SERVER_COLLECTIONS:
 *     403), which only `asServer` writes, for the player who owns them;
 *   - every write is compare-and-set on the version read (409 version_conflict with the version
 *     now), creates only when no version is given, and overwrites only when asked (`overwrite`).
 * A batch writes all of its objects or none.
 */
import { AppError } from "../../core/errors";
import type { ExpectedVersion, SaveChange, SaveObject, SaveReadPermission, SaveStore, SaveWritten } from "../../core/ports/save-store";
import type { SaveSettings } from "../../config/settings/saves";
import { checkCollection, checkKey, checkValue } from "./save-rules";

/** Who writes: a player for themself, or the game server (rooms, services) for any player. */
export type SaveWriter = "player" | "server";

export interface SavePutInput {
  collection: string;
  key: string;
  value: unknown;
  /** The version read; absent: create only. */
  version?: number;
  /** Last writer wins: whatever is there is replaced (the version is then ignored). */
  overwrite?: boolean;
  permissionRead?: SaveReadPermission;
}

export interface SaveDeleteInput {
  collection: string;
  key: string;
  /** The version read; absent only with `overwrite`. */
  version?: number;
  overwrite?: boolean;
}

export type SaveWriteInput = (SavePutInput & { delete?: false }) | (SaveDeleteInput & { delete: true });

export interface SaveReadInput {
  collection: string;
  key: string;
  /** Another player's object (public ones only); absent: the reader's own. */
  userId?: string;
}

/** What a write answers: the object's new version. */
export interface SaveReceipt {
  collection: string;
  key: string;
  version: number;
  updatedAt: string;
  created: boolean;
}

export class SaveService {
  private readonly serverCollections: ReadonlySet<string>;

  constructor(
    private readonly store: SaveStore,
    private readonly settings: SaveSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.serverCollections = new Set(settings.serverCollections);
  }

  /** One object as `readerId` may see it; 404 when absent or another player's private one. */
  async get(app: string, readerId: string, input: SaveReadInput): Promise<SaveObject> {
    const found = await this.find(app, readerId, input);
    if (!found) throw new AppError("save_not_found");
    return found;
  }

  /** A collection of `readerId`'s own objects, or another player's public ones, by key with a cursor. */
  async list(app: string, readerId: string, input: { collection: string; userId?: string; limit: number; cursor?: string }): Promise<{ objects: SaveObject[]; cursor?: string }> {
    const collection = checkCollection(input.collection, this.settings);
    const ownerId = input.userId ?? readerId;
    // The cursor is the last key of the previous page (opaque to games): checked as a key.
    const after = input.cursor === undefined ? undefined : checkKey(input.cursor, this.settings);
    const page = await this.store.list(app, ownerId, collection, { limit: input.limit, after, publicOnly: ownerId !== readerId });
    return page.next === undefined ? { objects: page.objects } : { objects: page.objects, cursor: page.next };
  }

  /** Several objects at once; null where one is absent or not visible to the reader. */
  async getMany(app: string, readerId: string, inputs: SaveReadInput[]): Promise<Array<SaveObject | null>> {
    this.checkBatchSize(inputs.length);
    return Promise.all(inputs.map((input) => this.find(app, readerId, input)));
  }

  /** A player's write of their own object (201/200 with the new version; 409 on a stale version). */
  async put(app: string, ownerId: string, input: SavePutInput, writer: SaveWriter = "player"): Promise<SaveReceipt> {
    return (await this.write(app, ownerId, [{ ...input, delete: false }], writer))[0];
  }

  async delete(app: string, ownerId: string, input: SaveDeleteInput, writer: SaveWriter = "player"): Promise<SaveReceipt> {
    return (await this.write(app, ownerId, [{ ...input, delete: true }], writer))[0];
  }

  /** Writes every object or none (a 409 names the first that did not match, by its index). */
  write(app: string, ownerId: string, inputs: SaveWriteInput[], writer: SaveWriter = "player"): Promise<SaveReceipt[]> {
    return this.writeAll(app, inputs.map((input) => ({ ...input, ownerId })), writer);
  }

  /**
   * Server code's writes for several players at once (a room that ends saves every player's
   * progress in one batch): all or none. A retry after an answer that never came finds its own
   * versions already taken (409) and reads back instead of writing twice.
   */
  writeForPlayers(app: string, inputs: Array<SaveWriteInput & { ownerId: string }>): Promise<SaveReceipt[]> {
    return this.writeAll(app, inputs, "server");
  }

  private async writeAll(app: string, inputs: Array<SaveWriteInput & { ownerId: string }>, writer: SaveWriter): Promise<SaveReceipt[]> {
    this.checkBatchSize(inputs.length);
    const at = new Date(this.now()).toISOString();
    const seen = new Set<string>();
    const changes = inputs.map((input): SaveChange => {
      const collection = checkCollection(input.collection, this.settings);
      const key = checkKey(input.key, this.settings);
      const ownerId = input.ownerId;
      const id = `${ownerId}\0${collection}\0${key}`;
      if (seen.has(id)) throw new AppError("save_batch_invalid", { message: `The batch names ${collection}/${key} twice` });
      seen.add(id);
      const serverOwned = this.serverCollections.has(collection);
      if (serverOwned && writer !== "server") throw new AppError("save_write_forbidden", { data: { collection } });
      const ref = { app, collection, key, ownerId };
      const expected = expectedOf(input);
      if (input.delete) {
        if (expected === "absent") throw versionRequired();
        return { kind: "delete", ...ref, expected, at };
      }
      const value = checkValue(input.value, this.settings);
      const permissionWrite = serverOwned ? "server" : "owner";
      return { kind: "put", ...ref, value, expected, permissionRead: input.permissionRead ?? "owner", permissionWrite, at };
    });
    // An import's batch names many players: their counts are asked together, not one after another.
    await Promise.all([...new Set(changes.map((c) => c.ownerId))].map((ownerId) => this.checkRoom(app, ownerId, changes.filter((c) => c.ownerId === ownerId))));
    const result = await this.store.write(changes);
    if (!result.ok) {
      const failed = changes[result.index];
      if (failed.kind === "delete" && result.current === null && inputs.length === 1) throw new AppError("save_not_found");
      throw new AppError("version_conflict", {
        data: { collection: failed.collection, key: failed.key, version: result.current, ...(inputs.length > 1 ? { index: result.index } : {}) },
      });
    }
    return result.written.map(receipt);
  }

  /** The player's objects in every app (export). */
  listByOwner(ownerId: string): Promise<SaveObject[]> {
    return this.store.listByOwner(ownerId);
  }

  /** Removes every object of the player, in every app (erase). */
  erase(ownerId: string): Promise<void> {
    return this.store.erase(ownerId);
  }

  /** Like get, null where get answers save_not_found (server code that expects absence often). */
  async find(app: string, readerId: string, input: SaveReadInput): Promise<SaveObject | null> {
    const collection = checkCollection(input.collection, this.settings);
    const key = checkKey(input.key, this.settings);
    const ownerId = input.userId ?? readerId;
    const found = await this.store.read({ app, collection, key, ownerId });
    if (!found) return null;
    return ownerId === readerId || found.permissionRead === "public" ? found : null;
  }

  private checkBatchSize(count: number): void {
    if (count === 0 || count > this.settings.maxBatch) {
      throw new AppError("save_batch_invalid", { message: `A batch holds 1 to ${this.settings.maxBatch} objects`, data: { maxBatch: this.settings.maxBatch } });
    }
  }

  /**
   * The per-player limit, counted before the write: writers creating objects at the same moment may
   * pass it by the number of them (a bound for honest clients, not a lock).
   */
  private async checkRoom(app: string, ownerId: string, changes: SaveChange[]): Promise<void> {
    let creating = 0;
    for (const change of changes) {
      if (change.kind !== "put" || typeof change.expected === "number") continue;
      if (change.expected === "absent" || (await this.store.read(change)) === null) creating += 1;
    }
    if (creating === 0) return;
    const max = this.settings.maxObjectsPerPlayer;
    if ((await this.store.count(app, ownerId)) + creating > max) throw new AppError("save_limit_reached", { data: { maxObjects: max } });
  }
}

function expectedOf(input: { version?: number; overwrite?: boolean }): ExpectedVersion {
  if (input.overwrite) return "any";
  if (input.version === undefined) return "absent";
  if (!Number.isSafeInteger(input.version) || input.version < 1) throw new AppError("invalid_request", { message: "version: must be a positive integer" });
  return input.version;
}

function versionRequired(): AppError {
  return new AppError("invalid_request", { message: "version: required to delete (or overwrite: true to delete whatever is there)" });
}

function receipt(w: SaveWritten): SaveReceipt {
  return { collection: w.collection, key: w.key, version: w.version, updatedAt: w.updatedAt, created: w.created };
}

/**
 * A LeanStorage class's rows → cloud saves (`npm run import -- leancloud-class`, docs/saves.md).
 * LeanCloud's data export writes a class as JSON Lines of objects with `objectId`, `createdAt`,
 * `updatedAt`, an `ACL`, and typed values: dates `{"__type": "Date", "iso": …}`, pointers
 * `{"__type": "Pointer", "className": …, "objectId": …}` (docs/sdk/start/dashboard-guide.mdx and the
 * REST guide's data types, in the leancloud/docs repository).
 *
 * Each row becomes the object `<collection>/<objectId>` of the imported user its owner pointer
 * names, public-read when the ACL lets everyone (`*`) read. It is created only if absent, so a
 * second run (or a row already imported before a kill) changes nothing and counts as `already`,
 * and a player's later progress is never overwritten. A row whose owner was not imported is
 * reported (`owner_not_imported`), never lost: run the users import, then this one again.
 */
import { AppError } from "../../core/errors";
import type { SaveReadPermission } from "../../core/ports/save-store";
import type { PlatformIdentityKey, User } from "../../core/user";
import type { SaveService } from "../saves/save-service";
import type { ImportOutcome } from "./player-importer";
import { SaveCreateBatcher } from "./save-create-batcher";

export interface ClassImportTarget {
  /** The pointer field naming each row's owner (`--owner`). */
  ownerField: string;
  /** The imported user a LeanCloud `_User` objectId became, or null. */
  findOwner(objectId: string): Promise<string | null>;
  /** Creates the object if absent: false when it exists (an earlier run). */
  create(ownerId: string, key: string, value: Record<string, unknown>, permissionRead: SaveReadPermission): Promise<boolean>;
}

/**
 * The target on this server's stores: owners found as the users import keyed them, objects created
 * only if absent, the rows in flight together written as one batch (save-create-batcher.ts).
 */
export function classImportTarget(deps: {
  findByIdentity(key: PlatformIdentityKey): Promise<User | null>;
  sourceKey(objectId: string): PlatformIdentityKey;
  saves: Pick<SaveService, "writeForPlayers">;
  appKey: string;
  collection: string;
  ownerField: string;
  /** Rows written in one batch at most (SAVES_MAX_BATCH). */
  maxBatch: number;
}): ClassImportTarget {
  const batcher = new SaveCreateBatcher(deps.saves, deps.appKey, deps.maxBatch);
  return {
    ownerField: deps.ownerField,
    findOwner: async (objectId) => (await deps.findByIdentity(deps.sourceKey(objectId)))?.id ?? null,
    create: (ownerId, key, value, permissionRead) => batcher.create({ ownerId, collection: deps.collection, key, value, permissionRead }),
  };
}

/** Fields of the row that are LeanCloud's bookkeeping, not the game's data. */
const BOOKKEEPING = new Set(["objectId", "ACL"]);
const MAX_DEPTH = 64;

export async function importClassRow(row: Record<string, unknown>, target: ClassImportTarget): Promise<ImportOutcome> {
  const objectId = row.objectId;
  if (typeof objectId !== "string" || objectId.length === 0) return { kind: "skipped", reason: "no_object_id", notes: [] };
  const owner = pointerId(row[target.ownerField]);
  if (!owner) return { kind: "skipped", reason: `no_owner_pointer:${target.ownerField}`, notes: [] };
  const ownerId = await target.findOwner(owner);
  if (!ownerId) return { kind: "skipped", reason: "owner_not_imported", notes: [`owner ${owner}`] };
  const value: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(row)) {
    if (BOOKKEEPING.has(field) || field === target.ownerField) continue;
    value[field] = plain(item, 1);
  }
  try {
    const created = await target.create(ownerId, objectId, value, publicRead(row.ACL) ? "public" : "owner");
    return { kind: created ? "imported" : "already", userId: ownerId, notes: [] };
  } catch (err) {
    // The row breaks a rule of the saves (a name, a size, the player's limit): that row's refusal, not the run's.
    if (err instanceof AppError && err.status < 500) return { kind: "skipped", reason: err.code, notes: [] };
    throw err;
  }
}

function pointerId(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const pointer = value as Record<string, unknown>;
  return pointer.__type === "Pointer" && typeof pointer.objectId === "string" ? pointer.objectId : undefined;
}

/** LeanCloud's typed values as plain JSON: a date its ISO text, a pointer `{className, objectId}`. */
function plain(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1));
  const typed = value as Record<string, unknown>;
  if (typed.__type === "Date" && typeof typed.iso === "string") return typed.iso;
  if (typed.__type === "Pointer" && typeof typed.objectId === "string") return { className: typed.className, objectId: typed.objectId };
  return Object.fromEntries(Object.entries(typed).map(([field, item]) => [field, plain(item, depth + 1)]));
}

function publicRead(acl: unknown): boolean {
  if (typeof acl !== "object" || acl === null) return false;
  const everyone = (acl as Record<string, unknown>)["*"];
  return typeof everyone === "object" && everyone !== null && (everyone as Record<string, unknown>).read === true;
}

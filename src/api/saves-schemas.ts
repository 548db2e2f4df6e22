/**
 * Request and response schemas of the cloud saves routes; also the API description's. Names and
 * values are checked by the saves service (save-rules.ts), each problem with its own code, so the
 * schemas here only shape the request: the value itself is passed through untouched.
 */
import { z } from "zod";

const version = z.int().min(1).max(2_000_000_000).meta({ example: 3 });
const name = (what: string, example: string) => z.string().max(256).meta({ example }).describe(what);
const userId = z.string().min(1).max(64).describe("Another player's id: their `public` objects only");
const permissionRead = z.enum(["owner", "public"]).describe("Who may read it: its owner only (default), or every player of the app");

export const savePathParams = z.object({ collection: name("Letters, digits, _ and - (not first); at most SAVES_MAX_COLLECTION_LENGTH", "progress"), key: name("As a collection name, . and : allowed too; at most SAVES_MAX_KEY_LENGTH", "slot1") });
export const saveCollectionParam = z.object({ collection: savePathParams.shape.collection });

export const saveReadQuery = z.object({ userId: userId.optional() });
export const saveListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Objects per page, 1–100"),
  cursor: z.string().max(256).optional().describe("`data.cursor` of the previous page"),
  userId: userId.optional(),
});
export const saveDeleteQuery = z.object({
  version: z.coerce.number().int().min(1).max(2_000_000_000).optional().describe("The version read; required unless overwrite=true"),
  overwrite: z.enum(["true", "false"]).optional().describe("`true`: delete whatever version is there"),
});

/** The body without its value (checked by the service); `value` is described here for the document. */
export const savePutBody = z.strictObject({
  value: z.record(z.string(), z.unknown()).optional().describe("A JSON object; at most SAVES_MAX_OBJECT_BYTES, SAVES_MAX_DEPTH deep, no $-keys"),
  version: version.optional().describe("The version read; absent: create only (409 if it exists)"),
  overwrite: z.boolean().optional().describe("Last writer wins: replace whatever is there, ignoring `version`"),
  permissionRead: permissionRead.optional(),
});

const batchRead = z.strictObject({ collection: z.string().max(256), key: z.string().max(256), userId: userId.optional() });
const batchWrite = z.strictObject({
  collection: z.string().max(256),
  key: z.string().max(256),
  value: z.record(z.string(), z.unknown()).optional().describe("Required unless `delete`"),
  version: version.optional(),
  overwrite: z.boolean().optional(),
  delete: z.boolean().optional().describe("Delete the object (with `version`, or `overwrite`)"),
  permissionRead: permissionRead.optional(),
});
export const saveBatchBody = z
  .strictObject({
    reads: z.array(batchRead).max(500).optional().describe("Objects to read; null in the answer where one is absent or not visible"),
    writes: z.array(batchWrite).max(500).optional().describe("Objects to write: every one or none"),
  })
  .refine((b) => (b.reads === undefined) !== (b.writes === undefined), "give either reads or writes");

export const saveObjectSchema = z.strictObject({
  collection: z.string(),
  key: z.string(),
  value: z.record(z.string(), z.unknown()),
  version,
  permissionRead: z.enum(["owner", "public"]),
  permissionWrite: z.enum(["owner", "server"]).describe("`server`: only the game server writes it"),
  updatedAt: z.string().describe("ISO 8601 UTC"),
});
export const saveReceiptSchema = z.strictObject({ collection: z.string(), key: z.string(), version, updatedAt: z.string().describe("ISO 8601 UTC") });
export const saveListSchema = z.strictObject({
  objects: z.array(saveObjectSchema),
  cursor: z.string().optional().describe("Present when more may follow: pass it as `cursor`"),
});
export const saveBatchSchema = z.strictObject({
  objects: z.array(saveObjectSchema.nullable()).optional().describe("reads: in the order asked"),
  written: z.array(saveReceiptSchema).optional().describe("writes: in the order given"),
});

/** What a saves failure may carry beside its code. */
export const SAVE_ERROR_FIELDS = {
  collection: z.string().optional().describe("version_conflict, save_write_forbidden: the collection"),
  key: z.string().optional().describe("version_conflict: the key"),
  version: version.nullable().optional().describe("version_conflict: the object's version now (null: it does not exist)"),
  index: z.int().min(0).max(500).optional().describe("version_conflict in a batch: the write that did not match"),
  field: z.string().optional().describe("save_name_invalid: collection or key; save_key_reserved: the field name"),
  maxDepth: z.int().min(1).max(128).optional(),
  bytes: z.int().min(0).max(2_000_000_000).optional().describe("save_too_large: the value's size"),
  maxBytes: z.int().min(1).max(2_000_000_000).optional(),
  maxObjects: z.int().min(1).max(1_000_000).optional().describe("save_limit_reached: SAVES_MAX_OBJECTS_PER_PLAYER"),
  maxBatch: z.int().min(1).max(500).optional(),
};

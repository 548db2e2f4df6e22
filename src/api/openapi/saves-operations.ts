/** The API description's cloud saves operations (docs/saves.md). */
import type { ErrorCode } from "../../core/errors";
import * as sv from "../saves-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";
import type { z } from "zod";

export function registerSaveComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("SaveObject", sv.saveObjectSchema);
  register("SaveObjectResponse", s.okEnvelope(sv.saveObjectSchema));
  register("SaveReceiptResponse", s.okEnvelope(sv.saveReceiptSchema));
  register("SaveListResponse", s.okEnvelope(sv.saveListSchema));
  register("SaveBatchResponse", s.okEnvelope(sv.saveBatchSchema));
}

const NOTE =
  "Objects are the token's player's, in the token's app. Every write is compare-and-set on `version`: send the version you read; " +
  "a stale one → 409 `version_conflict` with `data.version` (the version now; null when the object does not exist) — read again, " +
  "merge, write again. No `version` creates only (409 when it exists); `overwrite: true` replaces whatever is there. Collections " +
  "listed in SAVES_SERVER_COLLECTIONS are written by the game server only → 403 `save_write_forbidden`.";
const NAME_ERRORS: ErrorCode[] = ["save_name_invalid", "invalid_request"];
const VALUE_ERRORS: ErrorCode[] = ["save_value_not_object", "save_too_large", "save_too_deep", "save_number_invalid", "save_text_invalid", "save_key_reserved", "save_limit_reached"];
const WRITE_ERRORS: ErrorCode[] = [...AUTH_ERRORS, ...NAME_ERRORS, "save_write_forbidden", "version_conflict", "rate_limited"];
const objectPath = "/api/saves/{collection}/{key}";
const objectParams = { schema: sv.savePathParams, examples: { collection: "progress", key: "slot1" } };

export function saveOperations(): OperationSpec[] {
  return [
    {
      method: "get",
      path: "/api/saves/{collection}",
      operationId: "listSaves",
      tag: "Saves",
      summary: "A collection of the player's saved objects, by key, a page at a time",
      description:
        "The player's objects of the collection in key order, `limit` at a time; `data.cursor`, when present, fetches the next page. " +
        "With `userId`, that player's `public` objects only. A page may hold fewer than `limit` objects while a cursor still follows.",
      security: "bearer",
      pathParams: { schema: sv.saveCollectionParam, examples: { collection: "progress" } },
      query: { schema: sv.saveListQuery, examples: { limit: "20" } },
      success: { status: 200, component: "SaveListResponse", description: "A page of objects" },
      errors: [...AUTH_ERRORS, ...NAME_ERRORS],
      errorFields: sv.SAVE_ERROR_FIELDS,
    },
    {
      method: "get",
      path: objectPath,
      operationId: "getSave",
      tag: "Saves",
      summary: "One saved object with its version",
      description:
        "The player's object; with `userId`, another player's object when it is `public` (their private ones, like absent ones, → 404 " +
        "`save_not_found`). Keep `data.version` for the next write.",
      security: "bearer",
      pathParams: objectParams,
      query: { schema: sv.saveReadQuery, examples: {} },
      success: { status: 200, component: "SaveObjectResponse", description: "The object" },
      errors: [...AUTH_ERRORS, ...NAME_ERRORS, "save_not_found"],
      errorFields: sv.SAVE_ERROR_FIELDS,
    },
    {
      method: "put",
      path: objectPath,
      operationId: "putSave",
      tag: "Saves",
      summary: "Create or change a saved object (compare-and-set on its version)",
      description:
        `${NOTE} The value is a JSON object: larger than SAVES_MAX_OBJECT_BYTES → \`save_too_large\`; nested deeper than ` +
        "SAVES_MAX_DEPTH → `save_too_deep`; a number beyond ±2^53 → `save_number_invalid`; a lone surrogate → `save_text_invalid`; " +
        "a field name starting with a dollar sign (or `__proto__`) → `save_key_reserved`; a player with SAVES_MAX_OBJECTS_PER_PLAYER objects → 409 " +
        "`save_limit_reached`. Answers 201 when the object came to exist, 200 when it changed.",
      security: "bearer",
      pathParams: objectParams,
      body: { schema: sv.savePutBody, examples: { create: { value: { level: 3, coins: 120 } }, update: { value: { level: 4, coins: 80 }, version: 1 } } },
      success: { status: 201, component: "SaveReceiptResponse", description: "Created", replay: "Changed" },
      errors: [...WRITE_ERRORS, ...VALUE_ERRORS],
      errorFields: sv.SAVE_ERROR_FIELDS,
    },
    {
      method: "delete",
      path: objectPath,
      operationId: "deleteSave",
      tag: "Saves",
      summary: "Delete a saved object (with the version read)",
      description: `${NOTE} Absent → 404 \`save_not_found\`. The answer's version is the deletion's; a later create goes on from it.`,
      security: "bearer",
      pathParams: objectParams,
      query: { schema: sv.saveDeleteQuery, examples: { version: "2" } },
      success: { status: 200, component: "SaveReceiptResponse", description: "Deleted" },
      errors: [...WRITE_ERRORS, "save_not_found"],
      errorFields: sv.SAVE_ERROR_FIELDS,
    },
    {
      method: "post",
      path: "/api/saves/batch",
      operationId: "batchSaves",
      tag: "Saves",
      summary: "Read several objects, or write several all-or-none",
      description:
        `\`reads\`: the objects in the order asked, null where one is absent or not visible. \`writes\`: every write applies or none ` +
        `does (a game saves its state atomically); the first that does not match → 409 \`version_conflict\` with its \`index\`. ` +
        `At most SAVES_MAX_BATCH entries, each object once → else 400 \`save_batch_invalid\`. ${NOTE}`,
      security: "bearer",
      body: {
        schema: sv.saveBatchBody,
        examples: {
          writes: { writes: [{ collection: "progress", key: "slot1", value: { level: 5 }, version: 2 }, { collection: "inventory", key: "bag", value: { potions: 3 } }] },
          reads: { reads: [{ collection: "progress", key: "slot1" }] },
        },
      },
      success: { status: 200, component: "SaveBatchResponse", description: "Read, or written" },
      errors: [...WRITE_ERRORS, ...VALUE_ERRORS, "save_batch_invalid"],
      errorFields: sv.SAVE_ERROR_FIELDS,
    },
  ];
}

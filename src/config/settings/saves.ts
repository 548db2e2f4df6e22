/**
 * Settings of the cloud saves (docs/saves.md): how big one object may be, how many a player may
 * keep per app, the names allowed, and which collections only the game server writes.
 */
import { z } from "zod";
import { int, splitList } from "../config-types";

/** Collection names as the API admits them (settings name server collections with the same rule). */
export const SAVE_COLLECTION_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

export const savesShape = {
  /** Largest value of one object, as UTF-8 JSON, in bytes. */
  SAVES_MAX_OBJECT_BYTES: int(64, 1_048_576).default(65_536),
  /** Largest request body on /api/saves (a batch carries several objects), in bytes. */
  SAVES_MAX_REQUEST_BYTES: int(1024, 16_777_216).default(262_144),
  /** Live objects one player may keep in one app (all collections together). */
  SAVES_MAX_OBJECTS_PER_PLAYER: int(1, 1_000_000).default(1000),
  /** Deepest nesting of objects and arrays in a value (the value itself is depth 1). */
  SAVES_MAX_DEPTH: int(1, 128).default(32),
  /** Longest collection name and key, in characters. */
  SAVES_MAX_COLLECTION_LENGTH: int(1, 128).default(64),
  SAVES_MAX_KEY_LENGTH: int(1, 256).default(128),
  /** Most reads or writes in one POST /api/saves/batch. */
  SAVES_MAX_BATCH: int(1, 500).default(50),
  /** Collections only the game server writes (rooms, services); players read their objects there. Comma-separated. */
  SAVES_SERVER_COLLECTIONS: z
    .string()
    .optional()
    .transform((v) => splitList(v))
    .refine((names) => names.every((n) => SAVE_COLLECTION_PATTERN.test(n)), "each name: letters, digits, _ and -, not starting with -"),
};

type SavesSettings = z.output<z.ZodObject<typeof savesShape>>;

export function savesConfig(s: SavesSettings) {
  return {
    saves: {
      maxObjectBytes: s.SAVES_MAX_OBJECT_BYTES,
      maxRequestBytes: s.SAVES_MAX_REQUEST_BYTES,
      maxObjectsPerPlayer: s.SAVES_MAX_OBJECTS_PER_PLAYER,
      maxDepth: s.SAVES_MAX_DEPTH,
      maxCollectionLength: s.SAVES_MAX_COLLECTION_LENGTH,
      maxKeyLength: s.SAVES_MAX_KEY_LENGTH,
      maxBatch: s.SAVES_MAX_BATCH,
      serverCollections: s.SAVES_SERVER_COLLECTIONS as readonly string[],
    },
  };
}

export type SaveSettings = ReturnType<typeof savesConfig>["saves"];

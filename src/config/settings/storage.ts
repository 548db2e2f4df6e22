/** Settings of what the process keeps: the user store, the shared cache and the per-process user copies. */
import { z } from "zod";
import { int } from "../config-types";

export const storageShape = {
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|mongodb(\+srv)?:\/\/[^/?#\s]+)/, "must be a postgres://, mongodb:// or mongodb+srv:// URL")
    .optional(),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 60_000).default(800),
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: int(100, 60_000).default(3000),
  DATABASE_QUERY_TIMEOUT_MS: int(100, 600_000).default(800),
  SQLITE_PATH: z.string().min(1).default("./data/users.sqlite"),
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  USER_CACHE_TTL_MS: int(0, 60_000).default(5000),
  USER_CACHE_MAX_ENTRIES: int(1, 1_000_000).default(20_000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  CACHE_KEY_PREFIX: z.string().max(64).default(""),
};

type StorageSettings = z.output<z.ZodObject<typeof storageShape>>;

export function storageConfig(s: StorageSettings) {
  return {
    store: s.DATABASE_URL
      ? ({
          kind: s.DATABASE_URL.startsWith("mongodb") ? ("mongodb" as const) : ("postgres" as const),
          url: s.DATABASE_URL,
          connectTimeoutMs: s.DATABASE_CONNECT_TIMEOUT_MS,
          acquireTimeoutMs: s.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
          queryTimeoutMs: s.DATABASE_QUERY_TIMEOUT_MS,
        } as const)
      : ({ kind: "sqlite", path: s.SQLITE_PATH, synchronous: s.SQLITE_SYNCHRONOUS } as const),
    /** Per-process cache of active user records for token verification (0 ms turns it off). */
    userCache: { ttlMs: s.USER_CACHE_TTL_MS, maxEntries: s.USER_CACHE_MAX_ENTRIES },
    cache: s.REDIS_URL ? ({ kind: "redis", url: s.REDIS_URL } as const) : ({ kind: "memory" } as const),
    cacheKeyPrefix: s.CACHE_KEY_PREFIX,
  };
}

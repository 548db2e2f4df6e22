/** Settings of what the process keeps: the user store, the shared cache and the per-process user copies. */
import { z } from "zod";
import { int, splitList } from "../config-types";

export const storageShape = {
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|mongodb(\+srv)?:\/\/[^/?#\s]+)/, "must be a postgres://, mongodb:// or mongodb+srv:// URL")
    .optional(),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 60_000).default(800),
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: int(100, 60_000).default(3000),
  DATABASE_QUERY_TIMEOUT_MS: int(100, 600_000).default(800),
  MONGODB_ORPHAN_CLAIM_SEC: int(5, 3600).default(30),
  SQLITE_PATH: z.string().min(1).default("./data/users.sqlite"),
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  USER_CACHE_TTL_MS: int(0, 60_000).default(5000),
  USER_CACHE_MAX_ENTRIES: int(1, 1_000_000).default(20_000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  REDIS_CLUSTER_NODES: z
    .string()
    .refine((v) => splitList(v).length > 0 && splitList(v).every((u) => /^rediss?:\/\/[^/\s]+:\d+\/?$/.test(u)), "must be a comma list of redis://host:port seed nodes")
    .optional(),
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
          ...(s.DATABASE_URL.startsWith("mongodb") ? { orphanClaimMs: s.MONGODB_ORPHAN_CLAIM_SEC * 1000 } : {}),
        } as const)
      : ({ kind: "sqlite", path: s.SQLITE_PATH, synchronous: s.SQLITE_SYNCHRONOUS } as const),
    /** Per-process cache of active user records for token verification (0 ms turns it off). */
    userCache: { ttlMs: s.USER_CACHE_TTL_MS, maxEntries: s.USER_CACHE_MAX_ENTRIES },
    cache: cacheConfig(s),
    cacheKeyPrefix: s.CACHE_KEY_PREFIX,
  };
}

/** Redis Cluster (seed nodes; the rest are discovered), one Redis, or this process's memory. */
function cacheConfig(s: StorageSettings) {
  if (s.REDIS_CLUSTER_NODES) return { kind: "redis-cluster", nodes: splitList(s.REDIS_CLUSTER_NODES) } as const;
  if (s.REDIS_URL) return { kind: "redis", url: s.REDIS_URL } as const;
  return { kind: "memory" } as const;
}

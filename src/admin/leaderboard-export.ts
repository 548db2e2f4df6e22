import { createLeaderboardStore } from "../adapters/store/create-leaderboard-store";
import { createLiveOpsStore } from "../adapters/store/create-liveops-store";
import { liveOpsRecordsOf, type LiveOpsExportRow } from "../services/liveops/liveops-export";
import { sharedSqliteConnection } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import { createCache } from "../adapters/cache/create-cache";
import type { Logger } from "../logging/logger";
import { buildLeaderboards } from "../server/leaderboard-wiring";
import type { LiveOpsStore } from "../core/ports/liveops-store";
import type { UserStore } from "../core/ports/user-store";
import type { LeaderboardService } from "../services/leaderboards/leaderboard-service";

/** The LiveOps store for one action of `export` or `erase`, closed after it. */
async function withLiveOpsStore<T>(config: AppConfig, work: (store: LiveOpsStore) => Promise<T>): Promise<T> {
  const store = await createLiveOpsStore(config.store);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The player's LiveOps assignments and properties in every app, for `export`. */
export function exportLiveOps(config: AppConfig, userId: string): Promise<LiveOpsExportRow[]> {
  return withLiveOpsStore(config, (store) => liveOpsRecordsOf(store, config.apps.map((a) => a.key), userId));
}

/** `erase`'s part: the player's LiveOps assignments and properties in every app. */
export async function eraseLiveOps(config: AppConfig, userId: string): Promise<void> {
  await withLiveOpsStore(config, (store) => store.eraseUser(userId));
}

/** The player's records on every board of every app, for `export` (the data-access right). */
export async function exportLeaderboards(config: AppConfig, userId: string): Promise<Array<{ app: string; board: string; period: number; score: number; subscore: number; name: string; updatedAt: string; metadata: Record<string, unknown> | null }>> {
  const store = await createLeaderboardStore(config.store, config.store.kind === "sqlite" ? { sqlite: sharedSqliteConnection(config.store.path) } : {});
  try {
    const out = [];
    for (const { key: app } of config.apps) {
      for (const { board, seq, record } of await store.recordsOf(app, userId)) {
        out.push({ app, board, period: seq, score: record.score, subscore: record.subscore, name: record.name, updatedAt: new Date(record.updatedAt).toISOString(), metadata: record.metadata });
      }
    }
    return out;
  } finally {
    await store.close();
  }
}

/**
 * Runs `use` with this deployment's leaderboards in a one-off tool (no ticker: servers roll periods
 * and pay seasons), on the servers' rank index so what it changes is what they serve; closes both.
 */
export async function withLeaderboards<T>(config: AppConfig, users: Pick<UserStore, "findById">, logger: Logger, use: (leaderboards: LeaderboardService) => Promise<T>): Promise<T> {
  const cache = await createCache(config.cache, config.cacheKeyPrefix, logger);
  try {
    const built = await buildLeaderboards({ config, users, cache, logger, tick: false });
    try {
      return await use(built.leaderboards);
    } finally {
      await built.close();
    }
  } finally {
    await cache.close();
  }
}

/** Removes the player's records on every board (erase), keeping the servers' rank index in step. */
export function eraseLeaderboardRecords(config: AppConfig, logger: Logger, userId: string): Promise<void> {
  return withLeaderboards(config, { findById: async () => null }, logger, (leaderboards) => leaderboards.eraseUser(userId));
}

/**
 * The leaderboards' part of the composition root (container.ts): the store on the user store's
 * database (sharing its SQLite connection), the Redis rank index when Redis is configured, and the
 * reward ledger that pays season rewards, with a mail telling each paid player.
 */
import type { Kysely } from "kysely";
import { MemoryRankIndex } from "../adapters/cache/memory-rank-index";
import { RedisRankIndex } from "../adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../adapters/store/create-leaderboard-store";
import { sharedSqliteConnection } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import type { Cache } from "../core/ports/cache";
import type { RewardGranter } from "../core/ports/reward-grants";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { LeaderboardService } from "../services/leaderboards/leaderboard-service";
import type { PayoutNotice } from "../services/leaderboards/season-payouts";

export interface LeaderboardWiringInput {
  config: AppConfig;
  users: Pick<UserStore, "findById">;
  cache: Cache;
  logger: Logger;
  /** The economy's reward ledger; without one, ended periods wait unpaid (logged) until there is. */
  granter?: RewardGranter;
  /** Tells each paid player of a season reward (the reward services' mail); without it, no mail. */
  notifyReward?: (notice: PayoutNotice) => Promise<void>;
  now?: () => number;
  /** Whether this process rolls periods over and pays seasons (servers do; a one-off tool does not). */
  tick?: boolean;
}

export async function buildLeaderboards(input: LeaderboardWiringInput): Promise<{ leaderboards: LeaderboardService; close(): Promise<void> }> {
  const { config } = input;
  const shared: { sqlite?: Kysely<unknown> } = config.store.kind === "sqlite" ? { sqlite: sharedSqliteConnection(config.store.path) } : {};
  const store = await createLeaderboardStore(config.store, shared);
  const cacheConfig = config.cache;
  // Without Redis the settings allow one process only (INSTANCES > 1 needs REDIS_URL), so this
  // process sees every write and its memory can hold the ranks.
  const index =
    cacheConfig.kind === "memory"
      ? new MemoryRankIndex(input.now)
      : new RedisRankIndex(cacheConfig.kind === "redis" ? cacheConfig.url : { nodes: cacheConfig.nodes }, config.cacheKeyPrefix);
  const leaderboards = new LeaderboardService({
    boards: config.leaderboards,
    store,
    users: input.users,
    cache: input.cache,
    index,
    granter: input.granter,
    notifyReward: input.notifyReward,
    logger: input.logger,
    now: input.now,
    periodRetentionMs: config.leaderboardPeriodRetentionMs,
  });
  if (input.tick ?? true) leaderboards.start(config.leaderboardTickMs);
  return {
    leaderboards,
    close: async () => {
      leaderboards.stop();
      await index?.close();
      await store.close();
    },
  };
}

/**
 * LiveOps' part of the composition root (container.ts): the store, the service that evaluates the
 * definitions per player, and where the economy and the reward sources ask it — the price a player
 * pays now, the multiplier of their ad and gift-pack rewards.
 */
import { createLiveOpsStore } from "../adapters/store/create-liveops-store";
import type { AppConfig } from "../config/config";
import type { LiveOpsStore } from "../core/ports/liveops-store";
import type { UserStore } from "../core/ports/user-store";
import type { OrderLedger } from "../core/ports/order-ledger";
import type { LeaderboardService } from "../services/leaderboards/leaderboard-service";
import type { Logger } from "../logging/logger";
import { LiveOpsService, type PlayerFactsSource } from "../services/liveops/liveops-service";
import type { PlatformApps } from "../services/platform-apps";
import type { ExperimentSource } from "../services/analytics/experiment-results";
import type { EconomyServices } from "./economy-wiring";
import type { RewardServices } from "./reward-wiring";

export async function buildLiveOps(
  config: AppConfig,
  deps: { users: UserStore; orders: OrderLedger; platformApps: PlatformApps; economy: EconomyServices; rewardSources: RewardServices; leaderboards: LeaderboardService; logger: Logger; now?: () => number },
): Promise<{ liveops: LiveOpsService; store: LiveOpsStore; close(): Promise<void> }> {
  const store = await createLiveOpsStore(config.store);
  const liveops = new LiveOpsService(store, config.liveops.definitions, config.apps.map((a) => a.key), playerFacts(deps), (app) => deps.economy.catalogs.get(app).catalog, deps.logger, deps.now);
  try {
    await liveops.start(config.liveops.refreshMs);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  deps.economy.shop.offers = liveops;
  deps.economy.orders.offers = liveops;
  deps.rewardSources.ads.boost = (app, userId) => liveops.rewardFactor(app, userId, "ads");
  deps.rewardSources.gifts.boost = (app, userId) => liveops.rewardFactor(app, userId, "giftPacks");
  return {
    liveops,
    store,
    close: async () => {
      liveops.stop();
      await store.close();
    },
  };
}

/**
 * What the audiences read of a player: first login (the account's creation), platform (their first
 * identity's), payer and total paid (delivered coin spends and item purchases of the app), the best
 * score on each of the app's boards over all its periods (the board's order says which is best).
 * Server-set properties are read by the service from its store.
 */
function playerFacts(deps: { users: UserStore; orders: OrderLedger; platformApps: PlatformApps; leaderboards: LeaderboardService }): PlayerFactsSource {
  return async (app, userId) => {
    const [user, identities, orders, records] = await Promise.all([
      deps.users.findById(userId),
      deps.users.listIdentities(userId),
      deps.orders.listByUser(userId, { state: "delivered", limit: 200 }),
      deps.leaderboards.recordsOf(app, userId),
    ]);
    const paid = orders.filter((o) => (o.kind === "coin_spend" || o.kind === "item_purchase") && deps.platformApps.appsOf(o.platform).some((a) => a.appId === o.appId && a.app === app));
    return {
      firstLoginAt: user?.createdAt,
      payer: paid.length > 0,
      totalPaid: paid.reduce((sum, o) => sum + o.coins, 0),
      leaderboardBest: bests(records, (board) => deps.leaderboards.boards(app).find((b) => b.id === board)?.order),
      properties: {},
      ...(identities[0] ? { platform: identities[0].platform } : {}),
    };
  };
}

/** Each board's best score of the records: the highest on a "desc" board, the lowest on an "asc" one. */
export function bests(records: ReadonlyArray<{ board: string; score: number }>, orderOf: (board: string) => "asc" | "desc" | undefined): Record<string, number> {
  const best: Record<string, number> = {};
  for (const { board, score } of records) {
    const order = orderOf(board);
    if (!order) continue; // a board no longer defined
    const kept = best[board];
    if (kept === undefined || (order === "desc" ? score > kept : score < kept)) best[board] = score;
  }
  return best;
}

/** What analytics reads of LiveOps for experiment results: the running experiments, the stored assignments. */
export function experimentSource(liveops: Pick<LiveOpsService, "current">, store: Pick<LiveOpsStore, "assignments">, appKeys: readonly string[]): ExperimentSource {
  return {
    find(experimentId, app) {
      for (const key of app ? [app] : appKeys) {
        const experiment = liveops.current(key).definitions.experiments.find((e) => e.experimentId === experimentId);
        if (experiment) return { app: key, experiment };
      }
      return undefined;
    },
    assignments: (app, userId) => store.assignments(app, userId),
  };
}

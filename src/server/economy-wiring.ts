/**
 * The economy's part of the composition root (container.ts): the store on the configured database
 * (on SQLite the user store's own connection, as the order ledger) and the services over it.
 */
import { createEconomyStore } from "../adapters/store/create-economy-store";
import { sharedSqliteEconomy } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import type { EconomyStore } from "../core/ports/economy-store";
import { EconomyRewards } from "../services/economy/reward-granter";

export interface EconomyServices {
  store: EconomyStore;
  /** The one RewardGranter: every grant of value passes here. */
  rewards: EconomyRewards;
  close(): Promise<void>;
}

export async function buildEconomyServices(config: AppConfig, now?: () => number): Promise<EconomyServices> {
  const shared = config.store.kind === "sqlite";
  const store = shared ? sharedSqliteEconomy(config.store.path) : await createEconomyStore(config.store);
  if (shared) await store.migrate();
  const rewards = new EconomyRewards(store, now);
  return {
    store,
    rewards,
    // A SQLite store shares the user store's connection, which the user store closes.
    close: async () => {
      if (!shared) await store.close();
    },
  };
}

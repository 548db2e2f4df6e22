/**
 * One process opening (and so migrating) every store, one after another as the server does, on the
 * database given as argv[2] (JSON config); it starts when the test sends "go", so several start at
 * once, and reports "ok" or the first error. Started by test/process/concurrent-migrations.test.ts.
 */
import type { AppConfig } from "../../src/config/config";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { createOrderLedger } from "../../src/adapters/store/create-order-ledger";
import { createRewardStores } from "../../src/adapters/store/create-reward-stores";
import { createUserStore } from "../../src/adapters/store/create-user-store";

export const STORE_FACTORIES = {
  users: createUserStore,
  orders: createOrderLedger,
  economy: createEconomyStore,
  rewards: createRewardStores,
  leaderboards: createLeaderboardStore,
  operators: createOperatorStore,
} satisfies Record<string, (config: AppConfig["store"]) => Promise<{ close(): Promise<void> }>>;

if (require.main === module) {
  const config = JSON.parse(process.argv[2]) as AppConfig["store"];
  process.send!("ready");
  process.once("message", async () => {
    try {
      for (const [name, open] of Object.entries(STORE_FACTORIES)) {
        const store = await open(config).catch((err: Error) => Promise.reject(new Error(`${name}: ${err.stack ?? err}`)));
        await store.close();
      }
      process.send!("ok", () => process.exit(0));
    } catch (err) {
      process.send!(String((err as Error).stack ?? err), () => process.exit(0));
    }
  });
}

/**
 * Every store the server opens answers "unavailable" (the typed 503 `service_unavailable`, which the
 * game retries with the same id) when its database cannot answer, never an untyped error (a 500):
 * each store is opened through a TCP proxy, the proxy cuts every connection, and one read is made.
 * Before: the economy, leaderboard, rewards, LiveOps, analytics, operator and support stores threw
 * the driver's own error (CI saw a purchase answered 500 while PostgreSQL was loaded).
 */
import assert from "node:assert/strict";
import { createAnalyticsStore } from "../../src/adapters/store/create-analytics-store";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import { createLiveOpsStore } from "../../src/adapters/store/create-liveops-store";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { createRewardStores } from "../../src/adapters/store/create-reward-stores";
import { createSaveStore } from "../../src/adapters/store/create-save-store";
import { createSupportStore } from "../../src/adapters/store/create-support-store";
import type { AppConfig } from "../../src/config/config";
import { AppError } from "../../src/core/errors";
import { storeImplementations } from "../support/store-configs";
import { TcpProxy } from "../support/tcp-proxy";

type Store = { close(): Promise<void> };
interface Opened {
  name: string;
  store: Store;
  read(): Promise<unknown>;
}

const USER = "00000000-0000-4000-8000-000000000001";

async function openAll(config: AppConfig["store"]): Promise<Opened[]> {
  const economy = await createEconomyStore(config);
  const boards = await createLeaderboardStore(config);
  const rewards = await createRewardStores(config);
  const liveops = await createLiveOpsStore(config);
  const analytics = await createAnalyticsStore(config);
  const operators = await createOperatorStore(config);
  const support = await createSupportStore(config);
  const saves = await createSaveStore(config);
  return [
    { name: "The economy store", store: economy, read: () => economy.state("default", USER) },
    { name: "The leaderboard store", store: boards, read: () => boards.recordsOf("default", USER) },
    { name: "The rewards store", store: rewards, read: () => rewards.recordsOf(USER) },
    { name: "The LiveOps store", store: liveops, read: () => liveops.assignments("default", USER) },
    { name: "The analytics store", store: analytics, read: () => analytics.userEvents({ userId: USER, limit: 1 }) },
    { name: "The operator store", store: operators, read: () => operators.list() },
    { name: "The support store", store: support, read: () => support.migrate() },
    { name: "The saves store", store: saves, read: () => saves.listByOwner(USER) },
  ];
}

for (const implementation of storeImplementations("unavailable").filter((i) => i.name !== "SQLite")) {
  describe(`every store's calls fail as 'unavailable' when the database cannot answer (${implementation.name})`, function () {
    this.timeout(120_000);
    let proxy: TcpProxy;
    let opened: Opened[] = [];
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await implementation.prepare();
      release = prepared.release;
      const config = prepared.config as AppConfig["store"] & { url: string };
      const url = new URL(config.url);
      proxy = await TcpProxy.start(url.hostname, Number(url.port));
      url.host = `127.0.0.1:${proxy.port}`;
      opened = await openAll({ ...config, url: url.toString(), queryTimeoutMs: 2000, connectTimeoutMs: 1000, acquireTimeoutMs: 1000 } as AppConfig["store"]);
    });
    after(async () => {
      proxy?.restore();
      await Promise.all(opened.map((o) => o.store.close().catch(() => undefined)));
      await proxy?.close();
      await release?.();
    });

    it("each store's read rejects with service_unavailable naming the store, and answers again once the database is back", async () => {
      for (const o of opened) await o.read();
      proxy.cut();
      const failures: string[] = [];
      for (const o of opened) {
        const outcome = await o.read().then(
          () => "answered",
          (err: unknown) => (err instanceof AppError && err.code === "service_unavailable" && err.message.startsWith(o.name) ? "unavailable" : `${(err as Error)?.name}: ${(err as Error)?.message}`),
        );
        if (outcome !== "unavailable") failures.push(`${o.name}: ${outcome}`);
      }
      assert.deepEqual(failures, []);
      proxy.restore();
      for (const o of opened) {
        for (let attempt = 1; ; attempt++) {
          const ok = await o.read().then(() => true, () => false);
          if (ok) break;
          assert.ok(attempt < 50, `${o.name} did not come back`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    });
  });
}

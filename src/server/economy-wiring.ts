/**
 * The economy's part of the composition root (container.ts): the store on the configured database
 * (on SQLite the user store's own connection, as the order ledger), the live catalogs, the shop and
 * the one RewardGranter; and how paid orders land in the inventory before the game's own hook runs.
 */
import client from "prom-client";
import { createEconomyStore } from "../adapters/store/create-economy-store";
import type { EconomyCrashHook } from "../adapters/store/economy-chain";
import { sharedSqliteEconomy } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import type { Order } from "../core/ports/order-ledger";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { CatalogService } from "../services/economy/catalog-service";
import { EconomyRewards } from "../services/economy/reward-granter";
import { PaidOrders } from "../services/economy/paid-orders";
import { ShopService } from "../services/economy/shop-service";
import type { DeliverItem } from "../services/payments/payment-deps";
import type { PlatformApps } from "../services/platform-apps";
import type { PaymentServices } from "./payment-wiring";

import type { EconomyServices } from "../services/service-groups";
export type { EconomyServices };

export async function buildEconomyServices(config: AppConfig, logger: Logger, metrics: Metrics, now?: () => number): Promise<EconomyServices> {
  const shared = config.store.kind === "sqlite";
  const crash = economyCrashHook(config.economy.crashPoint);
  const store = shared ? sharedSqliteEconomy(config.store.path, crash) : await createEconomyStore(config.store, crash);
  if (shared) await store.migrate();
  const rewards = new EconomyRewards(store, now);
  const catalogs = new CatalogService(store, config.economy.catalogs, config.apps.map((a) => a.key), logger, now);
  const shop = new ShopService(store, catalogs, rewards, now);
  const orders = new PaidOrders(store, catalogs, rewards, now);
  const refused = new client.Counter({
    name: "economy_item_purchases_refused_total",
    help: "Pushed item purchases recorded failed because the catalog refused them (unknown item, price below the catalog's)",
    labelNames: ["platform", "reason"] as const,
    registers: [metrics.registry],
  });
  const grants = new client.Counter({
    name: "economy_grants_total",
    help: "Grants this process recorded first (purchases, paid orders, ads, gifts, mail, operators…), by app and source",
    labelNames: ["app", "source"] as const,
    registers: [metrics.registry],
  });
  rewards.onReward((notice) => grants.inc({ app: notice.appId, source: notice.source }));
  return {
    store,
    rewards,
    catalogs,
    shop,
    orders,
    refuseItemPurchase: (app, platform, itemId, price) => {
      const reason = shop.refusePushedPurchase(app, itemId, price);
      if (reason) refused.inc({ platform, reason });
      return reason;
    },
    start: () => catalogs.start(config.economy.catalogRefreshSec * 1000),
    // A SQLite store shares the user store's connection, which the user store closes.
    close: async () => {
      catalogs.stop();
      if (!shared) await store.close();
    },
  };
}

/** Test-only: kills the process (SIGKILL: nothing flushed or closed) at the configured step of a change from that source. */
function economyCrashHook(point: string | undefined): EconomyCrashHook | undefined {
  if (!point) return undefined;
  const [at, source] = point.split(":");
  return (step, from) => {
    if (step === at && from === source) process.kill(process.pid, "SIGKILL");
  };
}

/**
 * Paid orders grant what they paid for through the economy ledger (source coin_order or item_push,
 * keyed by our order id) before the game's hook runs; with no hook registered, the grant alone
 * delivers. Coin spends are held against the catalog's per-player rules before the platform is
 * asked (paid-orders.ts). A pushed purchase of an item the catalog no longer lists is left to the
 * game's hook, with a warning.
 */
export function deliverThroughEconomy(payments: PaymentServices, economy: EconomyServices, platformApps: PlatformApps, logger: Logger): void {
  const appOf = (order: Order) => platformApps.appsOf(order.platform).find((a) => a.appId === order.appId)?.app;
  payments.setOrderRules({
    reserve: async (order) => {
      const app = appOf(order);
      return app ? economy.orders.reserve(app, order) : null;
    },
    release: async (order) => {
      const app = appOf(order);
      if (app) await economy.orders.release(app, order);
    },
  });
  const register = payments.onDeliver.bind(payments);
  const grant: DeliverItem = async (order) => {
    const app = appOf(order);
    const granted = app ? await economy.orders.deliver(app, order) : null;
    if (!granted) logger.warn({ event: "order_item_not_in_catalog", order: order.id, itemId: order.itemId }, "a paid order's item is not in the catalog: nothing was granted by the economy");
  };
  register(grant);
  payments.onDeliver = (hook) =>
    register(async (order) => {
      await grant(order);
      await hook(order);
    });
}

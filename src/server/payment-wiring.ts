/**
 * The payments' part of the composition root (container.ts): the ledger on the store's database,
 * one wallet per (platform, app) with that app's keys, and the services over them. Everything is
 * looked up by the platform and the platform's app id the order or the player names.
 */
import type { Cache } from "../core/ports/cache";
import { createOrderLedger } from "../adapters/store/create-order-ledger";
import { sharedSqliteLedger } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import { appPayments, withSimulatorKeys, type AppPayments, type AppPaymentsSettings } from "../config/settings/payments";
import { DEFAULT_APP } from "../core/apps";
import { AppError } from "../core/errors";
import type { CoinWallet } from "../core/ports/coin-wallet";
import type { ItemOrderQuery } from "../core/ports/item-order-query";
import type { Order } from "../core/ports/order-ledger";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { paymentMetrics } from "./payment-metrics";
import type { AnalyticsRecorder } from "../core/ports/analytics-store";
import { recordingDeliveries } from "../services/analytics/server-facts";
import { DouyinCoinWallet, DOUYIN_WALLET_BASE_URL } from "../platforms/douyin/douyin-coins";
import { WechatCoinWallet } from "../platforms/wechat/wechat-coins";
import { WechatItemOrders } from "../platforms/wechat/wechat-item-orders";
import { ItemOrderLookup } from "../services/payments/item-order-lookup";
import { OrderQueryThrottle, SharedOrderQueryThrottle } from "../services/payments/order-query-throttle";
import { OrderReconciler } from "../services/payments/order-reconciler";
import type { PaymentDeps } from "../services/payments/payment-deps";
import { PaymentOperations } from "../services/payments/payment-operations";
import { PaymentService } from "../services/payments/payment-service";
import type { PlatformApps } from "../services/platform-apps";
import type { PlatformTokenService } from "../services/platform-token-service";
import type { SessionKeyCustody } from "../services/session-key-custody";

import type { PaymentServices } from "../services/service-groups";
export type { PaymentServices };

export interface PaymentWiringInput {
  config: AppConfig;
  /** The apps with their platform settings as this process calls them (the simulator's URL when embedded). */
  apps: readonly AppSettings[];
  platformApps: PlatformApps;
  store: Pick<UserStore, "findByIdentity">;
  custody: SessionKeyCustody;
  tokens: PlatformTokenService;
  logger: Logger;
  metrics: Metrics;
  /** The cache every process shares: the item-order query throttle counts there (this process alone without it). */
  sharedCache?: Pick<Cache, "increment">;
  /** The catalog's check of a pushed item purchase, by our app key (economy-wiring.ts); none: every push is delivered. */
  refuseItemPurchase?(app: string, platform: string, itemId: string, price: number): string | null;
  now?: () => number;
  /** Where a delivered order is reported as revenue (docs/analytics.md). */
  analytics?: AnalyticsRecorder;
}

const WALLETS = ["wechat", "douyin"] as const;

export async function buildPaymentServices(input: PaymentWiringInput): Promise<PaymentServices> {
  const { config, platformApps, custody, tokens, logger } = input;
  const embedded = config.simulator === "embedded";
  const ledger = config.store.kind === "sqlite" ? sharedSqliteLedger(config.store.path) : await createOrderLedger(config.store);

  // Per (platform, platform app id): the app's key, its payment settings and its wallet.
  const perApp = new Map<string, { app: string; payments: AppPayments; wallet: CoinWallet; itemOrders?: ItemOrderQuery }>();
  for (const app of input.apps) {
    for (const platform of WALLETS) {
      const settings = app.platforms[platform];
      if (!settings || !platformApps.find(platform, app.key)) continue;
      const given: AppPaymentsSettings | undefined = app.key === DEFAULT_APP ? config.payments.defaultApp[platform] : app.payments?.[platform];
      const payments = appPayments(platform, embedded ? withSimulatorKeys(platform, settings.appId, given) : (given ?? { env: "sandbox", zoneId: "1" }));
      const http = { timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger };
      const wallet =
        platform === "wechat"
          ? new WechatCoinWallet({ ...http, apiBaseUrl: settings.apiBaseUrl })
          : new DouyinCoinWallet({ ...http, apiBaseUrl: douyinWalletBaseUrl(config, settings.apiBaseUrl) });
      // Only WeChat answers order queries for item purchases (Douyin's item payments are not supported).
      const itemOrders = platform === "wechat" ? new WechatItemOrders({ ...http, apiBaseUrl: settings.apiBaseUrl }) : undefined;
      perApp.set(`${platform}\0${settings.appId}`, { app: app.key, payments, wallet, itemOrders });
    }
  }
  const entry = (platform: string, appId: string) => perApp.get(`${platform}\0${appId}`);
  const appKeyOf = (platform: string, appId: string) => {
    const found = entry(platform, appId);
    if (!found) throw new AppError("payments_disabled", { data: { platform } });
    return found.app;
  };

  let notify: (order: Order) => void = () => undefined;
  const deps: PaymentDeps = {
    ledger,
    wallet: (platform, appId) => entry(platform, appId)?.wallet,
    paymentKeys: (platform, appId) => entry(platform, appId)?.payments.wallet,
    withAccessToken: (platform, appId, call) => tokens.withPlatformToken(platform, appKeyOf(platform, appId), call),
    keptKey: async (player) => {
      const kept = await custody.read(player.userId, appKeyOf(player.platform, player.appId));
      return kept && kept.platform === player.platform && kept.sessionKey && kept.openid ? { openid: kept.openid, sessionKey: kept.sessionKey, keptAt: kept.keptAt } : undefined;
    },
    userIdForOpenid: async (platform, appId, openid) => {
      const app = platformApps.find(platform, appKeyOf(platform, appId));
      const user = app ? await input.store.findByIdentity({ platform: platformApps.namespaceOf(app), platformId: openid }) : null;
      return user?.id;
    },
    notifyPlayer: (order) => notify(order),
    refuseItemPurchase: input.refuseItemPurchase && ((platform, appId, itemId, price) => input.refuseItemPurchase!(appKeyOf(platform, appId), platform, itemId, price)),
    logger,
    events: recordingDeliveries(paymentMetrics(input.metrics.registry, ledger), input.analytics ?? { record: () => undefined }, (order) => appKeyOf(order.platform, order.appId)),
    crashPoint: crashPointFor(config.payments.crashPoint),
    now: input.now,
  };
  const timings = { deliveryLeaseMs: config.payments.deliveryLeaseMs, settleAfterMs: config.payments.settleAfterMs };
  // The lookup records through the operations, which need the service: it is reached through a closure.
  const payments: PaymentService = new PaymentService(deps, timings, (player, orderId) => itemOrders.find(player, orderId));
  const operations = new PaymentOperations(deps, payments);
  const throttle = input.sharedCache ? new SharedOrderQueryThrottle(input.sharedCache) : new OrderQueryThrottle();
  const itemOrders: ItemOrderLookup = new ItemOrderLookup({ ...deps, itemOrderQuery: (platform, appId) => entry(platform, appId)?.itemOrders }, operations, throttle);
  const reconciler = new OrderReconciler(deps, payments, operations, { settleAfterMs: config.payments.settleAfterMs, retryBillForMs: 24 * 3600_000 });

  return {
    ledger,
    payments,
    operations,
    reconciler,
    setOrderRules: (rules) => {
      deps.orderRules = rules;
    },
    onDeliver: (hook) => payments.delivery.onDeliver(hook),
    onNotify: (fn) => {
      notify = fn;
    },
    paymentsEnabled: (app) => WALLETS.some((platform) => {
      const found = platformApps.find(platform, app);
      return found !== undefined && entry(platform, found.appId)?.payments.wallet !== undefined;
    }),
    paymentsOn: (platform, app) => {
      const found = platformApps.find(platform, app);
      return found !== undefined && entry(platform, found.appId)?.payments.wallet !== undefined;
    },
    itemPurchaseApps: (app) =>
      WALLETS.flatMap((platform) => {
        const found = platformApps.find(platform, app);
        return found ? [{ platform, appId: found.appId }] : [];
      }),
    resolvePlayer: async (userId, app) => {
      const kept = await custody.read(userId, app);
      if (!kept?.sessionKey) throw new AppError("session_key_missing", { data: {} });
      const found = platformApps.get(kept.platform, app);
      if (!entry(kept.platform, found.appId)?.payments.wallet) throw new AppError("payments_disabled", { data: { platform: kept.platform } });
      return { userId, platform: kept.platform, appId: found.appId };
    },
    pushApps: (platform) =>
      platformApps.appsOf(platform).flatMap((app) => {
        const found = entry(platform, app.appId);
        return found?.payments.push && found.payments.wallet ? [{ appId: app.appId, push: found.payments.push, keys: found.payments.wallet }] : [];
      }),
    start: () => reconciler.start(config.payments.reconcileIntervalSec * 1000),
    close: async () => {
      await reconciler.stop();
      // A SQLite ledger shares the user store's connection, which the store closes.
      if (config.store.kind !== "sqlite") await ledger.close();
    },
  };
}

/** The wallet's host: the setting, else the Douyin API's when that points elsewhere (a simulator, a proxy), else Douyin's. */
function douyinWalletBaseUrl(config: AppConfig, apiBaseUrl: string): string {
  if (config.payments.douyinWalletBaseUrl) return config.payments.douyinWalletBaseUrl;
  return /^https:\/\/(minigame\.zijieapi\.com|developer\.toutiao\.com)/.test(apiBaseUrl) ? DOUYIN_WALLET_BASE_URL : apiBaseUrl;
}

/** Test-only: kills the process at the configured step of a coin spend (SIGKILL: nothing is flushed or closed). */
function crashPointFor(point: AppConfig["payments"]["crashPoint"]): PaymentDeps["crashPoint"] {
  if (!point) return undefined;
  return (step) => {
    if (step === point) process.kill(process.pid, "SIGKILL");
  };
}

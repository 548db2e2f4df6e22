/**
 * What the payment services need from the rest of the server, as narrow functions the container
 * provides. Every one names its platform and app: nothing here assumes a process serves one app.
 */
import type { CoinWallet, PaymentKeys, WalletCall } from "../../core/ports/coin-wallet";
import type { Order, OrderLedger } from "../../core/ports/order-ledger";
import { AppError } from "../../core/errors";
import type { Logger } from "../../logging/logger";
import type { PushKeys } from "../../platforms/wechat/wechat-push";

/** Who is paying: our user, on the platform and app their access token was issued for. */
/** An app that accepts item-purchase pushes: its platform app id, push (or callback) Token (and AES key), and payment keys. */
export interface PushApp {
  appId: string;
  push: PushKeys;
  keys: PaymentKeys;
}

export interface PaymentPlayer {
  userId: string;
  platform: string;
  appId: string;
}

/** The player's kept session key (from their latest login) and the openid it belongs to. */
export interface KeptPlayerKey {
  openid: string;
  sessionKey: string;
  /** When the login that gave this key was kept (epoch ms); absent for keys kept before it was recorded. */
  keptAt?: number;
}

/** The game's delivery hook: gives the player what the order paid for. Called at least once per paid order. */
export type DeliverItem = (order: Order) => Promise<void>;

/** What the payment services observe, for metrics; each may be a no-op. */
export interface PaymentEvents {
  orderChanged(order: Order): void;
  delivered(order: Order, latencyMs: number): void;
  deliveryFailed(order: Order): void;
  reconcilerAction(action: "delivered" | "paid" | "failed" | "waiting_for_login" | "left_unknown" | "too_old"): void;
}

export const NO_PAYMENT_EVENTS: PaymentEvents = {
  orderChanged: () => undefined,
  delivered: () => undefined,
  deliveryFailed: () => undefined,
  reconcilerAction: () => undefined,
};

/**
 * The catalog's per-player rules for coin spends (the economy's PaidOrders), decided before the
 * platform is asked to deduct: `reserve` counts the order as a purchase once (a retry answers the
 * first outcome) or says why it may not be charged; `release` gives that back once the platform
 * refused the order (nothing taken).
 */
export interface OrderRules {
  reserve(order: Order): Promise<"purchase_limit" | "already_owned" | null>;
  release(order: Order): Promise<void>;
}

export interface PaymentDeps {
  ledger: OrderLedger;
  /** The app's wallet on the platform (WeChat coins, Douyin's wallet); undefined where the platform has none. */
  wallet(platform: string, appId: string): CoinWallet | undefined;
  /** The app's payment keys; undefined while payments are off for it (its keys are not set). */
  paymentKeys(platform: string, appId: string): PaymentKeys | undefined;
  /** Runs a platform call with the app's access token, healing the token once if the platform rejects it. */
  withAccessToken<T>(platform: string, appId: string, call: (accessToken: string) => Promise<T>): Promise<T>;
  /** The player's kept session key for this platform and app; undefined when none is kept. */
  keptKey(player: PaymentPlayer): Promise<KeptPlayerKey | undefined>;
  /** Our user for a platform openid of this app (item purchases arrive with an openid only). */
  userIdForOpenid(platform: string, appId: string, openid: string): Promise<string | undefined>;
  /** Tells the player's live room connections about a delivered order (`purchase` message); best effort. */
  notifyPlayer(order: Order): void;
  /**
   * The catalog's word on a pushed item purchase: why it must not be delivered (an unknown item, a
   * price below the catalog's), or null. Such a purchase is recorded `failed` with that reason.
   */
  refuseItemPurchase?(platform: string, appId: string, itemId: string, price: number): string | null;
  /** Set by the economy's wiring; without it (the admin CLI) coin spends are charged unchecked. */
  orderRules?: OrderRules;
  logger: Logger;
  events?: PaymentEvents;
  /** Test-only (PAYMENT_CRASH_POINT): called at each step a fault test may kill the process at. */
  crashPoint?: (step: "after_pay_sent" | "after_paid" | "during_delivery" | "after_refund_sent" | "after_grant_sent") => void;
  now?: () => number;
}

export interface PaymentTimings {
  /** How long a delivery claim keeps other deliverers off; the hook should finish well within it. */
  deliveryLeaseMs: number;
  /** How long a replayed request waits for the first one's outcome before answering what is known. */
  replayWaitMs: number;
  /** Unsettled orders younger than this are left to the request that is handling them. */
  settleAfterMs: number;
  /**
   * A pending coin order older than this is no longer retried with its bill number: the platform
   * forgets bill numbers after about 48 h, and a retry after that could deduct a second time.
   */
  retryBillForMs: number;
}

export const DEFAULT_PAYMENT_TIMINGS: PaymentTimings = {
  deliveryLeaseMs: 30_000,
  replayWaitMs: 5_000,
  settleAfterMs: 15_000,
  retryBillForMs: 24 * 3600_000,
};

/** The app's keys, or 404 payments_disabled. */
export function requireKeys(deps: Pick<PaymentDeps, "paymentKeys" | "wallet">, platform: string, appId: string): PaymentKeys {
  const keys = deps.wallet(platform, appId) ? deps.paymentKeys(platform, appId) : undefined;
  if (!keys) throw new AppError("payments_disabled", { data: { platform, appId } });
  return keys;
}

export function requireWallet(deps: Pick<PaymentDeps, "wallet">, platform: string, appId: string): CoinWallet {
  const wallet = deps.wallet(platform, appId);
  if (!wallet) throw new AppError("payments_disabled", { data: { platform } });
  return wallet;
}

export function walletCall(player: PaymentPlayer, keys: PaymentKeys, kept: KeptPlayerKey, accessToken: string): WalletCall {
  return { appId: player.appId, keys, accessToken, openid: kept.openid, sessionKey: kept.sessionKey };
}

/** The bill number we send the platform for an order: derived from our id, so every retry repeats it. */
export function billNumberOf(orderUuid: string): string {
  return orderUuid.replace(/-/g, "");
}

/** The bill number of the cancel that refunds a deduction: one per deduction, so a repeated refund is idempotent too. */
export function cancelBillNumberOf(payBillNo: string): string {
  return `${payBillNo}_c`;
}

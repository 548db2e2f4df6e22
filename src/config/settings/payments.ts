/**
 * Settings of virtual payments (docs/payments.md). The keys a platform's console issues an app
 * (WeChat: offer id, AppKeys, message-push Token and EncodingAESKey; Douyin: the payment secret and
 * the payment callback's Token) are per platform and per app: `WECHAT_PAY_*`, `WECHAT_PUSH_*`,
 * `DOUYIN_PAY_*`, `DOUYIN_PUSH_TOKEN` for the app of the platform settings, a `payments` object in
 * an APPS_FILE entry for the others. Payments stay off for an app until its
 * keys are set, so a deployment that sells nothing sets none. With the embedded simulator every
 * app uses the simulator's own keys where none are set (withSimulatorKeys).
 */
import { z } from "zod";
import type { PaymentKeys } from "../../core/ports/coin-wallet";
import { simulatorPaymentKeys } from "./simulator-payment-keys";
import { int, type SettingProblem } from "../config-types";

/** Steps of a coin spend a test can crash the process at (SIGKILL fault tests). Test-only. */
export const PAYMENT_CRASH_POINTS = ["after_pay_sent", "after_paid", "during_delivery"] as const;
/** Steps of an operator's refund or grant (console, CLI): the platform was asked, the ledger not yet told. Test-only. */
export const OPERATOR_CRASH_POINTS = ["after_refund_sent", "after_grant_sent"] as const;
export type PaymentCrashPoint = (typeof PAYMENT_CRASH_POINTS)[number] | (typeof OPERATOR_CRASH_POINTS)[number];

const key = z.string().trim().min(1).optional();
const payEnv = z.enum(["sandbox", "live"]).default("sandbox");

export const paymentsShape = {
  WECHAT_PAY_ENV: payEnv,
  WECHAT_PAY_OFFER_ID: key,
  WECHAT_PAY_ZONE_ID: z.string().trim().min(1).default("1"),
  WECHAT_PAY_APP_KEY: key,
  WECHAT_PAY_SANDBOX_APP_KEY: key,
  WECHAT_PUSH_TOKEN: key,
  WECHAT_PUSH_AES_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}$/, "must be the console's 43-character EncodingAESKey").optional(),
  DOUYIN_PAY_ENV: payEnv,
  DOUYIN_PAY_ZONE_ID: z.string().trim().min(1).default("1"),
  DOUYIN_PAY_SECRET: key,
  DOUYIN_PUSH_TOKEN: key,
  DOUYIN_WALLET_API_BASE_URL: z.string().regex(/^https?:\/\//, "must be an http(s) URL").optional(),
  PAYMENT_RECONCILE_INTERVAL_SEC: int(1, 86_400).default(60),
  PAYMENT_DELIVERY_LEASE_MS: int(1000, 600_000).default(30_000),
  PAYMENT_SETTLE_AFTER_MS: int(0, 3_600_000).default(15_000),
  /** Test-only: the process kills itself (SIGKILL) at this step of a coin spend. Refused in production. */
  PAYMENT_CRASH_POINT: z.enum([...PAYMENT_CRASH_POINTS, ...OPERATOR_CRASH_POINTS]).optional(),
};

type PaymentsSettings = z.output<z.ZodObject<typeof paymentsShape>>;

/** An APPS_FILE entry's `payments` object (beside appId and appSecret), for one platform. */
export const appPaymentsSchema = z.strictObject({
  env: z.enum(["sandbox", "live"]).default("sandbox"),
  offerId: z.string().trim().min(1).optional(),
  zoneId: z.string().trim().min(1).default("1"),
  appKey: z.string().trim().min(1).optional(),
  sandboxAppKey: z.string().trim().min(1).optional(),
  pushToken: z.string().trim().min(1).optional(),
  pushAesKey: z.string().regex(/^[A-Za-z0-9+/]{43}$/).optional(),
  /** Reward sources' keys (settings/rewards.ts): the ad console's Token and EncodingAESKey, the message push's. */
  adToken: z.string().trim().min(1).optional(),
  adAesKey: z.string().regex(/^[A-Za-z0-9+/]{43}$/).optional(),
  giftPushToken: z.string().trim().min(1).optional(),
  giftPushAesKey: z.string().regex(/^[A-Za-z0-9+/]{43}$/).optional(),
});
export type AppPaymentsSettings = z.output<typeof appPaymentsSchema>;

/** One app's payment settings on one platform, as the services see them. */
export interface AppPayments {
  /** Present once the keys the wallet needs are set: the wallet routes work. */
  wallet?: PaymentKeys;
  /** Present once the push Token is set (WeChat's message push, Douyin's payment callback): item purchases are accepted. */
  push?: { token: string; encodingAesKey?: string };
}

/** The wallet keys, or undefined while one the env needs is missing (payments stay off). */
function walletKeys(platform: string, p: AppPaymentsSettings): PaymentKeys | undefined {
  const env = p.env === "live" ? 0 : 1;
  if (platform === "douyin") return p.appKey ? { offerId: "", zoneId: p.zoneId, env, appKey: p.appKey, sandboxAppKey: p.appKey } : undefined;
  const signing = env === 0 ? p.appKey : p.sandboxAppKey;
  if (!p.offerId || !signing) return undefined;
  return { offerId: p.offerId, zoneId: p.zoneId, env, appKey: p.appKey ?? "", sandboxAppKey: p.sandboxAppKey ?? "" };
}

export function appPayments(platform: string, p: AppPaymentsSettings): AppPayments {
  return {
    wallet: walletKeys(platform, p),
    push: p.pushToken && (platform === "wechat" || platform === "douyin") ? { token: p.pushToken, encodingAesKey: platform === "wechat" ? p.pushAesKey : undefined } : undefined,
  };
}

/** The default app's payment settings per platform, from the environment. */
function defaultAppPayments(s: PaymentsSettings): Record<string, AppPaymentsSettings> {
  return {
    wechat: {
      env: s.WECHAT_PAY_ENV,
      offerId: s.WECHAT_PAY_OFFER_ID,
      zoneId: s.WECHAT_PAY_ZONE_ID,
      appKey: s.WECHAT_PAY_APP_KEY,
      sandboxAppKey: s.WECHAT_PAY_SANDBOX_APP_KEY,
      pushToken: s.WECHAT_PUSH_TOKEN,
      pushAesKey: s.WECHAT_PUSH_AES_KEY,
    },
    douyin: { env: s.DOUYIN_PAY_ENV, zoneId: s.DOUYIN_PAY_ZONE_ID, appKey: s.DOUYIN_PAY_SECRET, pushToken: s.DOUYIN_PUSH_TOKEN },
  };
}

export function paymentsConfig(s: PaymentsSettings) {
  return {
    payments: {
      /** The default app's payment settings per platform, as set (other apps: their APPS_FILE entry's `payments`). */
      defaultApp: defaultAppPayments(s),
      douyinWalletBaseUrl: s.DOUYIN_WALLET_API_BASE_URL?.replace(/\/+$/, ""),
      reconcileIntervalSec: s.PAYMENT_RECONCILE_INTERVAL_SEC,
      deliveryLeaseMs: s.PAYMENT_DELIVERY_LEASE_MS,
      settleAfterMs: s.PAYMENT_SETTLE_AFTER_MS,
      crashPoint: s.PAYMENT_CRASH_POINT,
    },
  };
}

/**
 * An app's payment settings with the simulator's keys filling what is unset: with the embedded
 * simulator, payments work out of the box (sandbox) for every app.
 */
export function withSimulatorKeys(platform: string, appId: string, p: AppPaymentsSettings | undefined): AppPaymentsSettings {
  const sim = simulatorPaymentKeys(platform, appId);
  const given = p ?? { env: "sandbox", zoneId: "1" };
  return {
    ...given,
    offerId: given.offerId ?? sim.offerId,
    appKey: given.appKey ?? sim.appKey,
    sandboxAppKey: given.sandboxAppKey ?? sim.sandboxAppKey,
    pushToken: given.pushToken ?? sim.pushToken,
    pushAesKey: given.pushAesKey ?? sim.pushEncodingAesKey,
  };
}

/** Production: no crash point; no key that is a placeholder (the file's apps are checked by the caller with `appPaymentSecrets`). */
export function paymentProductionProblems(s: PaymentsSettings, isPlaceholder: (value: string) => boolean): SettingProblem[] {
  const problems: SettingProblem[] = [];
  if (s.PAYMENT_CRASH_POINT) problems.push({ key: "PAYMENT_CRASH_POINT", message: "is for fault tests only; not allowed in production" });
  const secrets = ["WECHAT_PAY_APP_KEY", "WECHAT_PAY_SANDBOX_APP_KEY", "WECHAT_PUSH_TOKEN", "DOUYIN_PAY_SECRET", "DOUYIN_PUSH_TOKEN", "WECHAT_PAY_OFFER_ID"] as const;
  for (const name of secrets) {
    const value = s[name];
    if (value && isPlaceholder(value)) problems.push({ key: name, message: "still a placeholder" });
  }
  return problems;
}

/** Every key of an APPS_FILE entry's payments, named `<app>.<platform>.payments.<field>`, for the placeholder rule. */
export function appPaymentSecrets(where: string, p: AppPaymentsSettings | undefined): Array<{ where: string; value: string }> {
  if (!p) return [];
  return (["offerId", "appKey", "sandboxAppKey", "pushToken", "adToken", "giftPushToken"] as const)
    .filter((field) => p[field] !== undefined)
    .map((field) => ({ where: `${where}.payments.${field}`, value: p[field] as string }));
}

/**
 * The runtime's own payment UI: WeChat's and QQ's `requestMidasPayment`, Douyin's
 * `requestGamePayment`. The game passes the options its platform documents (mode, env, offerId,
 * currencyType, buyQuantity, zoneId, and for an item purchase its outTradeNo and item fields); the
 * client only opens the UI and turns the callbacks into a promise. The purchase itself reaches the
 * server by the platform's push (docs/payments.md): `GameClient.buyItem` waits for its delivery.
 */
import type { PlatformName } from "./runtime";

export interface PaymentUiApi {
  requestMidasPayment?(options: { success?(result?: unknown): void; fail?(error: { errMsg?: string; errCode?: number }): void } & Record<string, unknown>): unknown;
  requestGamePayment?(options: { success?(result?: unknown): void; fail?(error: { errMsg?: string; errCode?: number }): void } & Record<string, unknown>): unknown;
}

export function openPaymentUi(api: PaymentUiApi, platform: PlatformName, options: Record<string, unknown>): Promise<void> {
  const open = platform === "douyin" ? api.requestGamePayment?.bind(api) : api.requestMidasPayment?.bind(api);
  if (!open) return Promise.reject(new Error(`${platform}: this runtime has no payment UI`));
  return new Promise((resolve, reject) => {
    open({
      ...options,
      success: () => resolve(),
      fail: (error) => reject(Object.assign(new Error(`${platform} payment failed: ${error?.errMsg ?? "unknown"}`), { code: "payment_ui_failed", errCode: error?.errCode })),
    });
  });
}

/** Payment settings that point a server at a running simulator's wallets with the simulator's keys (sandbox). */
import { platformDefinitions } from "../../src/platforms/registry";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";

export function simulatorPaymentEnv(simulatorUrl: string): Record<string, string> {
  const appId = (platform: string) => platformDefinitions.find((p) => p.name === platform)!.simulatorApp.appId;
  const wechat = simulatorPaymentKeys("wechat", appId("wechat"));
  const douyin = simulatorPaymentKeys("douyin", appId("douyin"));
  return {
    WECHAT_PAY_OFFER_ID: wechat.offerId,
    WECHAT_PAY_APP_KEY: wechat.appKey,
    WECHAT_PAY_SANDBOX_APP_KEY: wechat.sandboxAppKey,
    WECHAT_PUSH_TOKEN: wechat.pushToken,
    WECHAT_PUSH_AES_KEY: wechat.pushEncodingAesKey,
    DOUYIN_PAY_SECRET: douyin.appKey,
    DOUYIN_PUSH_TOKEN: douyin.pushToken,
    DOUYIN_WALLET_API_BASE_URL: simulatorUrl,
  };
}

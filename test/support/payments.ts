/** Payment settings that point a server at a running simulator's wallets with the simulator's keys (sandbox). */
import { platformDefinitions } from "../../src/platforms/registry";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "./app-harness";
import type { Backend } from "./backends";

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

/**
 * Inside a describe: a server on `backend` with a standalone simulator and its payment keys, started
 * before the suite and closed after it. `server.h` is the harness once started.
 */
export function paymentServerPerSuite(backend: Backend, env: Record<string, string> = {}): { readonly h: Harness } {
  let harness: Harness | undefined;
  let release: (() => Promise<void>) | undefined;
  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    const simulator = await startSimulator({ port: 0 });
    harness = await startHarness({ simulator, env: { ...prepared.env, ...simulatorPaymentEnv(simulator.url), ...env } });
  });
  after(async () => {
    await harness?.close();
    await harness?.simulator.close();
    await release?.();
  });
  return {
    get h(): Harness {
      if (!harness) throw new Error("the payment server starts in the suite's before hook");
      return harness;
    },
  };
}

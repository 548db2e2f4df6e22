/**
 * The payment keys the simulator issues its apps, as a platform's console would: derived from the
 * platform and app id, so every app has keys of its own (a push signed with another app's key is
 * refused) and a server pointed at the embedded simulator needs no payment settings at all.
 * They are public on purpose: they open nothing but the simulator.
 */
import crypto from "node:crypto";
import type { PaymentKeys } from "../../core/ports/coin-wallet";

export interface SimulatorPaymentKeys extends Omit<PaymentKeys, "env"> {
  /** The Token the console would show: WeChat's message push, Douyin's payment callback (URL verification and signature). */
  pushToken: string;
  /** Safe mode's EncodingAESKey: 43 base64 characters, the console's shape. */
  pushEncodingAesKey: string;
}

export function simulatorPaymentKeys(platform: string, appId: string): SimulatorPaymentKeys {
  return {
    offerId: `sim-offer-${appId}`,
    zoneId: "1",
    appKey: `sim-${platform}-live-key-${appId}`,
    sandboxAppKey: `sim-${platform}-sandbox-key-${appId}`,
    pushToken: `sim-${platform}-push-token-${appId}`,
    pushEncodingAesKey: crypto.createHash("sha256").update(`sim-${platform}-aes-${appId}`).digest("base64").slice(0, 43),
  };
}

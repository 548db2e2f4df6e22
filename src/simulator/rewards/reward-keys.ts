/**
 * The reward keys the simulator issues its apps, as the platforms' consoles would (the ad console's
 * Token and EncodingAESKey, the message push's): derived from the platform and app id, so every app
 * has keys of its own and a server on the embedded simulator needs no reward settings. They open
 * nothing but the simulator.
 */
import crypto from "node:crypto";
import type { AppRewardKeys } from "../../config/settings/rewards";

const aes = (seed: string) => crypto.createHash("sha256").update(seed).digest("base64").slice(0, 43);

export function simulatorRewardKeys(platform: string, appId: string): Required<AppRewardKeys> {
  return {
    adToken: `sim-${platform}-ad-token-${appId}`,
    adAesKey: aes(`sim-${platform}-ad-aes-${appId}`),
    giftPushToken: `sim-${platform}-gift-token-${appId}`,
    giftPushAesKey: aes(`sim-${platform}-gift-aes-${appId}`),
  };
}

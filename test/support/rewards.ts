/** Reward settings that give a server the simulator's ad-callback and gift-push keys (the simulator's apps). */
import { platformDefinitions } from "../../src/platforms/registry";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";

export function simulatorRewardEnv(): Record<string, string> {
  const appId = (platform: string) => platformDefinitions.find((p) => p.name === platform)!.simulatorApp.appId;
  const wechat = simulatorRewardKeys("wechat", appId("wechat"));
  const douyin = simulatorRewardKeys("douyin", appId("douyin"));
  return {
    WECHAT_AD_TOKEN: wechat.adToken,
    WECHAT_AD_AES_KEY: wechat.adAesKey,
    WECHAT_GIFT_PUSH_TOKEN: wechat.giftPushToken,
    WECHAT_GIFT_PUSH_AES_KEY: wechat.giftPushAesKey,
    DOUYIN_GIFT_PUSH_TOKEN: douyin.giftPushToken,
  };
}

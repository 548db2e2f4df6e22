import { douyinPlatform } from "./douyin/douyin-platform";
import type { PlatformDefinition } from "./platform";
import { wechatPlatform } from "./wechat/wechat-platform";

/** Every supported platform. A new platform is one module plus one line here. */
export const platformDefinitions: readonly PlatformDefinition[] = [wechatPlatform, douyinPlatform];

export function findPlatform(name: string): PlatformDefinition | undefined {
  return platformDefinitions.find((p) => p.name === name);
}

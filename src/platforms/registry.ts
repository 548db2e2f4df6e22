import { douyinPlatform } from "./douyin/douyin-platform";
import { kuaishouPlatform } from "./kuaishou/kuaishou-platform";
import type { PlatformDefinition } from "./platform";
import { qqPlatform } from "./qq/qq-platform";
import { wechatPlatform } from "./wechat/wechat-platform";

/**
 * Every supported platform, one line each. Config, routes, API docs, the simulator, the playground,
 * the test harness and the bench all derive from this list; order decides simulator path prefixes.
 */
export const platformDefinitions: readonly PlatformDefinition[] = [
  wechatPlatform,
  douyinPlatform,
  qqPlatform,
  kuaishouPlatform,
];

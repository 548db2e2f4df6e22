import type { PlatformName, Runtime } from "../runtime";
import { miniGameRuntime, type MiniGameApi, type MiniGameRuntimeOptions } from "./minigame-runtime";

/**
 * Which mini-game API object each platform exposes. Douyin, QQ and Kuaishou runtimes may also
 * define a `wx` alias for compatibility, so `wx` is looked at last.
 */
const PLATFORM_GLOBALS: ReadonlyArray<[PlatformName, string]> = [
  ["douyin", "tt"],
  ["qq", "qq"],
  ["kuaishou", "ks"],
  ["wechat", "wx"],
];

/** The runtime of the mini-game platform we run in, or null outside one (browser, Node). */
export function detectMiniGameRuntime(options: MiniGameRuntimeOptions & { platform?: PlatformName } = {}): Runtime | null {
  const globals = globalThis as unknown as Record<string, MiniGameApi | undefined>;
  for (const [platform, name] of PLATFORM_GLOBALS) {
    if (options.platform && options.platform !== platform) continue;
    const api = globals[name];
    if (api && typeof api.login === "function" && typeof api.connectSocket === "function") return miniGameRuntime(api, platform, options);
  }
  return null;
}

/** What the WeChat and Douyin coin wallets share: how they reach their platform, their clock, reading an amount. */
import { AppError } from "../../core/errors";
import type { Logger } from "../../logging/logger";
import type { PlatformClientDeps } from "../platform";

export interface CoinWalletDeps {
  apiBaseUrl: string;
  timeoutMs: number;
  /** "System busy" (-1) retries; safe for every wallet call, as each repeats the same bill number. */
  busyRetries: number;
  retryDelayMs?: (attempt: number) => number;
  logger: Logger;
  /** Seconds clock for `ts`; tests pin it. */
  nowSec?: () => number;
}

/** callPlatformApi reads only the base URL, the timeout and the retry settings; the app comes with each call. */
export function coinWalletHttp(deps: CoinWalletDeps): PlatformClientDeps {
  return {
    settings: { appId: "", appSecret: "", apiBaseUrl: deps.apiBaseUrl, extra: {} },
    timeoutMs: deps.timeoutMs,
    busyRetries: deps.busyRetries,
    retryDelayMs: deps.retryDelayMs,
    logger: deps.logger,
  };
}

export const unixSeconds = (): number => Math.floor(Date.now() / 1000);

/** An amount in a platform's answer; anything else is the platform failing us, not the player. */
export function walletInteger(value: unknown, platform: string): number {
  if (typeof value !== "number" || !Number.isInteger(value)) throw new AppError("platform_unavailable", { data: { platform, reason: "malformed_response" } });
  return value;
}

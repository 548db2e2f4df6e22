/**
 * Every process's platform clients, built alike by the servers (container.ts) and the admin CLI
 * (admin-context.ts): one client and one social client per app and served platform, each carrying
 * that app's credentials, and the options of the token service over them.
 */
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import type { Logger } from "../logging/logger";
import { instrumentPlatformClient } from "../observability/instrumented-platform-client";
import type { Metrics } from "../observability/metrics";
import { platformDefinitions } from "../platforms/registry";
import { PlatformApps, type PlatformApp } from "../services/platform-apps";
import type { PlatformTokenServiceOptions } from "../services/platform-token-service";
import { AppSocialClients } from "./social-wiring";

export interface PlatformClientOptions {
  /** Per-app platform call metrics (the servers'); the admin CLI has none. */
  metrics?: Metrics;
  /** Delay between platform "busy" retries; tests shorten it. */
  retryDelayMs?: (attempt: number) => number;
}

/** `apps` as this process calls them: the settings' own, or pointed at the embedded simulator. */
export function buildPlatformClients(
  config: AppConfig,
  apps: readonly AppSettings[],
  logger: Logger,
  options: PlatformClientOptions = {},
): { platformApps: PlatformApps; socialClients: AppSocialClients } {
  const enabled = platformDefinitions.filter((d) => d.name in config.platforms);
  const entries: PlatformApp[] = [];
  const socialClients = new AppSocialClients();
  for (const { key: app, platforms } of apps) {
    for (const definition of enabled) {
      const settings = platforms[definition.name];
      if (!settings) continue;
      const deps = { settings, timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger, retryDelayMs: options.retryDelayMs };
      const client = definition.createClient(deps);
      socialClients.add(definition, app, deps);
      entries.push({ app, appId: settings.appId, definition, client: options.metrics ? instrumentPlatformClient(client, app, options.metrics) : client });
    }
  }
  return { platformApps: new PlatformApps(entries, config.apps.map((a) => a.key)), socialClients };
}

/** A platform token is refreshed ahead of its expiry; a process waits for another's fetch at most as long as that fetch may take. */
export function platformTokenOptions(config: AppConfig): Pick<PlatformTokenServiceOptions, "refreshMarginSec" | "lockWaitMs"> {
  return {
    refreshMarginSec: config.platformTokenRefreshMarginSec,
    lockWaitMs: config.platformTimeoutMs * (config.platformBusyRetries + 1) + 2000,
  };
}

/**
 * `npm run admin -- orders | refund | grant`: a player's orders, a refund through the platform's
 * cancel, a grant of coins, through the same payment services, keys and shared caches as the servers.
 * Refunds and grants sign with the player's kept session key and use the shared platform token: with
 * the in-memory cache both live inside the server process, so they need Redis (session_key_missing otherwise).
 */
import type { AppConfig } from "../config/config";
import type { Cache } from "../core/ports/cache";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { Metrics } from "../observability/metrics";
import { platformDefinitions } from "../platforms/registry";
import { buildPaymentServices, type PaymentServices } from "../server/payment-wiring";
import { PlatformApps, type PlatformApp } from "../services/platform-apps";
import { PlatformTokenService } from "../services/platform-token-service";
import { SessionKeyCustody } from "../services/session-key-custody";

export async function openAdminPayments(config: AppConfig, store: UserStore, cache: Cache, logger: Logger): Promise<PaymentServices> {
  const enabled = platformDefinitions.filter((d) => d.name in config.platforms);
  const entries: PlatformApp[] = [];
  for (const { key: app, platforms } of config.apps) {
    for (const definition of enabled) {
      const settings = platforms[definition.name];
      if (!settings) continue;
      const deps = { settings, timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger };
      entries.push({ app, appId: settings.appId, definition, client: definition.createClient(deps) });
    }
  }
  const platformApps = new PlatformApps(entries, config.apps.map((a) => a.key));
  const tokens = new PlatformTokenService(platformApps, cache, logger, {
    refreshMarginSec: config.platformTokenRefreshMarginSec,
    lockWaitMs: config.platformTimeoutMs * (config.platformBusyRetries + 1) + 2000,
  });
  const custody = new SessionKeyCustody(cache, config.jwt.refreshTtlSec);
  return buildPaymentServices({ config, apps: config.apps, platformApps, store, custody, tokens, logger, metrics: new Metrics() });
}

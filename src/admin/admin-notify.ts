/**
 * `npm run admin -- notify`: one subscribe message to a player, through the same service, platform
 * clients and shared token cache as the servers (a cached platform token is reused, not fetched
 * again). With the in-memory cache or the embedded simulator the servers' state is out of reach:
 * the CLI then uses its own token, against the configured platform URLs.
 */
import type { AppConfig } from "../config/config";
import type { Cache } from "../core/ports/cache";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { platformDefinitions } from "../platforms/registry";
import { PlatformApps, type PlatformApp } from "../services/platform-apps";
import { PlatformTokenService } from "../services/platform-token-service";
import { SessionKeyCustody } from "../services/session-key-custody";
import type { SubscribeMessageService } from "../services/social/subscribe-message-service";
import { AppSocialClients, buildSocialServices } from "../server/social-wiring";

export function openSubscribeMessages(config: AppConfig, store: UserStore, cache: Cache, logger: Logger): SubscribeMessageService {
  const enabled = platformDefinitions.filter((d) => d.name in config.platforms);
  const entries: PlatformApp[] = [];
  const socialClients = new AppSocialClients();
  for (const { key: app, platforms } of config.apps) {
    for (const definition of enabled) {
      const settings = platforms[definition.name];
      if (!settings) continue;
      const deps = { settings, timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger };
      entries.push({ app, appId: settings.appId, definition, client: definition.createClient(deps) });
      socialClients.add(definition, app, deps);
    }
  }
  const platformApps = new PlatformApps(entries, config.apps.map((a) => a.key));
  const tokens = new PlatformTokenService(platformApps, cache, logger, {
    refreshMarginSec: config.platformTokenRefreshMarginSec,
    lockWaitMs: config.platformTimeoutMs * (config.platformBusyRetries + 1) + 2000,
  });
  const custody = new SessionKeyCustody(cache, config.jwt.refreshTtlSec);
  return buildSocialServices({ clients: socialClients, platformApps, store, custody, tokens, logger, settings: config.subscribeMessages }).subscribeMessages;
}

/** `--data thing1=Your match is ready` (repeatable) as the template's fields; a problem as text. */
export function parseTemplateData(pairs: readonly string[]): Record<string, string> | string {
  if (pairs.length === 0) return "notify needs at least one --data <field>=<text>";
  const data: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return `--data ${JSON.stringify(pair)}: expected <field>=<text>`;
    data[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  return data;
}

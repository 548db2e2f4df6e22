/**
 * The admin CLI's platform side, built once for its commands: the same clients the servers build
 * (platform-wiring.ts), the token service over the shared cache (a cached platform token is reused,
 * not fetched again) and the players' kept session keys.
 */
import type { AppConfig } from "../config/config";
import type { Cache } from "../core/ports/cache";
import type { Logger } from "../logging/logger";
import { buildPlatformClients, platformTokenOptions } from "../server/platform-wiring";
import type { AppSocialClients } from "../server/social-wiring";
import type { PlatformApps } from "../services/platform-apps";
import { PlatformTokenService } from "../services/platform-token-service";
import { SessionKeyCustody } from "../services/session-key-custody";

export interface AdminPlatforms {
  config: AppConfig;
  platformApps: PlatformApps;
  socialClients: AppSocialClients;
  tokens: PlatformTokenService;
  custody: SessionKeyCustody;
}

export function openAdminPlatforms(config: AppConfig, cache: Cache, logger: Logger): AdminPlatforms {
  const { platformApps, socialClients } = buildPlatformClients(config, config.apps, logger);
  const tokens = new PlatformTokenService(platformApps, cache, logger, platformTokenOptions(config));
  return { config, platformApps, socialClients, tokens, custody: new SessionKeyCustody(cache, config.jwt.refreshTtlSec) };
}

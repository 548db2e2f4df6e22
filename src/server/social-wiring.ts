/**
 * The social services' part of the composition root (container.ts, admin-context.ts): one social
 * client per (platform, app) beside that app's platform client, and the two services over them.
 */
import type { AppConfig } from "../config/config";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { PlatformClientDeps, PlatformDefinition } from "../platforms/platform";
import type { SocialClient } from "../platforms/social-port";
import type { PlatformApps } from "../services/platform-apps";
import type { PlatformTokenService } from "../services/platform-token-service";
import type { SessionKeyCustody } from "../services/session-key-custody";
import { StoredPlayerOpenids } from "../services/social/player-openids";
import { PlayerStorageService } from "../services/social/player-storage-service";
import type { SocialClients } from "../services/social/social-ports";
import { SubscribeMessageService, type SubscribeMetrics } from "../services/social/subscribe-message-service";

/** Every app's social client, for the platforms whose module has one. */
export class AppSocialClients implements SocialClients {
  private readonly byKey = new Map<string, { client: SocialClient; appId: string }>();

  /** Called with the same deps (credentials, base URL, timeouts) the app's platform client got. */
  add(definition: PlatformDefinition, app: string, deps: PlatformClientDeps): void {
    if (definition.social) this.byKey.set(`${definition.name}\0${app}`, { client: definition.social.createClient(deps), appId: deps.settings.appId });
  }

  find(platform: string, app: string): { client: SocialClient; appId: string } | undefined {
    return this.byKey.get(`${platform}\0${app}`);
  }
}

import type { SocialServices } from "../services/service-groups";
export type { SocialServices };

export function buildSocialServices(input: {
  clients: AppSocialClients;
  platformApps: PlatformApps;
  store: Pick<UserStore, "findById" | "listIdentities">;
  custody: SessionKeyCustody;
  tokens: PlatformTokenService;
  logger: Logger;
  settings: AppConfig["subscribeMessages"];
  metrics?: SubscribeMetrics;
  now?: () => number;
}): SocialServices {
  const { clients, platformApps, custody, tokens, logger } = input;
  const namespaceOf = (platform: string, app: string) => {
    const entry = platformApps.find(platform, app);
    return entry && platformApps.namespaceOf(entry);
  };
  return {
    playerStorage: new PlayerStorageService(clients, custody, tokens, logger, input.now),
    subscribeMessages: new SubscribeMessageService(clients, new StoredPlayerOpenids(input.store, custody, namespaceOf), tokens, logger, {
      ...input.settings,
      metrics: input.metrics,
    }),
  };
}

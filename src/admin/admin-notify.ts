/**
 * `npm run admin -- notify`: one subscribe message to a player, through the same service, platform
 * clients and shared token cache as the servers (a cached platform token is reused, not fetched
 * again). With the in-memory cache or the embedded simulator the servers' state is out of reach:
 * the CLI then uses its own token, against the configured platform URLs.
 */
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { SubscribeMessageService } from "../services/social/subscribe-message-service";
import { buildSocialServices } from "../server/social-wiring";
import type { AdminPlatforms } from "./admin-platforms";

export function openSubscribeMessages(platforms: AdminPlatforms, store: UserStore, logger: Logger): SubscribeMessageService {
  const { config, platformApps, socialClients, custody, tokens } = platforms;
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

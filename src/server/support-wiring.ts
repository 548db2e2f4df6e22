/**
 * The customer-service desk's part of the composition root (container.ts): its store, the player
 * lookups by openid, and the platforms' send calls (WeChat's custom/send, Douyin's reply_user_text; docs/growth.md).
 */
import type { AppConfig } from "../config/config";
import type { AppSettings } from "../config/settings/apps";
import { createSupportStore } from "../adapters/store/create-support-store";
import { AppError } from "../core/errors";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { sendCustomerServiceText } from "../platforms/wechat/wechat-support";
import { sendDouyinSupportText } from "../platforms/douyin/douyin-support";
import { SupportDesk } from "../services/growth/support-desk";
import type { PlatformApps } from "../services/platform-apps";
import type { SessionKeyCustody } from "../services/session-key-custody";
import { StoredPlayerOpenids } from "../services/social/player-openids";
import type { AppTokens } from "../services/social/social-ports";

export interface SupportWiringInput {
  config: AppConfig;
  apps: readonly AppSettings[];
  platformApps: PlatformApps;
  store: Pick<UserStore, "findByIdentity" | "findById" | "listIdentities">;
  custody: Pick<SessionKeyCustody, "read">;
  tokens: AppTokens;
  logger: Logger;
  now?: () => number;
}

export async function buildSupportDesk(input: SupportWiringInput): Promise<SupportDesk> {
  const { config, platformApps, logger } = input;
  const namespaceOf = (platform: string, app: string) => {
    const entry = platformApps.find(platform, app);
    return entry && platformApps.namespaceOf(entry);
  };
  const openids = new StoredPlayerOpenids(input.store, input.custody, namespaceOf);
  return new SupportDesk({
    store: await createSupportStore(config.store),
    userIdFor: async (platform, app, openid) => {
      const namespace = namespaceOf(platform, app);
      const user = namespace ? await input.store.findByIdentity({ platform: namespace, platformId: openid }) : null;
      return user?.id;
    },
    openidOf: async (platform, app, userId) => (namespaceOf(platform, app) ? ((await openids.openidOf(platform, app, userId)) ?? "") : ""),
    send: async (platform, app, openid, text, reply) => {
      const settings = input.apps.find((a) => a.key === app)?.platforms[platform];
      if (!settings || (platform !== "wechat" && platform !== "douyin")) throw new AppError("growth_unsupported", { data: { reason: `no_${platform}_support_reply` } });
      const deps = { settings, timeoutMs: config.platformTimeoutMs, busyRetries: config.platformBusyRetries, logger };
      if (platform === "wechat") {
        await input.tokens.withPlatformToken("wechat", app, (accessToken) => sendCustomerServiceText(deps, { accessToken, openid, text }));
        return;
      }
      const conversationId = reply.to.conversationId;
      if (!conversationId) throw new AppError("support_conversation_not_found");
      const nowSec = Math.floor((input.now ?? Date.now)() / 1000);
      await input.tokens.withPlatformToken("douyin", app, (accessToken) => sendDouyinSupportText(deps, { accessToken, conversationId, messageId: reply.messageId, text, nowSec }));
    },
    logger,
    now: input.now,
  });
}

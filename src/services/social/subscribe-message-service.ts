import { AppError } from "../../core/errors";
import type { Logger } from "../../logging/logger";
import type { MiniprogramState } from "../../platforms/social-port";
import type { AppTokens, PlayerOpenids, SocialClients } from "./social-ports";

export interface SubscribeRequest {
  templateId: string;
  page?: string;
  /** Template field → text. */
  data: Record<string, string>;
}

/** How a send ended, as counted: sent, or what kept it from the player. */
export type SubscribeResult = "sent" | "not_granted" | "invalid" | "rate_limited" | "failed";

export interface SubscribeMetrics {
  subscribeMessageSent(platform: string, result: SubscribeResult): void;
}

export interface SubscribeOptions {
  /** Which build of the game the message opens (SUBSCRIBE_MESSAGE_STATE). */
  state: MiniprogramState;
  /** The language of the message's "open the game" line (SUBSCRIBE_MESSAGE_LANG). */
  lang: string;
  metrics?: SubscribeMetrics;
}

const RESULT_OF: Partial<Record<string, SubscribeResult>> = {
  subscribe_not_granted: "not_granted",
  subscribe_invalid: "invalid",
  platform_rate_limited: "rate_limited",
};

/**
 * Subscribe messages ("your match is ready"): one per grant the player gave in the game
 * (`requestSubscribe`). Used by rooms, the admin CLI and the studio's internal route. The platform's
 * answers are mapped so callers can act: no unused grant → 409 `subscribe_not_granted` (the game asks
 * again; retrying cannot help), a template or data the platform refuses → 422 `subscribe_invalid` (an
 * operator's mistake), quota → 429. Every send is counted by result and logged without its text.
 */
export class SubscribeMessageService {
  constructor(
    private readonly clients: SocialClients,
    private readonly openids: PlayerOpenids,
    private readonly tokens: AppTokens,
    private readonly logger: Logger,
    private readonly options: SubscribeOptions,
  ) {}

  /**
   * For rooms, which know the player's app (`client.auth.app`) but not their platform: the platform of
   * their latest login on that app. Without a kept login there is no grant to use: 409 subscribe_not_granted.
   */
  async sendToPlayer(app: string, userId: string, request: SubscribeRequest): Promise<{ sent: true }> {
    const platform = await this.openids.latestPlatform(userId, app);
    if (!platform) throw new AppError("subscribe_not_granted", { data: { reason: "no_kept_login" } });
    return this.send(platform, app, userId, request);
  }

  /** `app` is our key of the app; the message goes to the player's openid on that app. */
  async send(platform: string, app: string, userId: string, request: SubscribeRequest): Promise<{ sent: true }> {
    const found = this.clients.find(platform, app);
    const send = found?.client.sendSubscribeMessage?.bind(found.client);
    if (!found || !send) throw new AppError("route_not_found", { message: `${platform} has no subscribe messages` });
    const openid = await this.openids.openidOf(platform, app, userId);
    if (openid === null) throw new AppError("user_disabled", { message: "No such user" });
    let result: SubscribeResult = "failed";
    try {
      // Without an openid on this app the player cannot have granted anything there.
      if (!openid) throw new AppError("subscribe_not_granted", { data: { platform, reason: "no_platform_identity" } });
      const message = { ...request, state: this.options.state, lang: this.options.lang };
      await this.tokens.withPlatformToken(platform, app, (accessToken) => send({ accessToken, appId: found.appId, openid, message }));
      result = "sent";
      return { sent: true };
    } catch (err) {
      if (err instanceof AppError) result = RESULT_OF[err.code] ?? "failed";
      throw err;
    } finally {
      this.options.metrics?.subscribeMessageSent(platform, result);
      this.logger.info({ event: "subscribe_message", platform, app, userId, templateId: request.templateId, result }, "subscribe message");
    }
  }
}

/**
 * Gift packs the platforms deliver (WeChat's `minigame_deliver_goods`, Douyin's gift push and
 * gift codes), granted once per delivery through the RewardGranter: WeChat's keyed by its OrderId
 * (source gift_pack), Douyin's by the gift code (source gift_code), so a code that arrives both
 * pushed and redeemed grants once. What a pack grants is the catalog's, never the push's list.
 */
import type { RewardGrantResult, RewardGranter, RewardSource } from "../../core/ports/reward-grants";
import type { Logger } from "../../logging/logger";
import type { PlayerLookup } from "./ad-rewards";
import type { RewardCatalog } from "./reward-catalog";

export interface GiftRewardDeps {
  rewards: RewardGranter;
  catalog: RewardCatalog;
  userIdFor: PlayerLookup;
  logger: Logger;
  crashPoint?: (step: "before_gift_granted") => void;
}

export interface GiftDeliveryInput {
  platform: string;
  /** Our app's key. */
  app: string;
  openid: string;
  giftId: string;
  /** The platform's unique id of this delivery: WeChat's OrderId, Douyin's gift code. */
  deliveryId: string;
}

export type GiftOutcome = { delivered: true; result: RewardGrantResult } | { delivered: false; reason: "unknown_gift" | "unknown_player" };

export class GiftRewards {
  constructor(private readonly deps: GiftRewardDeps) {}

  async deliver(input: GiftDeliveryInput): Promise<GiftOutcome> {
    if (!(await this.packOf(input.platform, input.app, input.giftId))) return { delivered: false, reason: "unknown_gift" };
    const userId = await this.deps.userIdFor(input.platform, input.app, input.openid);
    if (!userId) return { delivered: false, reason: "unknown_player" };
    return this.grantPack({ platform: input.platform, app: input.app, userId, giftId: input.giftId, deliveryId: input.deliveryId });
  }

  /** Grants the catalog's pack `giftId` to a known player once per delivery id (a redeemed code's path too). */
  async grantPack(input: { platform: string; app: string; userId: string; giftId: string; deliveryId: string }): Promise<GiftOutcome> {
    const pack = await this.packOf(input.platform, input.app, input.giftId);
    if (!pack) return { delivered: false, reason: "unknown_gift" };
    const source: RewardSource = input.platform === "douyin" ? "gift_code" : "gift_pack";
    this.deps.crashPoint?.("before_gift_granted");
    const result = await this.deps.rewards.grant({ appId: input.app, userId: input.userId, source, sourceId: input.deliveryId, ...pack.grants, reason: `gift ${pack.giftId}` });
    return { delivered: true, result };
  }

  private async packOf(platform: string, app: string, giftId: string) {
    const pack = giftId ? await this.deps.catalog.giftPack(app, giftId) : undefined;
    if (!pack) this.deps.logger.warn({ event: "gift_unknown", platform, app, giftId }, "a gift delivery names no gift pack of the catalog; it was not granted");
    return pack;
  }
}

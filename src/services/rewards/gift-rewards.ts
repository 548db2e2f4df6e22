/**
 * Gift packs the platforms deliver (WeChat's `minigame_deliver_goods`, Douyin's gift push and
 * gift codes), granted once per delivery through the RewardGranter: WeChat's keyed by its OrderId
 * (source gift_pack), Douyin's by the gift code (source gift_code), so a code that arrives both
 * pushed and redeemed grants once. What a pack grants is the catalog's, never the push's list.
 */
import { AppError } from "../../core/errors";
import { boosted } from "../economy/offers";
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

/** `granted_to_another_player`: this delivery id was granted already, to someone else (a forged or corrupt push): nothing more to do. */
export type GiftOutcome = { delivered: true; result: RewardGrantResult } | { delivered: false; reason: "unknown_gift" | "unknown_player" | "granted_to_another_player" };

export class GiftRewards {
  /** The player's gift-pack multiplier now (a live event's); 1 when LiveOps is not wired. */
  boost: (app: string, userId: string) => Promise<{ factor: number; eventId?: string }> = async () => ({ factor: 1 });

  constructor(private readonly deps: GiftRewardDeps) {}

  async deliver(input: GiftDeliveryInput): Promise<GiftOutcome> {
    if (!(await this.packOf(input.platform, input.app, input.giftId))) return { delivered: false, reason: "unknown_gift" };
    const userId = await this.deps.userIdFor(input.platform, input.app, input.openid);
    if (!userId) return { delivered: false, reason: "unknown_player" };
    try {
      return await this.grantPack({ platform: input.platform, app: input.app, userId, giftId: input.giftId, deliveryId: input.deliveryId });
    } catch (err) {
      // The ledger keeps one grant per delivery id: another player holds this one. Asking again never changes that.
      if (err instanceof AppError && err.code === "source_conflict") return { delivered: false, reason: "granted_to_another_player" };
      throw err;
    }
  }

  /** Grants the catalog's pack `giftId` to a known player once per delivery id (a redeemed code's path too). */
  async grantPack(input: { platform: string; app: string; userId: string; giftId: string; deliveryId: string }): Promise<GiftOutcome> {
    const pack = await this.packOf(input.platform, input.app, input.giftId);
    if (!pack) return { delivered: false, reason: "unknown_gift" };
    const source: RewardSource = input.platform === "douyin" ? "gift_code" : "gift_pack";
    this.deps.crashPoint?.("before_gift_granted");
    const { factor, eventId } = await this.boost(input.app, input.userId);
    const result = await this.deps.rewards.grant({ appId: input.app, userId: input.userId, source, sourceId: input.deliveryId, ...boosted(pack.grants, factor), reason: `gift ${pack.giftId}`, ...(eventId ? { liveEvent: eventId } : {}) });
    return { delivered: true, result };
  }

  private async packOf(platform: string, app: string, giftId: string) {
    const pack = giftId ? await this.deps.catalog.giftPack(app, giftId) : undefined;
    if (!pack) this.deps.logger.warn({ event: "gift_unknown", platform, app, giftId }, "a gift delivery names no gift pack of the catalog; it was not granted");
    return pack;
  }
}

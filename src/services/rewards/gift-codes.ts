/**
 * Gift codes a player brings (Douyin's live-room lucky bags and paid packs): the platform confirms the
 * code for this player (douyin-gift-code.ts), then the catalog's pack is granted through the same
 * GiftRewards path as the gift push, keyed (gift_code, the code), so a code lands once whether it was
 * pushed, redeemed, or both, and whatever the replays.
 *
 * The ledger entry is the claim: a code already granted answers from it without asking Douyin (a late
 * replay, another player's try). Concurrent first tries all ask Douyin with the same uuid (the same
 * redemption to Douyin) and race to the one insert that grants. A crash between Douyin's answer and the
 * grant is finished by the player's retry: same uuid, same answer, then the grant (see the module's
 * unconfirmed reading of the uuid).
 */
import { AppError } from "../../core/errors";
import type { RewardGrantResult } from "../../core/ports/reward-grants";
import type { Logger } from "../../logging/logger";
import { giftCodeUuid, type RedeemedGiftCode } from "../../platforms/douyin/douyin-gift-code";
import type { GiftRewards } from "./gift-rewards";

/** Douyin's side, per app of ours (the wiring holds the clients and tokens). */
export interface GiftCodeRedeemer {
  /** Whether the app is on Douyin here. */
  serves(app: string): boolean;
  redeem(app: string, call: { code: string; openid: string; uuid: string; envType?: string }): Promise<RedeemedGiftCode>;
}

export interface GiftCodeDeps {
  gifts: Pick<GiftRewards, "grantPack">;
  redeemer: GiftCodeRedeemer;
  /** The player's Douyin openid on the app: "" when they have none there, null when there is no such user. */
  openidOf(app: string, userId: string): Promise<string | null>;
  /** The grant recorded for (app, gift_code, code), if any: whose, its pack, and the balances it left. */
  recorded(app: string, code: string): Promise<{ userId: string; giftId: string | null; result: Omit<RewardGrantResult, "granted"> } | undefined>;
  logger: Logger;
}

export interface GiftCodeResult extends RewardGrantResult {
  code: string;
  /** The catalog pack the code granted (null for a grant whose pack the ledger does not name). */
  giftId: string | null;
}

export class GiftCodes {
  constructor(private readonly deps: GiftCodeDeps) {}

  serves(app: string): boolean {
    return this.deps.redeemer.serves(app);
  }

  async redeem(app: string, userId: string, code: string, envType?: string): Promise<GiftCodeResult> {
    const earlier = await this.replay(app, userId, code);
    if (earlier) return earlier;
    if (!this.serves(app)) throw new AppError("gift_codes_unsupported", { data: { reason: "app_not_on_douyin" } });
    const openid = await this.deps.openidOf(app, userId);
    if (openid === null) throw new AppError("user_disabled", { message: "No such user" });
    if (!openid) throw new AppError("gift_codes_unsupported", { data: { reason: "no_douyin_login" } });
    let confirmed: RedeemedGiftCode;
    try {
      confirmed = await this.deps.redeemer.redeem(app, { code, openid, uuid: giftCodeUuid(app, openid, code), envType });
    } catch (err) {
      // "Already redeemed" may be our own concurrent try that has granted meanwhile: answer from the ledger then.
      if (err instanceof AppError && err.code === "gift_code_used") {
        const late = await this.replay(app, userId, code);
        if (late) return late;
        this.deps.logger.warn({ event: "gift_code_used", app, userId }, "Douyin says this gift code was redeemed already, and no grant of it is recorded here");
      }
      throw err;
    }
    const outcome = await this.deps.gifts.grantPack({ platform: "douyin", app, userId, giftId: confirmed.giftId, deliveryId: code });
    if (!outcome.delivered) {
      // Redeemed at Douyin, not granted: the operator adds the pack, the player's retry (same uuid) grants it.
      this.deps.logger.error({ event: "gift_code_pack_unknown", app, userId, giftId: confirmed.giftId }, "Douyin confirmed a gift code whose pack the catalog lacks; add it and the player's retry grants it");
      throw new AppError("gift_pack_unknown", { data: { giftId: confirmed.giftId } });
    }
    return { code, giftId: confirmed.giftId, ...outcome.result };
  }

  private async replay(app: string, userId: string, code: string): Promise<GiftCodeResult | undefined> {
    const found = await this.deps.recorded(app, code);
    if (!found) return undefined;
    if (found.userId !== userId) throw new AppError("gift_code_used", { data: {} });
    return { code, giftId: found.giftId, granted: false, ...found.result };
  }
}

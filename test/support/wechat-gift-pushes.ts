/**
 * WeChat gift pushes as the platform sends them in safe mode (the only mode the server reads), signed
 * with the simulator's keys of `appId`, for suites that post them directly: `query` goes after `?`.
 * Each call seals anew (a fresh random prefix inside `Encrypt`), so a replay is the same result sent again.
 */
import crypto from "node:crypto";
import { GIFT_EVENT } from "../../src/platforms/wechat/wechat-gift-push";
import { sealPush } from "../../src/platforms/wechat/wechat-push";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";

export interface GiftPushFields {
  orderId: string;
  openid: string;
  giftId: string;
}

export function giftEvent(fields: GiftPushFields): string {
  return JSON.stringify({ MsgType: "event", Event: GIFT_EVENT, MiniGame: { OrderId: fields.orderId, IsPreview: 0, ToUserOpenid: fields.openid, GiftId: fields.giftId, GoodsList: [] } });
}

export function sealedGiftPush(appId: string, fields: GiftPushFields, options: { timestampSec?: number; nonce?: string } = {}): { query: string; body: string } {
  const keys = simulatorRewardKeys("wechat", appId);
  const timestamp = String(options.timestampSec ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? crypto.randomBytes(6).toString("hex");
  const { query, body } = sealPush({ token: keys.giftPushToken, encodingAesKey: keys.giftPushAesKey }, appId, giftEvent(fields), timestamp, nonce);
  return { query: query.toString(), body };
}

/**
 * The reward sources' platform callbacks, mounted at `/minigame` before the JSON parser (each reads
 * its own body and answers in its platform's shape, not our envelope):
 *   GET|POST /wechat/ad-reward   WeChat's rewarded-ad server-side verification (wechat-ad-reward.ts)
 *   GET|POST /wechat/gift-push   WeChat's message push: gift packs (wechat-gift-push.ts) and customer-service
 *                                messages (wechat-support.ts; the console's one message-push URL serves both)
 *   POST     /douyin/gift-push   Douyin's message push: gift packs by gift code (douyin-gift.ts) and
 *                                customer-service messages (douyin-support.ts)
 * The app is the one whose Token verifies the signature, so one URL serves every app. A refusal
 * (forged, stale, another app's, malformed, a WeChat gift push in plain mode, a replayed query) records
 * nothing; each is logged and counted.
 */
import express, { Router, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import { adCallbackFields, readAdCallback, verifiesAdUrl, signedAdCallback } from "../platforms/wechat/wechat-ad-reward";
import { GIFT_UNKNOWN_PLAYER_SUBCODE, readGiftPush } from "../platforms/wechat/wechat-gift-push";
import { verifiesUrl } from "../platforms/wechat/wechat-push";
import { pushHeaders, readDouyinPush, signedPush } from "../platforms/douyin/douyin-gift";
import { parseJsonObject } from "../platforms/shared/json-object";
import type { AdRewards, RewardApp } from "../services/rewards/ad-rewards";
import type { GiftRewards } from "../services/rewards/gift-rewards";
import type { PushNonces } from "../services/push-nonces";
import type { SupportDesk } from "../services/growth/support-desk";
import { DOUYIN_SUPPORT_MSG_TYPE, readDouyinSupportPush } from "../platforms/douyin/douyin-support";

export type { RewardApp };


export interface RewardPushDeps {
  platforms: readonly { name: string }[];
  rewardApps(platform: string): RewardApp[];
  ads: AdRewards;
  gifts: GiftRewards;
  /** Customer-service messages arriving on WeChat's message push; absent: acknowledged, not kept. */
  support?: Pick<SupportDesk, "received">;
  /** The (timestamp, nonce) pairs seen on WeChat's message push, across processes. */
  nonces: PushNonces;
  logger: Logger;
  /** Counts a push refused or set aside (metrics: platform_pushes_refused_total). */
  refused?: (platform: string, push: "gift", reason: string) => void;
  nowMs?: () => number;
}

const REFUSAL_CODES: Record<string, number> = { bad_signature: 40001, stale_timestamp: 40002, malformed: 40003, wrong_app: 40004, replayed: 40009, unknown_gift: 40010, plain_mode: 40011 };
const DOUYIN_REFUSALS: Record<string, number> = { bad_signature: 401, stale_timestamp: 400, malformed: 400, wrong_app: 400, unknown_gift: 409 };

export function rewardPushRoutes(deps: RewardPushDeps): Router {
  const router = Router();
  const nowMs = deps.nowMs ?? Date.now;
  const served = (name: string) => deps.platforms.some((p) => p.name === name);
  if (served("wechat")) {
    mountWechatAds(router, deps, nowMs);
    mountWechatGifts(router, deps, nowMs);
  }
  if (served("douyin")) mountDouyinGifts(router, deps, nowMs);
  return router;
}

const queryOf = (req: Request) => new URL(req.originalUrl, "http://push.invalid").searchParams;
const bodyText = express.text({ type: () => true, limit: "64kb" });
const textOf = (req: Request) => (typeof req.body === "string" ? req.body : "");

function mountWechatAds(router: Router, deps: RewardPushDeps, nowMs: () => number): void {
  const handle = async (req: Request, res: Response) => {
    const raw = textOf(req);
    const body = parseJsonObject(raw) ?? (raw.includes("=") ? Object.fromEntries(new URLSearchParams(raw)) : undefined);
    const fields = adCallbackFields(queryOf(req), body);
    const invalid = (reason: string, app?: string) => {
      deps.logger.warn({ event: "ad_reward_refused", platform: "wechat", app, reason }, "a rewarded-ad callback was refused");
      res.status(200).json({ is_valid: false });
    };
    if (!fields) return invalid("malformed");
    const apps = deps.rewardApps("wechat").filter((a) => a.ad);
    // The console's URL check: no `encrypt`, answered {"echostr"} (the guide's shape).
    if (!fields.encrypt) {
      const app = apps.find((a) => verifiesAdUrl(a.ad!.token, fields));
      // A URL check no app's Token signs: refused like the payment push's (the console shows the failure).
      if (!app || fields.echostr === undefined) throw new AppError("push_signature_invalid");
      return res.status(200).json({ echostr: fields.echostr });
    }
    const app = apps.find((a) => signedAdCallback(a.ad!.token, fields));
    if (!app) return invalid("bad_signature");
    const outcome = readAdCallback(app.ad!, fields, nowMs());
    if (outcome.kind === "refused") return invalid(outcome.reason, app.app);
    try {
      const result = await deps.ads.verified("wechat", app.app, outcome.reward, Number(fields.timestamp));
      if (!result.valid) deps.logger.info({ event: "ad_reward_not_granted", platform: "wechat", app: app.app, reason: result.reason }, "a verified ad view was not granted");
      res.status(200).json({ is_valid: result.valid, ...(fields.echostr ? { echostr: fields.echostr } : {}) });
    } catch (err) {
      // Not recorded or not granted: no answer in time makes WeChat call again (15 s, 22.5 s, 33.75 s).
      deps.logger.error({ err, event: "ad_reward_not_recorded", platform: "wechat", app: app.app }, "a rewarded-ad callback could not be recorded; WeChat will call again");
      res.status(503).json({ is_valid: false });
    }
  };
  router.get("/wechat/ad-reward", bodyText, handle);
  router.post("/wechat/ad-reward", bodyText, handle);
}

function mountWechatGifts(router: Router, deps: RewardPushDeps, nowMs: () => number): void {
  const reply = (res: Response, errCode: number, errMsg: string, subErrCode?: number) => res.status(200).json({ ErrCode: errCode, ErrMsg: errMsg, ...(subErrCode ? { SubErrCode: subErrCode } : {}) });
  const apps = () => deps.rewardApps("wechat").filter((a) => a.giftPush);
  router.get("/wechat/gift-push", (req: Request, res: Response) => {
    const q = queryOf(req);
    const app = apps().find((a) => verifiesUrl(a.giftPush!.token, q));
    if (!app) throw new AppError("push_signature_invalid");
    res.status(200).type("text/plain").send(q.get("echostr") ?? "");
  });
  router.post("/wechat/gift-push", bodyText, async (req: Request, res: Response) => {
    const q = queryOf(req);
    const refuse = (reason: string, app?: string) => {
      deps.logger.warn({ event: "gift_push_refused", platform: "wechat", app, reason }, "a gift push was refused");
      deps.refused?.("wechat", "gift", reason);
      reply(res, REFUSAL_CODES[reason] ?? 40003, reason);
    };
    const app = apps().find((a) => verifiesUrl(a.giftPush!.token, q));
    if (!app) return refuse("bad_signature");
    const raw = textOf(req);
    const outcome = readGiftPush(app.appId, app.giftPush!, q, raw, Math.floor(nowMs() / 1000));
    if (outcome.kind === "refused") return refuse(outcome.reason, app.app);
    try {
      if (!(await deps.nonces.admit("wechat_gift", app.appId, q.get("timestamp")!, q.get("nonce") ?? "", raw))) return refuse("replayed", app.app);
    } catch (err) {
      deps.logger.error({ err, event: "gift_not_granted", platform: "wechat", app: app.app }, "a gift push could not be checked against replays; WeChat will push it again");
      return reply(res, 1, "internal_error");
    }
    if (outcome.kind === "support") {
      try {
        await deps.support?.received("wechat", app.app, outcome.message);
        return reply(res, 0, "Success");
      } catch (err) {
        deps.logger.error({ err, event: "support_message_not_recorded", platform: "wechat", app: app.app }, "a customer-service message could not be kept; WeChat will push it again");
        return reply(res, 1, "internal_error");
      }
    }
    if (outcome.kind === "other" || outcome.delivery.preview) return reply(res, 0, "Success");
    const { delivery } = outcome;
    try {
      const result = await deps.gifts.deliver({ platform: "wechat", app: app.app, openid: delivery.openid, giftId: delivery.giftId, deliveryId: delivery.orderId });
      if (!result.delivered && result.reason === "granted_to_another_player") {
        // Handled like a duplicate: WeChat would push it again forever, and no answer can change the ledger.
        deps.logger.warn({ event: "gift_push_refused", platform: "wechat", app: app.app, reason: result.reason, orderId: delivery.orderId }, "a gift push names an OrderId already granted to another player; answered as handled, nothing granted");
        deps.refused?.("wechat", "gift", result.reason);
        return reply(res, 0, "Success");
      }
      if (!result.delivered) return result.reason === "unknown_player" ? reply(res, 1, "unknown player", GIFT_UNKNOWN_PLAYER_SUBCODE) : refuse(result.reason, app.app);
      reply(res, 0, "Success");
    } catch (err) {
      deps.logger.error({ err, event: "gift_not_granted", platform: "wechat", app: app.app, orderId: delivery.orderId }, "a gift pack could not be granted; WeChat will push it again");
      reply(res, 1, "internal_error");
    }
  });
}

function mountDouyinGifts(router: Router, deps: RewardPushDeps, nowMs: () => number): void {
  // `success` is what the gift guide's reply shows; err_no/err_tips as the message push's other replies.
  const reply = (res: Response, status: number, errNo: number, errTips: string) => res.status(status).json({ success: status === 200 && errNo === 0, err_no: errNo, err_tips: errTips });
  router.post("/douyin/gift-push", bodyText, async (req: Request, res: Response) => {
    const raw = textOf(req);
    const refuse = (reason: string, app?: string) => {
      deps.logger.warn({ event: "gift_push_refused", platform: "douyin", app, reason }, "a gift push was refused");
      deps.refused?.("douyin", "gift", reason);
      reply(res, DOUYIN_REFUSALS[reason] ?? 400, REFUSAL_CODES[reason] ?? 40003, reason);
    };
    const headers = pushHeaders((name) => req.header(name));
    if (!headers) return refuse("malformed");
    const app = deps.rewardApps("douyin").find((a) => a.giftPush && signedPush(a.giftPush.token, headers, raw));
    if (!app) return refuse("bad_signature");
    const outcome = readDouyinPush(app.appId, app.giftPush!.token, headers, raw, nowMs());
    if (outcome.kind === "refused") return refuse(outcome.reason, app.app);
    if (outcome.kind === "other" && outcome.msgType === DOUYIN_SUPPORT_MSG_TYPE) {
      const message = readDouyinSupportPush(raw);
      if (!message) return refuse("malformed", app.app);
      try {
        await deps.support?.received("douyin", app.app, message);
        return reply(res, 200, 0, "success");
      } catch (err) {
        deps.logger.error({ err, event: "support_message_not_recorded", platform: "douyin", app: app.app }, "a customer-service message could not be kept; Douyin will push it again");
        return reply(res, 500, 1, "internal_error");
      }
    }
    if (outcome.kind !== "gift" || outcome.gift.test) return reply(res, 200, 0, "success");
    const { gift } = outcome;
    try {
      const result = await deps.gifts.deliver({ platform: "douyin", app: app.app, openid: gift.openid, giftId: gift.giftId, deliveryId: gift.giftCode });
      if (!result.delivered && result.reason === "granted_to_another_player") {
        deps.logger.warn({ event: "gift_push_refused", platform: "douyin", app: app.app, reason: result.reason }, "a gift push names a gift code already granted to another player; answered as handled, nothing granted");
        deps.refused?.("douyin", "gift", result.reason);
        return reply(res, 200, 0, "success");
      }
      if (!result.delivered) return result.reason === "unknown_player" ? reply(res, 409, 1, "unknown_player") : refuse(result.reason, app.app);
      reply(res, 200, 0, "success");
    } catch (err) {
      deps.logger.error({ err, event: "gift_not_granted", platform: "douyin", app: app.app }, "a gift code could not be granted; Douyin will push it again");
      reply(res, 500, 1, "internal_error");
    }
  });
}

/**
 * The reward sources as the simulator plays them:
 * - `POST /__simulator/ad-reward {platform, app?, openid, adUnitId, watchId?, transactionId?, notifyUrl?}`:
 *   a player finished a rewarded ad; WeChat's ad server calls the studio's URL with the reward,
 *   encrypted and signed as wechat-ad-reward.ts reads it, and calls again after 15 s, 22.5 s and
 *   33.75 s while no answer comes within 1 s (the guide's schedule). Douyin has no such callback.
 * - `POST /__simulator/gift {platform, app?, openid, giftId, orderId?, notifyUrl?, delivery?, safeMode?}`: a
 *   player claimed a gift pack; WeChat sends `minigame_deliver_goods` on the message push in safe mode
 *   (`safeMode: false`: plain, which the server refuses; wechat-gift-push.ts) until `{"ErrCode":0}`, Douyin its gift push (x-signature, douyin-gift.ts)
 *   until HTTP 200. Both retry schedules are unconfirmed (see the platform modules): WeChat's as one
 *   integration quotes it (2^n minutes, 2 to 1024), Douyin's as its payment callback's. Douyin with
 *   `delivery: "code"` pushes nothing: it issues a gift code for the player (gift-code-sim.ts), which
 *   the server redeems at `/mgplatform/api/gift/receive_reward`; `orderId` picks the code.
 * - `POST /__simulator/support-message {platform, app?, openid, text?, kind?, msgId?, notifyUrl?}`: a player
 *   wrote in the game's customer-service conversation; WeChat sends it on the message push (the gift
 *   push's URL and keys, safe mode) with the gift push's schedule, Douyin as `douyin_microgame_im` on
 *   its message push (x-signature); either opens the reply window the send API checks
 *   (wechat-support-simulator.ts, douyin-support-simulator.ts). `kind` (WeChat): text, image, page, enter.
 * Schedules are multiplied by `retryScale` so tests can compress them. `app` is the platform's app
 * id (default: the platform's simulator app); keys are simulatorRewardKeys(platform, app).
 */
import crypto from "node:crypto";
import { encryptAdReward, adSignature } from "../../platforms/wechat/wechat-ad-reward";
import { GIFT_EVENT } from "../../platforms/wechat/wechat-gift-push";
import { pushSignature, sealPush } from "../../platforms/wechat/wechat-push";
import { signDouyinPush } from "../../platforms/douyin/douyin-gift";
import { DOUYIN_CALLBACK_RETRY_MS } from "../payments/item-purchase-sim";
import { GiftCodeSim } from "./gift-code-sim";
import { simulatorRewardKeys } from "./reward-keys";
import { douyinSupportPushText, supportPushBody } from "./support-push";
import { DOUYIN_SUPPORT_MSG_TYPE } from "../../platforms/douyin/douyin-support";

export const WECHAT_AD_RETRY_MS: readonly number[] = [15_000, 22_500, 33_750];
export const WECHAT_AD_TIMEOUT_MS = 1_000;
export const WECHAT_GIFT_RETRY_MS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => 2 ** n * 60_000);
const PUSH_TIMEOUT_MS = 5_000;

export interface RewardSimOptions {
  defaultAppId(platform: string): string | undefined;
  /** Where a request without `notifyUrl` is sent: the embedded server's own route (`ad-reward`, `gift-push`). */
  defaultUrl?: (platform: string, route: "ad-reward" | "gift-push") => string | undefined;
  retryScale?: number;
  now?: () => number;
}

/** One simulated delivery: how many times it was sent and whether one was answered success. */
export interface RewardDelivery {
  kind: "ad" | "gift" | "support";
  platform: string;
  appId: string;
  id: string;
  attempts: number;
  acknowledged: boolean;
  /** WeChat's answer to an ad callback: whether the studio judged the reward valid. */
  valid?: boolean;
}

type Reply = { status: number; body: Record<string, unknown> };
type Sent = { ok: boolean; valid?: boolean };

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export class RewardSim {
  private readonly deliveries = new Map<string, RewardDelivery>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;
  /** Douyin's gift codes, issued by `gift` with `delivery: "code"` and redeemed at receive_reward. */
  readonly giftCodes: GiftCodeSim;

  constructor(private readonly options: RewardSimOptions) {
    this.now = options.now ?? Date.now;
    this.giftCodes = new GiftCodeSim(this.now);
  }

  adReward(body: Record<string, unknown> | undefined): Reply {
    const bad = (errmsg: string): Reply => ({ status: 400, body: { errcode: 400, errmsg } });
    if (!body) return bad("expected a JSON object");
    if (body.platform === "douyin") return bad("Douyin documents no server-side verification of rewarded ads");
    if (body.platform !== "wechat") return bad("rewarded-ad callbacks are simulated for wechat only");
    const { openid, adUnitId } = body;
    if (typeof openid !== "string" || !openid || typeof adUnitId !== "string" || !ID.test(adUnitId)) return bad("openid and adUnitId are required strings");
    const target = this.target(body, "wechat", "ad-reward");
    if (typeof target === "string") return bad(target);
    const transactionId = typeof body.transactionId === "string" && ID.test(body.transactionId) ? body.transactionId : `sim-ad-${this.now()}-${crypto.randomBytes(6).toString("hex")}`;
    const watchId = typeof body.watchId === "string" && ID.test(body.watchId) ? body.watchId : undefined;
    const keys = simulatorRewardKeys("wechat", target.appId);
    const reward = { transaction_id: transactionId, user_id: openid, reward_item: adUnitId, reward_amount: 1, custom_data: JSON.stringify({ adUnitId, ...(watchId ? { watchId } : {}) }), extra: "" };
    const delivery: RewardDelivery = { kind: "ad", platform: "wechat", appId: target.appId, id: transactionId, attempts: 0, acknowledged: false };
    this.deliveries.set(`ad:${transactionId}`, delivery);
    const send = async (): Promise<Sent> => {
      const timestamp = String(this.now());
      const nonce = String(crypto.randomInt(1e8, 1e9));
      const encrypt = encryptAdReward(keys.adAesKey, reward);
      const payload = { signature: adSignature(keys.adToken, timestamp, nonce, encrypt), timestamp, nonce, encrypt };
      const response = await fetch(target.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload), signal: AbortSignal.timeout(WECHAT_AD_TIMEOUT_MS) });
      const answer = (await response.json().catch(() => undefined)) as { is_valid?: unknown } | undefined;
      return { ok: response.ok && typeof answer?.is_valid === "boolean", valid: answer?.is_valid === true };
    };
    void this.deliver(delivery, send, WECHAT_AD_RETRY_MS, 0);
    return { status: 200, body: { transactionId } };
  }

  gift(body: Record<string, unknown> | undefined): Reply {
    const bad = (errmsg: string): Reply => ({ status: 400, body: { errcode: 400, errmsg } });
    if (!body) return bad("expected a JSON object");
    const { platform, openid, giftId } = body;
    if (platform !== "wechat" && platform !== "douyin") return bad("gift pushes are simulated for wechat and douyin only");
    if (typeof openid !== "string" || !openid || typeof giftId !== "string" || !ID.test(giftId)) return bad("openid and giftId are required strings");
    if (body.delivery !== undefined && body.delivery !== "push" && !(platform === "douyin" && body.delivery === "code")) return bad('delivery is "push", or "code" on douyin');
    if (body.delivery === "code") {
      const appId = typeof body.app === "string" ? body.app : typeof body.appId === "string" ? body.appId : this.options.defaultAppId(platform);
      if (!appId) return bad("app is required: no default app");
      const chosen = typeof body.orderId === "string" && ID.test(body.orderId) ? body.orderId : undefined;
      return { status: 200, body: { giftCode: this.giftCodes.issue(appId, openid, giftId, chosen) } };
    }
    const target = this.target(body, platform, "gift-push");
    if (typeof target === "string") return bad(target);
    const given = typeof body.orderId === "string" && ID.test(body.orderId) ? body.orderId : undefined;
    const id = given ?? `sim-gift-${this.now()}-${crypto.randomBytes(6).toString("hex")}`;
    const keys = simulatorRewardKeys(platform, target.appId);
    // Safe mode unless asked otherwise: a plain-mode push is what the server must refuse (its body is unsigned).
    const plainMode = body.safeMode === false;
    const delivery: RewardDelivery = { kind: "gift", platform, appId: target.appId, id, attempts: 0, acknowledged: false };
    this.deliveries.set(`gift:${platform}:${id}`, delivery);
    const sendAt = Math.floor(this.now() / 1000);
    const send =
      platform === "wechat"
        ? async (): Promise<Sent> => {
            const event = {
              ToUserName: `gh_${target.appId}`,
              FromUserName: openid,
              CreateTime: sendAt,
              MsgType: "event",
              Event: GIFT_EVENT,
              MiniGame: { OrderId: id, IsPreview: 0, ToUserOpenid: openid, Zone: 2001, GiftTypeId: 1, GiftId: giftId, SendTime: sendAt, GoodsList: [] },
            };
            const timestamp = String(Math.floor(this.now() / 1000));
            const nonce = crypto.randomBytes(6).toString("hex");
            const url = new URL(target.url);
            const sealed = plainMode
              ? { query: new URLSearchParams({ signature: pushSignature(keys.giftPushToken, timestamp, nonce), timestamp, nonce }), body: JSON.stringify(event) }
              : sealPush({ token: keys.giftPushToken, encodingAesKey: keys.giftPushAesKey }, target.appId, JSON.stringify(event), timestamp, nonce);
            for (const [name, value] of sealed.query) url.searchParams.set(name, value);
            const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: sealed.body, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
            const answer = (await response.json().catch(() => undefined)) as { ErrCode?: unknown } | undefined;
            return { ok: response.ok && answer?.ErrCode === 0 };
          }
        : async (): Promise<Sent> => {
            const text = JSON.stringify({ gift_id: giftId, play_type: 3, gift_code: id, open_id: openid, prop_list: [], env_type: "production", send_time: sendAt });
            const headers = signDouyinPush(keys.giftPushToken, target.appId, "gift_delivery", text, this.now());
            const response = await fetch(target.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
            await response.arrayBuffer().catch(() => undefined);
            return { ok: response.status === 200 };
          };
    void this.deliver(delivery, send, platform === "wechat" ? WECHAT_GIFT_RETRY_MS : DOUYIN_CALLBACK_RETRY_MS, 0);
    return { status: 200, body: platform === "wechat" ? { orderId: id } : { giftCode: id } };
  }

  /** A player's customer-service message pushed as WeChat does; `opened` notes the reply window it opens. */
  supportMessage(body: Record<string, unknown> | undefined, opened: (platform: string, appId: string, windowKey: string, openid: string) => void): Reply {
    const bad = (errmsg: string): Reply => ({ status: 400, body: { errcode: 400, errmsg } });
    if (!body) return bad("expected a JSON object");
    const { openid, platform } = body;
    if (platform !== "wechat" && platform !== "douyin") return bad("customer-service pushes are simulated for wechat and douyin");
    if (typeof openid !== "string" || !openid) return bad("openid is a required string");
    const target = this.target(body, platform, "gift-push");
    if (typeof target === "string") return bad(target);
    // Douyin's ids are 64-bit numbers (beyond a JS number: the server reads them from the raw text).
    const msgId = typeof body.msgId === "string" && ID.test(body.msgId) ? body.msgId : platform === "douyin" ? `74944${crypto.randomInt(1e13, 9e13)}` : String(crypto.randomInt(1e12, 9e12));
    const keys = simulatorRewardKeys(platform, target.appId);
    const delivery: RewardDelivery = { kind: "support", platform, appId: target.appId, id: msgId, attempts: 0, acknowledged: false };
    if (platform === "douyin") {
      const conversationId = `749${BigInt(`0x${crypto.createHash("sha256").update(`${target.appId}:${openid}`).digest("hex").slice(0, 14)}`)}`;
      const raw = douyinSupportPushText(target.appId, openid, conversationId, msgId, body, this.now());
      if (raw === undefined) return bad("text is required");
      this.deliveries.set(`support:${msgId}`, delivery);
      opened("douyin", target.appId, conversationId, openid);
      const sendDouyin = async (): Promise<Sent> => {
        const headers = signDouyinPush(keys.giftPushToken, target.appId, DOUYIN_SUPPORT_MSG_TYPE, raw, this.now());
        const response = await fetch(target.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
        await response.arrayBuffer().catch(() => undefined);
        return { ok: response.status === 200 };
      };
      void this.deliver(delivery, sendDouyin, DOUYIN_CALLBACK_RETRY_MS, 0);
      return { status: 200, body: { msgId, conversationId } };
    }
    const message = supportPushBody(target.appId, openid, msgId, body, Math.floor(this.now() / 1000));
    if (typeof message === "string") return bad(message);
    this.deliveries.set(`support:${msgId}`, delivery);
    opened("wechat", target.appId, openid, openid);
    const send = async (): Promise<Sent> => {
      const url = new URL(target.url);
      const sealed = sealPush({ token: keys.giftPushToken, encodingAesKey: keys.giftPushAesKey }, target.appId, JSON.stringify(message), String(Math.floor(this.now() / 1000)), crypto.randomBytes(6).toString("hex"));
      for (const [name, value] of sealed.query) url.searchParams.set(name, value);
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: sealed.body, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
      const answer = (await response.json().catch(() => undefined)) as { ErrCode?: unknown } | undefined;
      return { ok: response.ok && answer?.ErrCode === 0 };
    };
    void this.deliver(delivery, send, WECHAT_GIFT_RETRY_MS, 0);
    return { status: 200, body: { msgId } };
  }

  delivery(kind: "ad" | "gift" | "support", id: string, platform = "wechat"): RewardDelivery | undefined {
    if (kind === "support") return this.deliveries.get(`support:${id}`);
    return this.deliveries.get(kind === "ad" ? `ad:${id}` : `gift:${platform}:${id}`);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private target(body: Record<string, unknown>, platform: string, route: "ad-reward" | "gift-push"): { appId: string; url: string } | string {
    const given = typeof body.app === "string" ? body.app : typeof body.appId === "string" ? body.appId : undefined;
    const appId = given ?? this.options.defaultAppId(platform);
    const url = typeof body.notifyUrl === "string" ? body.notifyUrl : this.options.defaultUrl?.(platform, route);
    if (!appId) return "app is required: no default app";
    if (!url || !/^https?:\/\//.test(url)) return "notifyUrl is required (an http(s) URL)";
    return { appId, url };
  }

  private async deliver(delivery: RewardDelivery, send: () => Promise<Sent>, schedule: readonly number[], retry: number): Promise<void> {
    delivery.attempts += 1;
    let sent: Sent = { ok: false };
    try {
      sent = await send();
    } catch {
      sent = { ok: false };
    }
    if (sent.ok) {
      delivery.acknowledged = true;
      if (sent.valid !== undefined) delivery.valid = sent.valid;
      return;
    }
    if (retry >= schedule.length) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.deliver(delivery, send, schedule, retry + 1);
    }, schedule[retry] * (this.options.retryScale ?? 1));
    timer.unref();
    this.timers.add(timer);
  }
}

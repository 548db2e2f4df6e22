/**
 * A player buying an item through the platform's own payment, as the simulator plays it
 * (`POST /__simulator/item-purchase`): a trade number is made up (or the game's is taken), and the
 * delivery is sent to the notify URL, signed as the platform signs it, until it is answered success
 * or the retry schedule runs out: WeChat's message push (platform-apis-3 §2), answered
 * `{"ErrCode":0}`; Douyin's payment callback (src/platforms/douyin/douyin-push.ts), answered HTTP 200.
 * WeChat's schedule is as far as it is known (~15 s growing to ~6 h; the exact steps are
 * unconfirmed); Douyin's see DOUYIN_CALLBACK_RETRY_MS. Both are multiplied by `retryScale` so tests
 * can compress them.
 */
import crypto from "node:crypto";
import { signCallback } from "../../platforms/douyin/douyin-push";
import { encryptPush, ITEM_PURCHASE_EVENT, payEventSig, pushSignature } from "../../platforms/wechat/wechat-push";
import type { SimulatorPaymentKeys } from "./payment-keys";

export const WECHAT_PUSH_RETRY_MS: readonly number[] = [15_000, 15_000, 30_000, 180_000, 600_000, 1_200_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
/**
 * Douyin's callback retries: the source quoting Douyin's doc (tgf-platform) gives "10s/30s/1m/…/2h,
 * 4 h 45 min in all"; the middle steps are ours, chosen to start, end and add up as quoted.
 */
export const DOUYIN_CALLBACK_RETRY_MS: readonly number[] = [10_000, 30_000, 60_000, ...[2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 60, 120].map((min) => min * 60_000)];
const RETRY_MS: Record<string, readonly number[]> = { wechat: WECHAT_PUSH_RETRY_MS, douyin: DOUYIN_CALLBACK_RETRY_MS };
const PUSH_TIMEOUT_MS = 5_000;

export interface ItemPurchaseOptions {
  keys(platform: string, appId: string): SimulatorPaymentKeys;
  /** The app a request without `appId` buys in. */
  defaultAppId(platform: string): string | undefined;
  /** Where a request without `notifyUrl` is pushed (the embedded server's own push route). */
  defaultNotifyUrl?: (platform: string) => string | undefined;
  /** Multiplies every retry delay: 1 is the platform's schedule, 0.001 turns hours into seconds. */
  retryScale?: number;
  now?: () => number;
}

export interface Trade {
  platform: string;
  appId: string;
  openid: string;
  /** The game's order number: WeChat's OutTradeNo, Douyin's cp_orderno (the game's customId). */
  outTradeNo: string;
  itemId: string;
  price: number;
  env: 0 | 1;
  /** Douyin: the platform's own transaction number (`order_no_channel`) beside the game's. */
  channelOrderNo?: string;
  /** Pushes sent so far, and whether one was answered success. */
  attempts: number;
  acknowledged: boolean;
}

type Reply = { status: number; body: Record<string, unknown> };

export class ItemPurchaseSim {
  private readonly trades = new Map<string, Trade>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;

  constructor(private readonly options: ItemPurchaseOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Handles `POST /__simulator/item-purchase`: answers `{outTradeNo}` at once, pushes in the background. */
  purchase(body: Record<string, unknown> | undefined): Reply {
    const bad = (errmsg: string): Reply => ({ status: 400, body: { errcode: 400, errmsg } });
    if (!body) return bad("expected a JSON object");
    const { platform, openid, itemId, price } = body;
    if (platform !== "wechat" && platform !== "douyin") return bad("item purchases are simulated for wechat and douyin only");
    if (typeof openid !== "string" || !openid || typeof itemId !== "string" || !itemId) return bad("openid and itemId are required strings");
    if (typeof price !== "number" || !Number.isInteger(price) || price < 0) return bad("price must be an integer >= 0 (fen)");
    const appId = typeof body.appId === "string" ? body.appId : this.options.defaultAppId(platform);
    const notifyUrl = typeof body.notifyUrl === "string" ? body.notifyUrl : this.options.defaultNotifyUrl?.(platform);
    if (!appId) return bad("appId is required: no default app");
    if (!notifyUrl || !/^https?:\/\//.test(notifyUrl)) return bad("notifyUrl is required (an http(s) URL)");
    // Douyin's virtual payment has a live environment only.
    const env = platform === "douyin" || body.env === 0 ? 0 : 1;
    // The game's own number when it gives one (WeChat's outTradeNo, Douyin's customId).
    const given = typeof body.outTradeNo === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(body.outTradeNo) ? body.outTradeNo : undefined;
    const outTradeNo = given ?? `sim${this.now()}${crypto.randomBytes(6).toString("hex")}`;
    const trade: Trade = { platform, appId, openid, outTradeNo, itemId, price, env, attempts: 0, acknowledged: false };
    if (platform === "douyin") trade.channelOrderNo = `dy${this.now()}${crypto.randomBytes(4).toString("hex")}`;
    this.trades.set(outTradeNo, trade);
    void this.push(trade, notifyUrl, body.safeMode === true, 0);
    return { status: 200, body: { outTradeNo } };
  }

  trade(outTradeNo: string): Trade | undefined {
    return this.trades.get(outTradeNo);
  }

  /** Stops every pending retry (simulator shutdown). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async push(trade: Trade, notifyUrl: string, safeMode: boolean, retry: number): Promise<void> {
    trade.attempts += 1;
    let ok = false;
    try {
      const { url, body } = trade.platform === "douyin" ? { url: notifyUrl, body: this.douyinCallback(trade) } : this.signedPush(trade, notifyUrl, safeMode);
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
      const answer = (await response.json().catch(() => undefined)) as { ErrCode?: unknown } | undefined;
      // Douyin reads the status only; WeChat reads ErrCode.
      ok = trade.platform === "douyin" ? response.status === 200 : response.ok && answer?.ErrCode === 0;
    } catch {
      ok = false;
    }
    if (ok) {
      trade.acknowledged = true;
      return;
    }
    const schedule = RETRY_MS[trade.platform];
    if (retry >= schedule.length) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.push(trade, notifyUrl, safeMode, retry + 1);
    }, schedule[retry] * (this.options.retryScale ?? 1));
    timer.unref();
    this.timers.add(timer);
  }

  /** Douyin's callback body: the order in `msg`, the player and item in `cp_extra` as the game passed them (douyin-push.ts). */
  private douyinCallback(trade: Trade): string {
    const msg = {
      appid: trade.appId,
      cp_orderno: trade.outTradeNo,
      cp_extra: JSON.stringify({ openid: trade.openid, itemId: trade.itemId }),
      order_no_channel: trade.channelOrderNo,
      amount_cent: trade.price,
      amount_coin: 0,
      currency: "CNY",
    };
    const timestamp = String(Math.floor(this.now() / 1000));
    return signCallback(this.options.keys(trade.platform, trade.appId).pushToken, msg, timestamp, String(crypto.randomInt(1000, 10_000)));
  }

  /** The push as WeChat sends it: query signature over (Token, timestamp, nonce); in safe mode the body encrypted. */
  private signedPush(trade: Trade, notifyUrl: string, safeMode: boolean): { url: string; body: string } {
    const keys = this.options.keys(trade.platform, trade.appId);
    const payload = JSON.stringify({
      OpenId: trade.openid,
      Env: trade.env,
      OutTradeNo: trade.outTradeNo,
      GoodsInfo: { ProductId: trade.itemId, Quantity: 1, OrigPrice: trade.price, ActualPrice: trade.price, Attach: "" },
      WeChatPayInfo: { MchOrderNo: `mch${trade.outTradeNo}`, TransactionId: `tx${trade.outTradeNo}`, PaidTime: Math.floor(this.now() / 1000) },
    });
    const event = {
      ToUserName: `gh_${trade.appId}`,
      FromUserName: trade.openid,
      CreateTime: Math.floor(this.now() / 1000),
      MsgType: "event",
      Event: ITEM_PURCHASE_EVENT,
      MiniGame: { Payload: payload, PayEventSig: payEventSig(trade.env === 1 ? keys.sandboxAppKey : keys.appKey, payload) },
    };
    const timestamp = String(Math.floor(this.now() / 1000));
    const nonce = crypto.randomBytes(6).toString("hex");
    const url = new URL(notifyUrl);
    url.searchParams.set("signature", pushSignature(keys.pushToken, timestamp, nonce));
    url.searchParams.set("timestamp", timestamp);
    url.searchParams.set("nonce", nonce);
    if (!safeMode) return { url: url.toString(), body: JSON.stringify(event) };
    const encrypted = encryptPush(keys.pushEncodingAesKey, JSON.stringify(event), trade.appId);
    url.searchParams.set("encrypt_type", "aes");
    url.searchParams.set("msg_signature", pushSignature(keys.pushToken, timestamp, nonce, encrypted));
    return { url: url.toString(), body: JSON.stringify({ ToUserName: `gh_${trade.appId}`, Encrypt: encrypted }) };
  }
}

/**
 * A player buying an item through WeChat's own payment, as the simulator plays it
 * (`POST /__simulator/item-purchase`): a trade number is made up, and the delivery push is sent to
 * the notify URL, signed as WeChat signs it (platform-apis-3 §2), until it answers
 * `{"ErrCode":0}` or the retry schedule runs out. The schedule is WeChat's as far as it is known
 * (~15 s growing to ~6 h; the exact steps are unconfirmed), multiplied by `retryScale` so tests can
 * compress it. Douyin's payment callback has unconfirmed fields and is not simulated.
 */
import crypto from "node:crypto";
import { encryptPush, ITEM_PURCHASE_EVENT, payEventSig, pushSignature } from "../../platforms/wechat/wechat-push";
import type { SimulatorPaymentKeys } from "./payment-keys";

export const WECHAT_PUSH_RETRY_MS: readonly number[] = [15_000, 15_000, 30_000, 180_000, 600_000, 1_200_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
const PUSH_TIMEOUT_MS = 5_000;

export interface ItemPurchaseOptions {
  keys(platform: string, appId: string): SimulatorPaymentKeys;
  /** The app a request without `appId` buys in. */
  defaultAppId(platform: string): string | undefined;
  /** Where a request without `notifyUrl` is pushed (the embedded server's own push route). */
  defaultNotifyUrl?: (platform: string) => string | undefined;
  /** Multiplies every retry delay: 1 is WeChat's schedule, 0.001 turns hours into seconds. */
  retryScale?: number;
  now?: () => number;
}

export interface Trade {
  platform: string;
  appId: string;
  openid: string;
  outTradeNo: string;
  itemId: string;
  price: number;
  env: 0 | 1;
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
    if (platform !== "wechat") return bad("item purchases are simulated for wechat only");
    if (typeof openid !== "string" || !openid || typeof itemId !== "string" || !itemId) return bad("openid and itemId are required strings");
    if (typeof price !== "number" || !Number.isInteger(price) || price < 0) return bad("price must be an integer >= 0 (fen)");
    const appId = typeof body.appId === "string" ? body.appId : this.options.defaultAppId(platform);
    const notifyUrl = typeof body.notifyUrl === "string" ? body.notifyUrl : this.options.defaultNotifyUrl?.(platform);
    if (!appId) return bad("appId is required: no default app");
    if (!notifyUrl || !/^https?:\/\//.test(notifyUrl)) return bad("notifyUrl is required (an http(s) URL)");
    const env = body.env === 0 ? 0 : 1;
    // The game's own number when it gives one (WeChat's item purchase takes the game's outTradeNo).
    const given = typeof body.outTradeNo === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(body.outTradeNo) ? body.outTradeNo : undefined;
    const outTradeNo = given ?? `sim${this.now()}${crypto.randomBytes(6).toString("hex")}`;
    const trade: Trade = { platform, appId, openid, outTradeNo, itemId, price, env, attempts: 0, acknowledged: false };
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
      const { url, body } = this.signedPush(trade, notifyUrl, safeMode);
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
      const answer = (await response.json().catch(() => undefined)) as { ErrCode?: unknown } | undefined;
      ok = response.ok && answer?.ErrCode === 0;
    } catch {
      ok = false;
    }
    if (ok) {
      trade.acknowledged = true;
      return;
    }
    if (retry >= WECHAT_PUSH_RETRY_MS.length) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.push(trade, notifyUrl, safeMode, retry + 1);
    }, WECHAT_PUSH_RETRY_MS[retry] * (this.options.retryScale ?? 1));
    timer.unref();
    this.timers.add(timer);
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

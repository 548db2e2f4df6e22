/**
 * The simulator's payments, mounted by simulator-server.ts: the wallet APIs at their real paths
 * (WeChat `/wxa/game/*`, Douyin `/api/apps/game/wallet/*`, read with their raw bodies because both
 * signatures are over the exact bytes), and the controls for tests and the playground:
 * - `POST /__simulator/coins` `{"platform", "openid", "balance", "appId"?, "env"?}` sets a player's
 *   balance (both envs unless `env` 0/1 is given; appId: the platform's default simulator app);
 *   `GET /__simulator/coins?platform=&openid=&appId=&env=` reads `{balance, deductions, presents, cancels}`;
 * - `POST /__simulator/item-purchase` (item-purchase-sim.ts) answers `{"outTradeNo"}` (the request's, when it
 *   gives one) and pushes; `POST /xpay/query_order` (item-order-query-sim.ts) answers those trades, and
 *   `orderQueries(orderId)` counts the queries made for an order id (tests of the server's throttle).
 * Every app's keys are `simulatorPaymentKeys(platform, appId)`.
 * The reward sources' controls (`/__simulator/ad-reward`, `/__simulator/gift`: rewards/reward-sim.ts)
 * are served here too, and sent to the same server's routes beside the push route by default; so is
 * Douyin's gift-code redemption (`/mgplatform/api/gift/receive_reward`, rewards/gift-code-sim.ts).
 */
import type http from "node:http";
import { CoinBook, type Env } from "./coin-book";
import { DOUYIN_WALLET_SIM_PATHS, handleDouyinWallet } from "./douyin-wallet-sim";
import { handleItemOrderQuery, ITEM_ORDER_QUERY_SIM_PATHS } from "./item-order-query-sim";
import { ItemPurchaseSim } from "./item-purchase-sim";
import { simulatorPaymentKeys } from "./payment-keys";
import { handleWechatCoins, WECHAT_COIN_SIM_PATHS, type WalletSimContext } from "./wechat-coins-sim";
import type { PlatformSimContext, SimReply } from "../platform-simulator";
import { parseJsonObject } from "../../platforms/shared/json-object";
import { readRawBody } from "../request-body";
import { RewardSim } from "../rewards/reward-sim";
import { growthStateOf } from "../growth-state";
import { SUPPORT_REPLIES_PER_MESSAGE } from "../../platforms/wechat/wechat-support-simulator";
import { DOUYIN_GIFT_CODE_PATH } from "../../platforms/douyin/douyin-gift-code";

export interface PaymentSimulatorOptions {
  /** Multiplies the item-purchase push retry schedule (1: WeChat's; tests compress it). */
  pushRetryScale?: number;
}

/** What the payment simulator needs from the rest of the simulator. */
export interface PaymentSimHost {
  /** One platform's view of the simulator state (tokens, session keys). */
  context(platform: string): PlatformSimContext | undefined;
  /** The app a control request without `appId` means on this platform. */
  defaultAppId(platform: string): string | undefined;
  now(): number;
}

const JSON_TYPE = "application/json";
const MAX_COUNTED_ORDERS = 10_000;

export class PaymentSimulator {
  readonly book: CoinBook;
  readonly itemPurchases: ItemPurchaseSim;
  readonly rewards: RewardSim;
  private notifyUrl: ((platform: string) => string | undefined) | undefined;
  private readonly queries = new Map<string, number>();

  constructor(
    private readonly host: PaymentSimHost,
    options: PaymentSimulatorOptions = {},
  ) {
    this.book = new CoinBook(host.now);
    this.itemPurchases = new ItemPurchaseSim({
      keys: simulatorPaymentKeys,
      defaultAppId: (platform) => host.defaultAppId(platform),
      defaultNotifyUrl: (platform) => this.notifyUrl?.(platform),
      retryScale: options.pushRetryScale,
      now: host.now,
    });
    this.rewards = new RewardSim({
      defaultAppId: (platform) => host.defaultAppId(platform),
      // The reward routes sit beside the item-purchase push route: /api/minigame/<platform>/<route>.
      defaultUrl: (platform, route) => this.notifyUrl?.(platform)?.replace(/\/push$/, `/${route}`),
      retryScale: options.pushRetryScale,
      now: host.now,
    });
  }

  /** Where item purchases are pushed when the request names no notifyUrl (the embedded server's own route). */
  setDefaultNotifyUrl(resolve: (platform: string) => string | undefined): void {
    this.notifyUrl = resolve;
  }

  /** `/xpay/query_order` requests made for this order_id so far, answered or refused. */
  orderQueries(orderId: string): number {
    return this.queries.get(orderId) ?? 0;
  }

  owns(method: string, path: string): boolean {
    const apis = [...WECHAT_COIN_SIM_PATHS, ...DOUYIN_WALLET_SIM_PATHS, ...ITEM_ORDER_QUERY_SIM_PATHS];
    if (method === "POST" && apis.includes(path)) return true;
    if (method === "POST" && (path === "/__simulator/ad-reward" || path === "/__simulator/gift" || path === "/__simulator/support-message" || path === DOUYIN_GIFT_CODE_PATH)) return true;
    return path === "/__simulator/coins" || (method === "POST" && path === "/__simulator/item-purchase");
  }

  /** Answers a request `owns` accepted. */
  async handle(req: http.IncomingMessage, url: URL): Promise<{ status: number; reply: SimReply }> {
    const path = url.pathname;
    const raw = req.method === "POST" ? await readRawBody(req) : (req.resume(), "");
    const json = (status: number, body: unknown) => ({ status, reply: { contentType: JSON_TYPE, body } });
    if (WECHAT_COIN_SIM_PATHS.includes(path)) return { status: 200, reply: handleWechatCoins(path, url.searchParams, raw ?? "", this.walletContext("wechat")) };
    if (DOUYIN_WALLET_SIM_PATHS.includes(path)) return { status: 200, reply: handleDouyinWallet(path, url.searchParams, raw ?? "", this.walletContext("douyin")) };
    if (ITEM_ORDER_QUERY_SIM_PATHS.includes(path)) return { status: 200, reply: this.queryOrder(url.searchParams, raw ?? "") };
    if (path === "/__simulator/item-purchase") {
      const { status, body } = this.itemPurchases.purchase(parseJsonObject(raw));
      return json(status, body);
    }
    if (path === DOUYIN_GIFT_CODE_PATH) {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : (v ?? "")]));
      const douyin = this.host.context("douyin");
      return { status: 200, reply: this.rewards.giftCodes.redeem(headers, raw ?? "", (token) => douyin?.tokenStatus(token) ?? { status: "unknown" }) };
    }
    if (path === "/__simulator/support-message") {
      const opened = (platform: string, appId: string, windowKey: string, openid: string) => {
        const social = this.host.context(platform)?.social;
        if (social) growthStateOf(social).supportWindows.set(`${appId}\0${windowKey}`, { lastInMs: this.host.now(), repliesLeft: SUPPORT_REPLIES_PER_MESSAGE, openid });
      };
      const { status, body } = this.rewards.supportMessage(parseJsonObject(raw), opened);
      return json(status, body);
    }
    if (path === "/__simulator/ad-reward" || path === "/__simulator/gift") {
      const { status, body } = path === "/__simulator/gift" ? this.rewards.gift(parseJsonObject(raw)) : this.rewards.adReward(parseJsonObject(raw));
      return json(status, body);
    }
    if (req.method === "GET") {
      const q = url.searchParams;
      const platform = q.get("platform") ?? "";
      const appId = q.get("appId") ?? this.host.defaultAppId(platform);
      const openid = q.get("openid") ?? "";
      if (!appId || !openid) return json(400, { errcode: 400, errmsg: "platform and openid are required" });
      return json(200, { ...this.book.player(platform, appId, q.get("env") === "0" || platform === "douyin" ? 0 : 1, openid) });
    }
    const body = parseJsonObject(raw);
    const platform = typeof body?.platform === "string" ? body.platform : "";
    const appId = typeof body?.appId === "string" ? body.appId : this.host.defaultAppId(platform);
    const balance = body?.balance;
    const env = body?.env === 0 || body?.env === 1 ? (body.env as Env) : undefined;
    if (!body || !appId || typeof body.openid !== "string" || !body.openid || typeof balance !== "number" || !Number.isInteger(balance) || balance < 0) {
      return json(400, { errcode: 400, errmsg: 'expected {"platform", "openid", "balance" (integer >= 0), "appId"?, "env"?}' });
    }
    this.book.setBalance(platform, appId, body.openid, balance, env);
    return json(200, { platform, appId, openid: body.openid, balance });
  }

  close(): void {
    this.itemPurchases.close();
    this.rewards.close();
  }

  private queryOrder(query: URLSearchParams, raw: string): SimReply {
    const orderId = orderIdOf(raw);
    // Counters for tests; a long-running simulator forgets them rather than grow without bound.
    if (this.queries.size >= MAX_COUNTED_ORDERS) this.queries.clear();
    if (orderId) this.queries.set(orderId, this.orderQueries(orderId) + 1);
    const wallet = this.walletContext("wechat");
    return handleItemOrderQuery(query, raw, { tokenStatus: wallet.tokenStatus, keys: wallet.keys, trade: (no) => this.itemPurchases.trade(no) });
  }

  private walletContext(platform: string): WalletSimContext {
    const sim = this.host.context(platform);
    return {
      tokenStatus: (token) => sim?.tokenStatus(token) ?? { status: "unknown" },
      currentSessionKey: (appId, openid) => sim?.currentSessionKey(appId, openid),
      keys: (appId) => simulatorPaymentKeys(platform, appId),
      book: this.book,
      now: this.host.now,
    };
  }
}

/** The order_id a query names, for counting (a malformed body names none). */
function orderIdOf(raw: string): string | undefined {
  const id = parseJsonObject(raw)?.order_id;
  return typeof id === "string" ? id : undefined;
}

import type { Room } from "@colyseus/sdk";
import { RuntimeColyseusClient } from "./colyseus/runtime-colyseus-client";
import { parseEndpoint, queryString, type Endpoint } from "./endpoint";
import { ApiError, SESSION_ENDING_CODES } from "./errors";
import { Emitter, type GameClientEvents } from "./events";
import { RoomKeeper, type ReconnectionOptions } from "./reconnection";
import { RoomConnector } from "./room-connector";
import { PLATFORM_LOGIN, type HttpRequest, type LoginCodes, type Runtime } from "./runtime";
import { detectMiniGameRuntime } from "./runtimes/detect-runtime";
import * as economy from "./economy";
import * as liveops from "./liveops";
import * as payments from "./payments";
import { DouyinLive } from "./douyin-live";
import { Leaderboard } from "./leaderboards";
import { Saves } from "./saves";
import * as rewards from "./rewards";
import { ServerApi } from "./server-api";
import { SessionStorage, type ServerUser, type Session } from "./session";
import { SessionKeeper } from "./session-keeper";
import type { SubscribeGrants } from "./subscribe";

export type { GameClientEvents } from "./events";

export interface GameClientOptions {
  /** The server's address, e.g. `https://game.example.com` (an allow-listed domain in the platform console). */
  server: string;
  /** Defaults to the mini-game runtime we run in (`tt`, `qq`, `ks`, then `wx`). */
  runtime?: Runtime;
  /**
   * The platform app id the login names (a studio serving several games from one server): default,
   * what the runtime reports (`wx.getAccountInfoSync()`…); `null` sends none (the server's default app).
   */
  appId?: string | null;
  /** Storage key of the session; change it to keep several servers' sessions apart. */
  storageKey?: string;
  /** Refresh this long before the access token expires (default 60 s, at most half its lifetime). */
  refreshMarginSec?: number;
  /**
   * Wait before retrying a refresh whose answer was lost (default 1 s). The server answers a
   * repeated refresh token with the same new pair for `REFRESH_GRACE_SEC` (10 s by default), so
   * one prompt retry keeps the session; a retry after that window would count as token theft.
   */
  refreshRetryDelayMs?: number;
  /**
   * Rooms take their seat back by themselves after a dropped connection (default: on, for up to
   * 120 s; the server holds a seat 60 s by default). `false` turns it off (the `connectionLost`
   * event and `reconnect()` are then the game's); an object bounds it (client/README.md § Reconnection).
   */
  reconnection?: ReconnectionOptions | false;
  now?: () => number;
}

const DEFAULT_STORAGE_KEY = "minigame-client.session";

/**
 * One object a game keeps: logs in with the platform, keeps and refreshes the session, calls the
 * game's protected routes and joins rooms with the token.
 */
export class GameClient {
  readonly runtime: Runtime;
  readonly endpoint: Endpoint;
  /** @colyseus/sdk 0.18 underneath, talking through the runtime. */
  readonly colyseus: RuntimeColyseusClient;
  private readonly events = new Emitter<GameClientEvents>();
  private readonly api: ServerApi;
  private readonly sessions: SessionKeeper;
  private readonly rooms: RoomConnector;
  private readonly appIdOption: string | null | undefined;
  /** Douyin live-stream games: `start(launchToken)` → the live room's events (docs/douyin-live.md). */
  readonly douyinLive: DouyinLive;

  constructor(options: GameClientOptions) {
    this.appIdOption = options.appId;
    const runtime = options.runtime ?? detectMiniGameRuntime();
    if (!runtime) throw new Error("no mini-game runtime (wx, tt, qq, ks) found: pass one, e.g. webRuntime({ platform })");
    this.runtime = runtime;
    this.endpoint = parseEndpoint(options.server);
    this.colyseus = new RuntimeColyseusClient(this.endpoint, runtime);
    this.api = new ServerApi(runtime, this.endpoint);
    const now = options.now ?? (() => Date.now());
    this.sessions = new SessionKeeper(new SessionStorage(runtime.storage, options.storageKey ?? DEFAULT_STORAGE_KEY), this.api, this.events, {
      now,
      refreshMarginMs: (options.refreshMarginSec ?? 60) * 1000,
      refreshRetryDelayMs: options.refreshRetryDelayMs ?? 1000,
    });
    const keeper = new RoomKeeper(this.colyseus, this.sessions, this.events, runtime, options.reconnection, now, () => this.sessionAlive());
    this.rooms = new RoomConnector(this.colyseus, this.sessions, this.events, keeper);
    this.rooms.onConfigChanged = () => this.liveConfig.announced();
    this.douyinLive = new DouyinLive((r) => this.api.call(r), (name, opts) => this.colyseus.joinOrCreate(name, opts));
  }

  get session(): Session | null {
    return this.sessions.session;
  }
  get user(): ServerUser | null {
    return this.sessions.session?.user ?? null;
  }
  get isLoggedIn(): boolean {
    return this.sessions.session !== null;
  }
  /** The platform app id logins name: the game's override, else the runtime's; undefined for none. */
  get appId(): string | undefined {
    if (this.appIdOption !== undefined) return this.appIdOption ?? undefined;
    return this.runtime.appId?.();
  }

  on<K extends keyof GameClientEvents>(event: K, listener: (payload: GameClientEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  /**
   * The player's user. With a stored session (an earlier start), returns it without a platform
   * login. Otherwise, or with `fresh`, gets codes from the platform (or uses `codes`) and logs in.
   */
  async login(options: { codes?: LoginCodes; fresh?: boolean } = {}): Promise<ServerUser> {
    const stored = this.sessions.session;
    if (stored && !options.fresh && !options.codes) return stored.user;
    const codes = options.codes ?? (await this.runtime.login());
    // A platform added on the server after this client was built most likely takes a plain `code`.
    const route = PLATFORM_LOGIN[this.runtime.platform] ?? { codeParam: "code" };
    const query = queryString({
      [route.codeParam]: codes.code,
      ...(route.anonymousParam ? { [route.anonymousParam]: codes.anonymousCode } : {}),
      appId: this.appId,
    });
    const data = await this.api.call({ method: "GET", path: `/api/minigame/${this.runtime.platform}/login?${query}` });
    this.sessions.begin(data);
    return data.user as ServerUser;
  }

  /** A protected route of this server: Bearer added, refreshed when needed, envelope unwrapped. */
  async request<T = any>(method: HttpRequest["method"], path: string, body?: unknown): Promise<T> {
    const token = await this.sessions.validToken();
    try {
      return await this.api.call({ method, path, body, token });
    } catch (err) {
      if (!(await this.sessions.recover(err, token))) throw err;
      return this.api.call({ method, path, body, token: this.sessions.requireSession().token });
    }
  }

  joinOrCreate<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<any, T>> {
    return this.rooms.matchmake<T>("joinOrCreate", roomName, options, rootSchema);
  }
  create<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<any, T>> {
    return this.rooms.matchmake<T>("create", roomName, options, rootSchema);
  }
  join<T = any>(roomName: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<any, T>> {
    return this.rooms.matchmake<T>("join", roomName, options, rootSchema);
  }
  joinById<T = any>(roomId: string, options: Record<string, unknown> = {}, rootSchema?: any): Promise<Room<any, T>> {
    return this.rooms.matchmake<T>("joinById", roomId, options, rootSchema);
  }

  /**
   * With `reconnection: false` only (otherwise rooms come back by themselves, on the same object):
   * takes the seat back after a dropped connection, within the room's reconnection window. The
   * server may not have noticed the drop yet (it refuses the token until it has), and the network
   * may still be down, so failures are retried with backoff (0.25 s doubling to 2 s; the default 12
   * attempts span about 20 s). Resolves a new Room object.
   */
  reconnect<T = any>(reconnectionToken: string, rootSchema?: any, attempts = 12): Promise<Room<any, T>> {
    return this.rooms.reconnect<T>(reconnectionToken, rootSchema, attempts);
  }

  /**
   * Ends the session on the server and forgets it here. Resolves true when the server confirmed,
   * false when it could not be reached (the session is forgotten here all the same).
   */
  async logout(): Promise<boolean> {
    return this.sessions.endDeliberately(() => this.request("POST", "/api/auth/logout"), false);
  }

  /**
   * Shows the platform's subscribe prompt (call it from a tap) and resolves what the player chose per
   * template; each "accept" lets the server send one message of it. Nothing is sent to the server.
   */
  requestSubscribe(templateIds: string[]): Promise<SubscribeGrants> {
    const prompt = this.runtime.requestSubscribe?.bind(this.runtime);
    return prompt ? prompt(templateIds) : Promise.reject(new Error(`${this.runtime.platform}: this runtime has no subscribe prompt`));
  }

  /** Whether the server still honours the session: false once it said it ended (then forgotten here too). */
  private async sessionAlive(): Promise<boolean> {
    try {
      await this.request("GET", "/api/users/me");
      return true;
    } catch (err) {
      return !(err instanceof ApiError && (SESSION_ENDING_CODES.has(err.code) || err.code === "not_logged_in"));
    }
  }

  /** Cloud saves: `.get`, `.put` with the version read, `.delete`, `.list`, `.batch`, `.update` (docs/saves.md). */
  get saves(): Saves {
    return new Saves((method, path, body) => this.request(method, path, body));
  }

  /** A board of this game: `.top()`, `.aroundMe()`, `.me()`, `.submit(score)` where allowed (docs/leaderboards.md). */
  leaderboard(boardId: string): Leaderboard {
    return new Leaderboard(this.authed, boardId);
  }

  /** The player's coins on their platform for this game (`GET /api/payments/balance`). */
  balance(): Promise<number> {
    return payments.balance(this.authed);
  }

  /**
   * Spends coins on an item, keyed by the game's `orderId` (retry with the same one after any failure:
   * never charged twice). Resolves the order, `state: "delivered"` once the server delivered it.
   */
  spendCoins(purchase: { orderId: string; itemId: string; quantity?: number; coins?: number }): Promise<payments.Order> {
    return payments.spendCoins(this.authed, purchase);
  }

  /** One of the player's orders, or all of them (newest first), optionally in one state. */
  order(orderId: string): Promise<payments.Order> {
    return payments.order(this.authed, orderId);
  }
  orders(state?: payments.Order["state"]): Promise<payments.Order[]> {
    return payments.orders(this.authed, state);
  }

  /** Resolves when the server has delivered the order (e.g. an item bought in the platform's payment UI). */
  waitForDelivery(orderId: string, options?: { timeoutMs?: number; intervalMs?: number; kind?: payments.Order["kind"] }): Promise<payments.Order> {
    return payments.waitForDelivery(this.authed, orderId, options);
  }

  /**
   * An item bought through the platform's own payment UI: opens it with the platform's options
   * (WeChat: `requestMidasPayment` with the item purchase's fields and this `outTradeNo`; Douyin:
   * `requestGamePayment`) and resolves once the server has delivered the order the platform pushed.
   * Call it from a tap handler.
   */
  async buyItem(purchase: { outTradeNo: string; paymentOptions: Record<string, unknown>; timeoutMs?: number }): Promise<payments.Order> {
    const open = this.runtime.requestPayment?.bind(this.runtime);
    if (!open) throw new Error(`${this.runtime.platform}: this runtime has no payment UI`);
    await open({ ...purchase.paymentOptions, outTradeNo: purchase.outTradeNo });
    // The item purchase itself, even if the game once used this number for a coin spend too.
    return payments.waitForDelivery(this.authed, purchase.outTradeNo, { timeoutMs: purchase.timeoutMs, kind: "item_purchase" });
  }

  /** What the server decided for this player: `flag(key, default)`, experiment variants, live events (docs/liveops.md). */
  config(): Promise<liveops.PlayerConfig> {
    return this.liveConfig.fetch();
  }
  private readonly liveConfig = new liveops.ConfigKeeper(
    async (path, etag) => {
      const token = await this.sessions.validToken();
      try {
        return await this.api.conditional({ method: "GET", path, token }, etag);
      } catch (err) {
        if (!(await this.sessions.recover(err, token))) throw err;
        return this.api.conditional({ method: "GET", path, token: this.sessions.requireSession().token }, etag);
      }
    },
    (config) => this.events.emit("configChanged", config),
  );
  /** The game's catalog: items with their prices in coins or soft currency, ad units, gift packs. */
  catalog(): Promise<economy.Catalog> {
    return economy.catalog(this.authed);
  }
  /** Buys an item at the catalog's price, in coins or in soft currency as the catalog says; never twice on a retry. */
  buy(itemId: string, options?: { quantity?: number }): Promise<economy.BuyResult> {
    return economy.buy(this.authed, itemId, options);
  }
  /** The player's soft currencies, e.g. `{ gems: 120 }`. */
  wallet(): Promise<Record<string, number>> {
    return economy.wallet(this.authed);
  }
  /** The player's items with their counts. */
  inventory(): Promise<economy.ItemCount[]> {
    return economy.inventory(this.authed);
  }

  /** The player's mail, newest first (`GET /api/mail`). */
  mail(): Promise<rewards.Mail[]> {
    return rewards.mail(this.authed);
  }

  /** Claims a mail's attachments once; a repeat answers `granted: false` (`POST /api/mail/{mailId}/claim`). */
  claim(mailId: string): Promise<rewards.RewardResult & { mailId: string }> {
    return rewards.claim(this.authed, mailId);
  }

  /** Redeems a Douyin gift code once (`POST /api/rewards/gift-codes`); a repeat answers `granted: false`. */
  redeemGiftCode(code: string, options: { envType?: string } = {}): Promise<rewards.RewardResult & { code: string; giftId: string | null }> {
    return rewards.redeemGiftCode(this.authed, code, options.envType);
  }

  /**
   * Shows a rewarded ad (WeChat, with server-side verification) and resolves once the server has
   * granted its reward; call it from a tap handler. `options.show` replaces the runtime's ad (the
   * playground's simulator).
   */
  async watchAd(adUnitId: string, options: rewards.WatchAdOptions = {}): Promise<rewards.AdRewardResult> {
    const show = options.show ?? this.runtime.showRewardedAd;
    if (!show) throw new Error(`${this.runtime.platform}: this runtime has no rewarded ads with server verification`);
    const openid = this.session?.user.openid;
    if (typeof openid !== "string" || !openid) throw new Error("watchAd needs a platform login (the player's openid)");
    return rewards.watchAd(this.authed, openid, adUnitId, show, options);
  }

  private readonly authed: payments.AuthedRequest = (method, path, body) => this.request(method, path, body);

  /** Deletes the player's account (`DELETE /api/users/me`) and forgets the session; throws if the server refused. */
  async deleteAccount(): Promise<void> {
    await this.sessions.endDeliberately(() => this.request("DELETE", "/api/users/me"), true);
  }
}

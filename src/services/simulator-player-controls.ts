/**
 * The embedded simulator's payment controls (`POST /__simulator/coins`, `/__simulator/item-purchase`,
 * docs/payments.md) for one logged-in player, as the playground needs them: the browser knows
 * neither the simulator's port nor the player's openid. Development only: wired solely when the
 * simulator runs inside this process (app.config.ts).
 */
import { AppError } from "../core/errors";
import type { PlatformApps } from "./platform-apps";
import type { SessionKeyCustody } from "./session-key-custody";

/** The player's identity on the platform, as the payment services use it for the same token. */
export interface SimulatedPlayer {
  platform: string;
  appId: string;
  openid: string;
}

export interface SimulatorPlayerControlsDeps {
  /** The embedded simulator, e.g. http://127.0.0.1:41234. */
  simulatorUrl: string;
  /** The player's latest login to an app: its platform and openid (what the wallet calls and pushes name). */
  custody: Pick<SessionKeyCustody, "read">;
  platformApps: Pick<PlatformApps, "get">;
  timeoutMs: number;
}

export class SimulatorPlayerControls {
  constructor(private readonly deps: SimulatorPlayerControlsDeps) {}

  /**
   * The openid the coin routes sign with (the kept login's), so the balance set here is the one
   * `GET /api/payments/balance` reads. 409 session_key_missing when no login is kept (a logout, a
   * Douyin anonymous login).
   */
  async player(userId: string, app: string): Promise<SimulatedPlayer> {
    const kept = await this.deps.custody.read(userId, app);
    if (!kept?.openid) throw new AppError("session_key_missing", { data: {} });
    return { platform: kept.platform, appId: this.deps.platformApps.get(kept.platform, app).appId, openid: kept.openid };
  }

  /** Sets the player's coins on their platform for this app (both envs). */
  async setBalance(userId: string, app: string, balance: number): Promise<{ platform: string; appId: string; balance: number }> {
    const player = await this.player(userId, app);
    await this.control("/__simulator/coins", { ...player, balance });
    return { platform: player.platform, appId: player.appId, balance };
  }

  /**
   * The player buys an item in the platform's own payment UI, as the simulator plays it: it answers
   * the trade number at once and pushes the purchase to this server's push route, which records and
   * delivers the order under that number.
   */
  async purchaseItem(
    userId: string,
    app: string,
    purchase: { itemId: string; price: number; outTradeNo?: string },
  ): Promise<{ platform: string; appId: string; outTradeNo: string }> {
    const player = await this.player(userId, app);
    const answer = await this.control("/__simulator/item-purchase", { ...player, ...purchase });
    if (typeof answer.outTradeNo !== "string") throw new AppError("platform_unavailable", { data: { platform: "simulator", reason: "no outTradeNo in the answer" } });
    return { platform: player.platform, appId: player.appId, outTradeNo: answer.outTradeNo };
  }

  /**
   * The player watches a rewarded ad to its end, as the simulator plays it: WeChat's ad server
   * calls this server's ad-reward route with the verification data the client set (openid, and
   * the ad unit and watch id in customData). WeChat only: Douyin has no such callback.
   */
  async watchAd(userId: string, app: string, ad: { adUnitId: string; watchId: string }): Promise<{ platform: string; transactionId: string }> {
    const player = await this.player(userId, app);
    const answer = await this.control("/__simulator/ad-reward", { platform: player.platform, app: player.appId, openid: player.openid, ...ad });
    if (typeof answer.transactionId !== "string") throw new AppError("platform_unavailable", { data: { platform: "simulator", reason: "no transactionId in the answer" } });
    return { platform: player.platform, transactionId: answer.transactionId };
  }

  /** A refusal (the simulator's 400: e.g. no item purchases on that platform) is the request's fault; anything else the simulator's. */
  private async control(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(this.deps.simulatorUrl + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
    } catch (err) {
      throw new AppError("platform_unavailable", { data: { platform: "simulator" }, cause: err });
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status === 400) {
      throw new AppError("invalid_request", { message: `The simulator refused: ${String(answer.errmsg ?? "bad request")}`, data: { platform: body.platform } });
    }
    if (!response.ok) throw new AppError("platform_unavailable", { data: { platform: "simulator", reason: `HTTP ${response.status}` } });
    return answer;
  }
}

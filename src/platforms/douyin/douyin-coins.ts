/**
 * Douyin's game wallet (platform-apis-3 §3): balance, deduct, add coins, on developer.toutiao.com.
 * Bodies carry `access_token` and are signed with `mp_sig`; no session-key signature. Douyin has no
 * cancel: a refund of a Douyin coin order is refused (`payment_refused`) and handled by the operator.
 *
 * Unconfirmed, following the best evidence (the sheet, and the midas-style wallets QQ and Douyin
 * mirror): the `mp_sig` recipe below (the sheet lists org_loc both among the sorted parameters and
 * after them; we put it after them only, as midas does), the `add_coin` path, and the errcodes
 * (90013 insufficient balance, 90009 bad mp_sig as in QQ's table; 28001003 for a token, as on Douyin's
 * other mgplatform APIs). The simulator checks exactly this recipe.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import { WalletRefusal, type CoinBalance, type CoinWallet, type WalletCall } from "../../core/ports/coin-wallet";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../platform";
import { coinWalletHttp, unixSeconds, walletInteger, type CoinWalletDeps } from "../shared/coin-wallet-http";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";

export const DOUYIN_WALLET_PATHS = {
  balance: "/api/apps/game/wallet/get_balance",
  pay: "/api/apps/game/wallet/game_pay",
  present: "/api/apps/game/wallet/add_coin",
} as const;

/** The wallet's host, apart from the login API's. */
export const DOUYIN_WALLET_BASE_URL = "https://developer.toutiao.com";

/**
 * `mp_sig`: every parameter but mp_sig sorted by key as `k=v` joined by "&", then
 * `&org_loc=<path>&method=POST&secret=<secret>`, hex HMAC-SHA256 keyed by the payment secret.
 */
export function douyinMpSig(secret: string, path: string, params: Record<string, string | number>): string {
  const sorted = Object.keys(params)
    .filter((k) => k !== "mp_sig")
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join("&");
  const message = `${sorted}&org_loc=${path}&method=POST&secret=${secret}`;
  return crypto.createHmac("sha256", secret).update(message, "utf8").digest("hex");
}

export const DOUYIN_WALLET_ERRCODES = { busy: -1, badToken: 28001003, insufficient: 90013, badSig: 90009, badParams: 90018, duplicate: 90012 } as const;

export type DouyinCoinDeps = CoinWalletDeps;

export class DouyinCoinWallet implements CoinWallet {
  readonly platform = "douyin";
  private readonly http: PlatformClientDeps;
  private readonly nowSec: () => number;

  constructor(deps: CoinWalletDeps) {
    this.http = coinWalletHttp(deps);
    this.nowSec = deps.nowSec ?? unixSeconds;
  }

  async balance(call: WalletCall): Promise<CoinBalance> {
    return { balance: integer((await this.post(DOUYIN_WALLET_PATHS.balance, call, {})).balance) };
  }

  async pay(call: WalletCall, bill: { billNo: string; amount: number }): Promise<CoinBalance> {
    return { balance: integer((await this.post(DOUYIN_WALLET_PATHS.pay, call, { amount: bill.amount, bill_no: bill.billNo })).balance) };
  }

  async cancel(): Promise<void> {
    throw new WalletRefusal("payment_refused", "douyin", 0, "the Douyin game wallet has no cancel");
  }

  async present(call: WalletCall, bill: { billNo: string; amount: number }): Promise<CoinBalance> {
    return { balance: integer((await this.post(DOUYIN_WALLET_PATHS.present, call, { amount: bill.amount, bill_no: bill.billNo })).balance) };
  }

  private async post(path: string, call: WalletCall, fields: Record<string, string | number>): Promise<Record<string, unknown>> {
    const params: Record<string, string | number> = {
      openid: call.openid,
      appid: call.appId,
      ts: this.nowSec(),
      zone_id: call.keys.zoneId,
      pf: call.os ?? "android",
      access_token: call.accessToken,
      ...fields,
    };
    const body = { ...params, mp_sig: douyinMpSig(call.keys.appKey, path, params) };
    const reply = await callPlatformApi("douyin", this.http, { method: "POST", path, body, isBusy: (r) => errorNumber(r.errcode) === -1 });
    const errcode = errorNumber(reply.errcode);
    if (errcode === 0) return reply;
    const detail = { errcode, errmsg: str(reply.errmsg) };
    if (errcode === DOUYIN_WALLET_ERRCODES.busy) throw new AppError("platform_unavailable", { data: { platform: "douyin", reason: "busy", ...detail } });
    if (errcode === DOUYIN_WALLET_ERRCODES.badToken) throw new PlatformTokenRejectedError("douyin", call.accessToken, detail);
    const code = errcode === DOUYIN_WALLET_ERRCODES.insufficient ? "insufficient_balance" : errcode === DOUYIN_WALLET_ERRCODES.badSig ? "platform_misconfigured" : "payment_refused";
    throw new WalletRefusal(code, "douyin", errcode, detail.errmsg);
  }
}

function integer(value: unknown): number {
  return walletInteger(value, "douyin");
}

/**
 * WeChat mini-game game coins ("midas", platform-apis-3 §1): balance, deduct, cancel a deduction,
 * give coins. Every call is a POST whose exact body is signed twice: `signature` with the player's
 * session key (the user-state signature) and `pay_sig` with the app's AppKey over `uri&body`.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import { WalletRefusal, type CoinBalance, type CoinWallet, type WalletCall } from "../../core/ports/coin-wallet";
import type { PlatformClientDeps } from "../platform";
import { errcodeBusinessFailure } from "../shared/errcode-client";
import { coinWalletHttp, unixSeconds, walletInteger, type CoinWalletDeps } from "../shared/coin-wallet-http";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";

export const WECHAT_COIN_PATHS = {
  balance: "/wxa/game/getbalance",
  pay: "/wxa/game/pay",
  cancel: "/wxa/game/cancelpay",
  present: "/wxa/game/present",
} as const;

/** Hex HMAC-SHA256, the digest both signatures use. */
export function hmacHex(key: string, message: string): string {
  return crypto.createHmac("sha256", key).update(message, "utf8").digest("hex");
}

/** `pay_sig` (§1): keyed by the AppKey of the order's env, over the path, "&" and the exact body. */
export function wechatPaySig(appKey: string, uri: string, body: string): string {
  return hmacHex(appKey, `${uri}&${body}`);
}

/** The user-state `signature` (§1): keyed by the session key's text, over the exact body. */
export function wechatUserSignature(sessionKey: string, body: string): string {
  return hmacHex(sessionKey, body);
}

/** What the platform's errcodes mean for the caller; any other non-zero errcode is a refusal too. */
const REFUSALS: Record<number, ConstructorParameters<typeof WalletRefusal>[0]> = {
  90013: "insufficient_balance",
  90010: "payment_login_required",
  // 90009 (pay_sig; unconfirmed for WeChat, QQ's table), 90011 (signature), 90017 (payment not
  // enabled, unconfirmed): our keys or the console are wrong, not the player.
  90009: "platform_misconfigured",
  90011: "platform_misconfigured",
  90017: "platform_misconfigured",
};

const BAD_TOKEN_CODES = [40001, 42001, 40014];

export type WechatCoinDeps = CoinWalletDeps;

export class WechatCoinWallet implements CoinWallet {
  readonly platform = "wechat";
  private readonly http: PlatformClientDeps;
  private readonly nowSec: () => number;

  constructor(deps: CoinWalletDeps) {
    this.http = coinWalletHttp(deps);
    this.nowSec = deps.nowSec ?? unixSeconds;
  }

  async balance(call: WalletCall): Promise<CoinBalance> {
    const reply = await this.post(WECHAT_COIN_PATHS.balance, call, {});
    return { balance: integer(reply.balance) };
  }

  async pay(call: WalletCall, bill: { billNo: string; amount: number; itemId: string }): Promise<CoinBalance> {
    const reply = await this.post(WECHAT_COIN_PATHS.pay, call, { amount: bill.amount, bill_no: bill.billNo, payitem: bill.itemId });
    return { balance: integer(reply.balance) };
  }

  async cancel(call: WalletCall, bill: { billNo: string; payBillNo: string }): Promise<void> {
    await this.post(WECHAT_COIN_PATHS.cancel, call, { bill_no: bill.billNo, pay_bill_no: bill.payBillNo });
  }

  async present(call: WalletCall, bill: { billNo: string; amount: number }): Promise<CoinBalance> {
    const reply = await this.post(WECHAT_COIN_PATHS.present, call, { bill_no: bill.billNo, present_counts: bill.amount });
    return { balance: integer(reply.balance) };
  }

  /**
   * Serialises the body once and signs that text. callPlatformApi sends JSON.stringify of the same
   * object, which yields the same text (one object, same key order), so the bytes sent are the bytes signed.
   */
  private async post(uri: string, call: WalletCall, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { keys } = call;
    const body = {
      openid: call.openid,
      offer_id: keys.offerId,
      ts: this.nowSec(),
      zone_id: keys.zoneId,
      env: keys.env,
      ...fields,
    };
    const text = JSON.stringify(body);
    const appKey = keys.env === 1 ? keys.sandboxAppKey : keys.appKey;
    const reply = await callPlatformApi("wechat", this.http, {
      method: "POST",
      path: uri,
      query: {
        access_token: call.accessToken,
        signature: wechatUserSignature(call.sessionKey, text),
        sig_method: "hmac_sha256",
        pay_sig: wechatPaySig(appKey, uri, text),
      },
      body,
      isBusy: (r) => errorNumber(r.errcode) === -1,
    });
    const errcode = errorNumber(reply.errcode);
    if (errcode === 0) return reply;
    // Still busy after the retries: the deduction may or may not have happened.
    if (errcode === -1) throw new AppError("platform_unavailable", { data: { platform: "wechat", reason: "busy", errcode } });
    if (BAD_TOKEN_CODES.includes(errcode)) throw errcodeBusinessFailure({ platform: "wechat", errorTable: {}, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
    throw new WalletRefusal(REFUSALS[errcode] ?? "payment_refused", "wechat", errcode, str(reply.errmsg));
  }
}

function integer(value: unknown): number {
  return walletInteger(value, "wechat");
}

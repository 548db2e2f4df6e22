/**
 * A platform's coin wallet as the payment service sees it: WeChat's game coins (platform-apis-3 §1)
 * and Douyin's game wallet (§3) both fit. Every call names its app, its player and its access token
 * explicitly; nothing here knows which app a process serves.
 *
 * Outcomes: a resolved promise is the platform's yes; a `WalletRefusal` is its definite no (nothing
 * moved); any other error (timeout, network, "busy" past the retries, a malformed answer) means the
 * outcome is unknown, and the caller must retry with the same bill number before it concludes anything.
 */
import { AppError, type ErrorCode } from "../errors";

/** The keys a platform issues an app for payments (settings `<PLATFORM>_PAY_*`, per app). */
export interface PaymentKeys {
  /** WeChat's payment offer id (console); Douyin ignores it. */
  offerId: string;
  /** The game's partition, "1" unless the console says otherwise. */
  zoneId: string;
  /** 0 live, 1 sandbox: which key signs, and which balances the platform moves. */
  env: 0 | 1;
  /** WeChat's AppKey for `pay_sig` (live), Douyin's payment secret for `mp_sig`. */
  appKey: string;
  /** WeChat's sandbox AppKey (env 1); Douyin signs both envs with `appKey`. */
  sandboxAppKey: string;
}

export interface WalletCall {
  appId: string;
  keys: PaymentKeys;
  accessToken: string;
  openid: string;
  /** The player's kept session key: WeChat's user-state `signature` is keyed by it. */
  sessionKey: string;
  /** Douyin's `pf`: the player's OS ("android" when unknown). */
  os?: "android" | "ios";
}

export interface CoinBalance {
  balance: number;
}

export interface CoinWallet {
  readonly platform: string;
  balance(call: WalletCall): Promise<CoinBalance>;
  /** Deducts `amount`; idempotent per bill number (a repeat answers the original outcome). */
  pay(call: WalletCall, bill: { billNo: string; amount: number; itemId: string }): Promise<CoinBalance>;
  /** Gives back a deduction; `billNo` is the cancel's own number. Platforms without a cancel throw `payment_refused`. */
  cancel(call: WalletCall, bill: { billNo: string; payBillNo: string; amount: number }): Promise<void>;
  /** Gives coins; idempotent per bill number. */
  present(call: WalletCall, bill: { billNo: string; amount: number }): Promise<CoinBalance>;
}

/** The platform said no: nothing was deducted or given. `code` is what the client sees. */
export class WalletRefusal extends AppError {
  constructor(
    code: Extract<ErrorCode, "insufficient_balance" | "payment_login_required" | "payment_refused" | "platform_misconfigured">,
    readonly platform: string,
    readonly errcode: number,
    errmsg: string,
  ) {
    super(code, { data: { platform, errcode, errmsg } });
  }
}

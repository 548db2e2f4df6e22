/**
 * Players' coin balances and the bill numbers the simulated wallets have seen, per platform, app
 * and env (sandbox coins are not live coins). A bill number is remembered for BILL_WINDOW_MS
 * (WeChat keeps them "about 48 hours", unconfirmed): a repeat within it answers the original reply
 * and moves nothing; a repeat with other content is refused.
 */
export const BILL_WINDOW_MS = 48 * 3600_000;
const MAX_BILLS = 200_000;

export type Env = 0 | 1;

interface Bill {
  /** What the bill was for (kind, openid, amount): a repeat must match it. */
  fingerprint: string;
  reply: Record<string, unknown>;
  at: number;
  /** For a deduction: the cancel bill that gave it back, once one did. */
  cancelledBy?: string;
  amount: number;
  openid: string;
}

export interface PlayerCoins {
  balance: number;
  /** Successful deductions (each bill number once): what a test counts to see "never twice". */
  deductions: number;
  presents: number;
  cancels: number;
}

export class CoinBook {
  private readonly players = new Map<string, PlayerCoins>();
  private readonly bills = new Map<string, Bill>();

  constructor(private readonly now: () => number) {}

  player(platform: string, appId: string, env: Env, openid: string): PlayerCoins {
    const key = [platform, appId, env, openid].join("\0");
    let coins = this.players.get(key);
    if (!coins) this.players.set(key, (coins = { balance: 0, deductions: 0, presents: 0, cancels: 0 }));
    return coins;
  }

  setBalance(platform: string, appId: string, openid: string, balance: number, env?: Env): void {
    for (const e of env === undefined ? ([0, 1] as const) : [env]) this.player(platform, appId, e, openid).balance = balance;
  }

  /** The bill as first answered, or undefined when the number is new (or past the window). */
  bill(platform: string, appId: string, env: Env, billNo: string): Bill | undefined {
    const key = [platform, appId, env, billNo].join("\0");
    const bill = this.bills.get(key);
    if (bill && this.now() - bill.at > BILL_WINDOW_MS) {
      this.bills.delete(key);
      return undefined;
    }
    return bill;
  }

  remember(platform: string, appId: string, env: Env, billNo: string, bill: Omit<Bill, "at">): void {
    this.bills.set([platform, appId, env, billNo].join("\0"), { ...bill, at: this.now() });
    if (this.bills.size > MAX_BILLS) this.bills.delete(this.bills.keys().next().value as string);
  }
}

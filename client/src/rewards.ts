/**
 * Rewards outside purchases (the server's docs/economy-rewards.md): the player's mail and its
 * attachments, and rewarded ads that the platform verifies with the server. `watchAd` shows the ad
 * with the verification data the server reads back from WeChat's callback (the player's openid,
 * and `{"adUnitId", "watchId"}` as customData), then waits until the server has granted it.
 */
import { ApiError } from "./errors";
import type { AuthedRequest } from "./payments";

export interface MailAttachments {
  currencies?: Record<string, number>;
  items?: Array<{ itemId: string; count: number }>;
}

/** A mail as the player sees it. */
export interface Mail {
  mailId: string;
  /** The player's own mail, or null: a mail to every player of the game. */
  userId: string | null;
  title: string;
  body: string;
  attachments: MailAttachments;
  createdAt: string;
  expiresAt: string;
  claimed: boolean;
  claimedAt: string | null;
}

/** A grant as the server answers it: `granted` false on a replay (nothing more was given). */
export interface RewardResult {
  granted: boolean;
  balances: Record<string, number>;
  items: Array<{ itemId: string; count: number }>;
}

export async function mail(request: AuthedRequest): Promise<Mail[]> {
  return (await request<{ mail: Mail[] }>("GET", "/api/mail")).mail;
}

/** Claims a mail's attachments; claiming again answers the same and grants nothing more. */
export function claim(request: AuthedRequest, mailId: string): Promise<RewardResult & { mailId: string }> {
  return request("POST", `/api/mail/${encodeURIComponent(mailId)}/claim`);
}

/**
 * Redeems a Douyin gift code the player brought (tt.onShow's query `game_cdkey`, or typed in); a
 * repeat answers the same with `granted: false`. Refusals throw the server's code (`gift_code_invalid`, …).
 */
export function redeemGiftCode(request: AuthedRequest, code: string, envType?: string): Promise<RewardResult & { code: string; giftId: string | null }> {
  return request("POST", "/api/rewards/gift-codes", envType ? { code, envType } : { code });
}

/** What the platform's rewarded-ad component is given before `show()` (WeChat's setServerSideVerificationData). */
export interface AdVerification {
  userId: string;
  rewardItem: string;
  rewardAmount: number;
  customData: string;
}

/** Shows one rewarded ad; resolves whether the player watched it to the end. */
export type ShowRewardedAd = (ad: { adUnitId: string; verification: AdVerification }) => Promise<{ ended: boolean }>;

export interface WatchAdOptions {
  /** How the ad is shown: default, the runtime's rewarded-ad component. The playground passes the simulator's. */
  show?: ShowRewardedAd;
  timeoutMs?: number;
  intervalMs?: number;
}

export interface AdRewardResult extends RewardResult {
  watchId: string;
  adUnitId: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function newWatchId(): string {
  const random = Math.random().toString(36).slice(2, 12);
  return `w${Date.now().toString(36)}${random}`;
}

/**
 * Shows a rewarded ad and resolves once the server granted its reward (the platform's verified
 * callback has arrived). Rejects with `ad_not_finished` when the player closed it early,
 * `ad_daily_cap` when the player had used up the unit's views today, `ad_reward_timeout` when no
 * verification came in time.
 */
export async function watchAd(request: AuthedRequest, openid: string, adUnitId: string, show: ShowRewardedAd, options: WatchAdOptions = {}): Promise<AdRewardResult> {
  const watchId = newWatchId();
  const verification = { userId: openid, rewardItem: adUnitId, rewardAmount: 1, customData: JSON.stringify({ adUnitId, watchId }) };
  const { ended } = await show({ adUnitId, verification });
  if (!ended) throw new ApiError(0, "ad_not_finished", "the ad was closed before its end: no reward");
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    try {
      const view = await request<{ granted: boolean; capped: boolean; adUnitId: string; balances: Record<string, number>; items: RewardResult["items"] }>("GET", `/api/ads/views/${encodeURIComponent(watchId)}`);
      if (view.capped) throw new ApiError(200, "ad_daily_cap", "the player has used up this ad unit's rewarded views today", view);
      // `granted` says whether this view was granted at all; a repeat of its grant changes nothing.
      return { watchId, adUnitId, granted: view.granted, balances: view.balances, items: view.items };
    } catch (err) {
      if ((err as { code?: string }).code !== "ad_view_pending") throw err;
    }
    if (Date.now() >= deadline) throw new ApiError(0, "ad_reward_timeout", "the platform did not verify the ad view in time");
    await sleep(options.intervalMs ?? 1000);
  }
}

/** The mini-game component: `createRewardedVideoAd`, verification data before `show()`, `onClose` once. */
export interface RewardedAdApi {
  createRewardedVideoAd?(options: { adUnitId: string }): {
    setServerSideVerificationData?(data: AdVerification): void;
    show(): Promise<unknown>;
    load(): Promise<unknown>;
    onClose(listener: (result?: { isEnded?: boolean }) => void): void;
    offClose?(listener: (result?: { isEnded?: boolean }) => void): void;
  };
}

export function showWithRuntime(api: RewardedAdApi): ShowRewardedAd {
  return ({ adUnitId, verification }) => {
    const ad = api.createRewardedVideoAd?.({ adUnitId });
    if (!ad) return Promise.reject(new Error("this runtime has no rewarded video ads"));
    // Below base library 3.10.3 there is no server-side verification: the reward would never land.
    if (!ad.setServerSideVerificationData) return Promise.reject(new Error("rewarded-ad server verification needs base library 3.10.3 or later"));
    ad.setServerSideVerificationData(verification);
    return new Promise((resolve, reject) => {
      const onClose = (result?: { isEnded?: boolean }) => {
        ad.offClose?.(onClose);
        // Before base library 2.1.0 there is no isEnded: closing meant the end.
        resolve({ ended: result === undefined || result.isEnded !== false });
      };
      ad.onClose(onClose);
      ad.show().catch(() => ad.load().then(() => ad.show())).catch((err: unknown) => {
        ad.offClose?.(onClose);
        reject(err);
      });
    });
  };
}

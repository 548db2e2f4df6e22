/**
 * Rewarded-ad views the platform verified: one record per (app, platform transaction id), holding
 * one of the player's daily slots for its ad unit. The slot is the daily cap: slots 1..cap of
 * (app, user, ad unit, day) are claimed by insert, so concurrent views past the cap find every slot
 * taken, on every store (FerretDB included: nothing here is a conditional update). A view past the
 * cap is recorded too (slot null), so a replay of it answers the same.
 */

export interface AdView {
  appId: string;
  /** The platform's id of this ad view (WeChat's transaction_id): the grant's source id. */
  transactionId: string;
  userId: string;
  adUnitId: string;
  /** The player's day the view counts against, `YYYY-MM-DD` (derived from the platform's timestamp). */
  day: string;
  /** 1..cap; null when the view came past the daily cap (nothing is granted for it). */
  slot: number | null;
  /** The client's id for this view (watchAd), when it gave one. */
  watchId: string | null;
  createdAt: string;
}

export type NewAdView = Omit<AdView, "slot">;

export interface AdViewStore {
  /**
   * Records the view in the first free slot up to `cap`, or past the cap (slot null). A view whose
   * transaction id is already recorded is returned as it was (`created` false), whatever its user.
   */
  record(view: NewAdView, cap: number): Promise<{ view: AdView; created: boolean }>;
  findByWatch(appId: string, userId: string, watchId: string): Promise<AdView | undefined>;
  /** A player's views, newest first (export). */
  listForUser(appId: string, userId: string): Promise<AdView[]>;
  close(): Promise<void>;
}

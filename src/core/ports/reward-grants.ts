/**
 * The one way anything of value reaches a player's wallet or inventory: a grant keyed by its
 * source. Purchases, rewarded ads, gift packs and codes, mail claims, operator grants, season
 * rewards and imports all pass through here, so "exactly once" is decided in one place: a second
 * grant with the same (appId, source, sourceId) changes nothing and answers the first one's result.
 * The economy implements it over its ledger; leaderboards, the console and the importer only call it.
 */

export const REWARD_SOURCES = [
  "coin_order",
  "item_push",
  "purchase",
  "ad_reward",
  "gift_pack",
  "gift_code",
  "mail",
  "operator",
  "leaderboard",
  "import",
  // Growth surfaces (docs/growth.md): once per player per studio day, keyed `<surface>:<day>:<userId>`.
  "sidebar",
  "game_club",
] as const;
export type RewardSource = (typeof REWARD_SOURCES)[number];

export interface ItemCount {
  itemId: string;
  count: number;
}

export interface RewardGrant {
  /** Which game: balances and items are kept per app. */
  appId: string;
  userId: string;
  source: RewardSource;
  /** Unique per (appId, source): the order id, the callback's trans id, the mail id + user, the board period + rank… */
  sourceId: string;
  /** Soft currencies to add, by currency id (positive integers). */
  currencies?: Record<string, number>;
  items?: ItemCount[];
  /** Free text kept with the ledger entry (operator grants, season names); never shown as an item. */
  reason?: string;
  /** The live event whose reward multiplier applies (kept with the ledger entry). */
  liveEvent?: string;
  /**
   * A per-player cap, decided in the same ledger step as the grant (race-free): the grant is refused
   * (`reward_cap_reached`, nothing recorded in the wallet) once the player got `limit` grants under
   * `key`, e.g. `ad:<adUnitId>:<UTC day>` for a rewarded ad's daily cap.
   */
  cap?: { key: string; limit: number };
}

export interface RewardGrantResult {
  /** False when this (appId, source, sourceId) was granted before: nothing changed this time. */
  granted: boolean;
  /** The player's balances after the grant (or after the first one, on a repeat). */
  balances: Record<string, number>;
  /** The counts after the grant of the items this grant touched. */
  items: ItemCount[];
}

export interface RewardGranter {
  grant(grant: RewardGrant): Promise<RewardGrantResult>;
}

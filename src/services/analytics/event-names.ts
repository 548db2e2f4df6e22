/** The events the server writes where the facts happen (docs/analytics.md lists their props). */
export const SERVER_EVENTS = {
  /** props: new (the account was created by this login), appVersion when the client sent it. */
  login: "login",
  /** A player seated in a room; props: room. */
  sessionStart: "session_start",
  /** The player left the room for good; props: room, seconds. */
  sessionEnd: "session_end",
  /** A paid order delivered; props: kind, revenue (an integer in `unit`), unit, coins. */
  orderDelivered: "order_delivered",
  /** A purchase with soft currency; props: itemId, quantity, and the price per currency (`cost_<currency>`). */
  softPurchase: "soft_purchase",
  /** A rewarded ad the platform verified; props: adUnitId, granted (false past the daily cap). */
  adReward: "ad_reward",
  /** A gift pack or gift code granted; props: source (gift_pack, gift_code), sourceId, currency_<id>, items. */
  gift: "gift_granted",
  /** A mail's attachments claimed; props as gift_granted (sourceId: `<mailId>:<userId>`). */
  mailClaim: "mail_claimed",
  /** An operator's grant from the console; props as gift_granted. */
  operatorGrant: "operator_grant",
  /**
   * Soft currency from a source whose own event carries no amounts, or that has none: a rewarded ad,
   * the sidebar and game-club rewards, season rewards, the currency of a paid order. props: source,
   * sourceId, currency_<id>.
   */
  currencyGranted: "currency_granted",
  /** A score submitted to a leaderboard (counted; the score itself is not kept); props: board, improved. */
  leaderboardSubmit: "leaderboard_submit",
  /** Douyin's feed asked for a known player's ready scenes; props: ready (how many), scenes ("1,2"). */
  feedPull: "douyin_feed_pull",
} as const;

/** Client events (POST /api/events) are stored under this prefix, so no client can write a server event. */
export const CLIENT_EVENT_PREFIX = "client.";

/**
 * One error model for both edges. Every failure a client can cause is an `AppError` with a stable
 * machine code; the HTTP edge maps it to status + envelope, the room edge to a Colyseus ServerError.
 * The table is also the source for the error codes listed in the API description.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, message: "The request is invalid" },
  route_not_found: { status: 404, message: "No such route" },
  method_not_allowed: { status: 405, message: "This method is not allowed here; the Allow header lists the ones that are" },
  internal_key_invalid: { status: 401, message: "A valid X-Internal-Key header is required" },
  platform_code_invalid: {
    status: 401,
    message: "The platform rejected the login code; obtain a new code and log in again",
  },
  platform_user_blocked: { status: 403, message: "The platform blocked this user's login" },
  platform_rate_limited: { status: 429, message: "The platform's rate limit was reached; retry later" },
  platform_misconfigured: { status: 502, message: "The platform rejected this server's credentials" },
  platform_unavailable: { status: 502, message: "The platform could not be reached; retry later" },
  platform_identity_missing: { status: 502, message: "The platform returned no usable user identity" },
  live_room_unavailable: { status: 409, message: "Douyin does not know this live room, its stream has ended, or live pushes are not enabled for this app" },
  live_token_invalid: { status: 401, message: "The streamer's launch token is missing, invalid or expired; launch the game again" },
  unknown_platform: { status: 404, message: "Unknown platform" },
  unknown_app: { status: 400, message: "This server does not serve that app id on this platform" },
  app_mismatch: { status: 403, message: "The access token belongs to another app than this room's" },
  token_missing: { status: 401, message: "An access token is required" },
  token_invalid: { status: 401, message: "The access token is invalid" },
  token_expired: { status: 401, message: "The access token has expired" },
  session_revoked: { status: 401, message: "The session has ended; log in again" },
  user_disabled: { status: 403, message: "The user does not exist or is disabled" },
  player_not_found: { status: 404, message: "No such player (never created, or erased)" },
  refresh_token_reused: { status: 401, message: "The refresh token was already used; the session has ended" },
  refresh_token_invalid: { status: 401, message: "The refresh token is invalid or its session has ended" },
  account_exists: { status: 409, message: "That username or email is already taken" },
  invalid_credentials: { status: 401, message: "Wrong username, email or password" },
  session_key_missing: {
    status: 409,
    message: "No platform session key is kept for this player on this platform; log in again",
  },
  session_key_stale: {
    status: 409,
    message: "The data was not encrypted with the kept session key (the player logged in again); fetch it again",
  },
  session_key_rejected: {
    status: 409,
    message: "The platform no longer accepts the kept session key (the player logged in again elsewhere); log in again",
  },
  player_storage_full: { status: 409, message: "The player's platform storage is full (at most 128 keys); remove keys first" },
  subscribe_not_granted: {
    status: 409,
    message: "The player has no unused grant of this subscribe template; ask in the game again (requestSubscribe)",
  },
  subscribe_invalid: { status: 422, message: "The platform refused the template, page or data of this subscribe message" },
  watermark_mismatch: { status: 422, message: "The decrypted data belongs to another app" },
  content_moderated: {
    status: 422,
    message: "The text was refused by content moderation; change it and try again",
  },
  muted: { status: 403, message: "An operator muted you: your chat is refused until the mute ends" },
  version_conflict: { status: 409, message: "The record was changed by someone else; reload it and retry" },
  recent_login_required: {
    status: 403,
    message: "Setting a first password needs a login from the last few minutes; log in again",
  },
  login_grade_insufficient: {
    status: 403,
    message: "This needs a login with the platform code or a password; an anonymous login is not enough",
  },
  payments_disabled: { status: 404, message: "Payments are not set up for this app on this platform" },
  order_not_found: { status: 404, message: "No such order for this player" },
  order_conflict: { status: 409, message: "This orderId was already used for a different item or amount" },
  order_refund_unsupported: { status: 409, message: "This order cannot be refunded from here: the platform has no refund for it (give coins back with a grant, or refund a pushed purchase on the platform and record it)" },
  order_still_refused: { status: 409, message: "The catalog still refuses this pushed purchase (data.reason): fix the item or its price in the catalog first; nothing was delivered" },
  insufficient_balance: { status: 402, message: "The player does not have enough coins; nothing was deducted" },
  payment_login_required: {
    status: 502,
    message: "The platform no longer accepts this player's session for payments; nothing was deducted: log in again and retry the same orderId",
  },
  payment_refused: { status: 502, message: "The platform refused the payment; nothing was deducted" },
  push_signature_invalid: { status: 401, message: "The signature does not verify with the message-push Token of any app on this platform" },
  payment_unconfirmed: {
    status: 502,
    message: "The platform did not confirm the payment in time; retry the same orderId or read the order later (it is never charged twice)",
  },
  mail_not_found: { status: 404, message: "No such mail for this player" },
  mail_expired: { status: 410, message: "The mail has expired; its attachments can no longer be claimed" },
  ad_view_pending: { status: 404, message: "The platform has not confirmed this ad view yet; ask again shortly" },
  gift_code_invalid: { status: 404, message: "The platform does not know this gift code for this player; check the code" },
  gift_code_used: { status: 409, message: "This gift code was redeemed already (by another player, or elsewhere); nothing was granted" },
  gift_codes_unsupported: { status: 404, message: "Gift codes are redeemed on Douyin: this app is not on Douyin here, or the player has no Douyin login on it" },
  gift_pack_unknown: { status: 409, message: "The platform confirmed the code, but this app's catalog has no such gift pack yet; retry once the operator adds it" },
  growth_reward_unconfigured: { status: 404, message: "This app's catalog has no such growth reward (growthRewards)" },
  growth_unsupported: { status: 404, message: "This growth surface is not on this app's platform here, or the player has no login on that platform" },
  not_from_sidebar: { status: 422, message: "The launch scene is not Douyin's sidebar (launch_from homepage, location sidebar_card); nothing was granted" },
  open_data_unexpected: { status: 422, message: "The decrypted data does not have the shape this route reads; nothing was recorded" },
  open_data_expired: { status: 422, message: "The encrypted data was sealed too long ago (or in the future); fetch it again" },
  share_not_found: { status: 404, message: "No such share for this app (unknown, another app's, or expired)" },
  risky_player: { status: 403, message: "The platform rates this player too risky for this reward; nothing was granted" },
  support_conversation_not_found: { status: 404, message: "This player has sent no customer-service message on this app; there is nobody to reply to" },
  support_reply_window_closed: { status: 409, message: "The platform refuses replies now: the player's last message is too old (WeChat: 48 hours) or the replies allowed to it are used up; nothing was sent" },
  item_not_found: { status: 404, message: "No such item on sale in this app's catalog" },
  price_mismatch: { status: 409, message: "The coins sent differ from the catalog's price times the quantity; nothing was deducted" },
  order_too_large: { status: 422, message: "The catalog's price times the quantity is more than one order may cost (data.maxCoins); nothing was recorded or deducted" },
  purchase_limit: { status: 409, message: "The player has reached this item's purchase limit" },
  already_owned: { status: 409, message: "The player already owns this item (it can be owned once)" },
  insufficient_funds: { status: 402, message: "The player does not have enough of the item's currency; nothing was deducted" },
  source_conflict: { status: 409, message: "This id was already used by another player or for something else" },
  reward_cap_reached: { status: 429, message: "The player has had this reward as often as allowed for now (e.g. today's ad views); nothing was granted" },
  catalog_invalid: { status: 422, message: "The catalog has problems; nothing was changed" },
  not_in_catalog: { status: 422, message: "A currency or item is not in the app's catalog; nothing was given or taken" },
  catalog_version_not_found: { status: 404, message: "No such catalog version for this app" },
  liveops_invalid: { status: 422, message: "The liveops definitions have problems; nothing was changed, the running version stays" },
  liveops_version_not_found: { status: 404, message: "No such liveops version for this app" },
  experiment_not_found: { status: 404, message: "No such experiment in the running liveops definitions" },
  board_not_found: { status: 404, message: "No such leaderboard for this app" },
  client_submit_disabled: { status: 403, message: "This leaderboard takes scores from the game server only" },
  score_out_of_bounds: { status: 400, message: "The score is outside this leaderboard's bounds" },
  no_record: { status: 404, message: "The player has no record on this leaderboard in this period" },
  banned_from_board: { status: 403, message: "The player is banned from this leaderboard" },
  tournament_not_active: { status: 409, message: "The tournament has not started or has ended" },
  tournament_join_required: { status: 403, message: "Join the tournament before submitting scores" },
  tournament_full: { status: 409, message: "The tournament has reached its maximum size" },
  save_not_found: { status: 404, message: "No such saved object (or it is another player's and not public)" },
  save_write_forbidden: { status: 403, message: "This collection is written by the game server only" },
  save_name_invalid: { status: 400, message: "The collection or key is not a valid name (letters, digits, _ and -; a key may also hold . and :)" },
  save_value_not_object: { status: 400, message: "The value must be a JSON object" },
  save_too_large: { status: 400, message: "The value is larger than a saved object may be" },
  save_too_deep: { status: 400, message: "The value nests objects and arrays deeper than allowed" },
  save_number_invalid: { status: 400, message: "The value holds a number that cannot be kept exactly (beyond ±2^53, or not finite)" },
  save_text_invalid: { status: 400, message: "The value holds text that is not valid Unicode (a lone surrogate)" },
  save_key_reserved: { status: 400, message: "The value holds a reserved field name (starting with $, or __proto__)" },
  save_batch_invalid: { status: 400, message: "The batch is empty, too large, or names one object twice" },
  save_limit_reached: { status: 409, message: "The player keeps as many saved objects as allowed; delete some first" },
  console_sign_in_required: { status: 401, message: "Sign in to the console first (the session may have ended)" },
  console_csrf_invalid: { status: 403, message: "The request lacks this session's CSRF token (X-CSRF-Token); reload the console" },
  console_role_forbidden: { status: 403, message: "Your operator role does not allow this" },
  console_password_change_required: { status: 403, message: "Choose a new password before anything else" },
  console_totp_required: { status: 401, message: "A valid one-time code from your authenticator is required" },
  console_https_required: { status: 403, message: "The console signs in over HTTPS only" },
  last_admin: { status: 409, message: "This is the last active admin: make another operator admin first (npm run admin -- operator role <name> admin)" },
  operator_locked: { status: 429, message: "Too many wrong passwords: this sign-in is locked for a while" },
  rate_limited: { status: 429, message: "Too many requests; retry later" },
  payload_too_large: { status: 413, message: "The request body is too large" },
  unsupported_media_type: { status: 415, message: "The request body must be JSON" },
  service_unavailable: { status: 503, message: "A backing service is unavailable; retry later" },
  internal_error: { status: 500, message: "Internal server error" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  /** Public message; defaults to the code's standard text. */
  message?: string;
  /** Extra public fields placed in the envelope's `data` beside `code`. */
  data?: Record<string, unknown>;
  /** Internal cause, logged, never sent to the client. */
  cause?: unknown;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly status: number;
  readonly data: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: AppErrorOptions = {},
  ) {
    super(options.message ?? ERROR_CODES[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.status = ERROR_CODES[code].status;
    this.data = options.data ?? {};
    this.headers = options.headers ?? {};
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

export function invalidRequest(problems: FieldProblem[]): AppError {
  const message = problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join("; ");
  return new AppError("invalid_request", { message: message || undefined, data: { fields: problems } });
}

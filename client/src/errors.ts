/**
 * Every failure the client reports: the server's HTTP status and its stable `data.code`
 * (`token_expired`, `platform_code_invalid`, `rate_limited`…), or one of the client's own codes:
 * `network_error` (no answer), `not_logged_in`, `matchmake_failed`, `room_connect_failed`.
 */
export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server never answered. */
    readonly status: number,
    readonly code: string,
    message: string,
    /** The envelope's `data` (e.g. `fields` for `invalid_request`, `Retry-After` hints). */
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Codes after which the stored session is dead: the player must log in again. */
export const SESSION_ENDING_CODES: ReadonlySet<string> = new Set([
  "session_revoked",
  "user_disabled",
  "token_invalid",
  "refresh_token_reused",
  "refresh_token_invalid",
]);

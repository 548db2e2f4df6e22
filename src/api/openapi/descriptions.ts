/**
 * Prose of the API description: the decisions the interface spec leaves "not shown" (status
 * codes, failure envelope, session rules), stated where client authors will read them.
 */
import { ERROR_CODES } from "../../core/errors";

/**
 * Simulator codes for "Try it out": each works once, so edit the number before executing again.
 * Swagger UI gets a fresh player per page load (docs-routes.ts); the JSON document keeps these.
 */
export const CODE_EXAMPLES: Record<string, string> = {
  jsCode: "alice.1",
  code: "bob.1",
  anonymous_code: "device7.1",
};

export const SESSION_NOTE =
  "**One session per user and game:** a new login (mini-game or account) ends the previous session of the same app " +
  "(the token's `app` claim: `default`, or a key of the server's APPS_FILE); its access token then answers `session_revoked`. " +
  "Sessions in the studio's other games go on.";

export const PASSWORD_BUDGET_NOTE =
  "**Password budget:** each account has one budget of RATE_LIMIT_ACCOUNT_MAX (default 10) password attempts per " +
  "RATE_LIMIT_ACCOUNT_WINDOW_SEC (default 300 s), shared by login by username, login by email (in any letter case) " +
  "and the `currentPassword` check of `PUT /api/users/me/password`. Past it: 429 `rate_limited` with `Retry-After`, " +
  "even for the right password. An identifier that names no account has a budget of its own.";

export const API_DESCRIPTION = `Logs mini-game players in with their platform's login code and issues a JWT that opens the
protected routes and the real-time rooms (join \`lobby\` with \`{ accessToken: token }\`).

### Trying it
With the platform simulator, a code is \`<player>.<n>\`: \`alice.1\` and \`alice.2\` are the same player. **Each code
works once** (like real codes), so change the number before executing again. Prefixes pick an outcome: \`invalid…\`,
\`busy…\`, \`blocked…\`, \`ratelimited…\`, \`noid…\` (no usable identity). Copy \`data.token\` from a login into
**Authorize → bearerAuth** to call the protected routes.

Every answer under \`/api\` is \`{ success, message, data }\`; on failure \`data.code\` is a stable machine code.
**Reference** — status codes, hostile input, client addresses and rate limits, CORS, matchmaking, sessions and the
cache keys, session grades, names and seats, and every error code: [/api-docs/reference](/api-docs/reference)
(Markdown, from the same source as this page).
`;

/** The rules every route follows: a page of its own (/api-docs/reference), not a wall of text above the routes. */
export const API_REFERENCE = `### Envelope
Every answer under \`/api\` is \`{ success, message, data }\`. On failure \`success\` is \`false\`, \`message\` is
human text and \`data.code\` a stable machine code; switch on the code, never on the message. Extra fields in \`data\`:
\`fields\` (validation problems), \`retryAfterSec\` (rate limits), \`requestId\` (internal errors), and on mini-game login
failures the platform's own fields with \`token: ""\` and \`user: null\`.

### Status codes
200 success (201 for registration); 400 invalid input; 401 missing or bad credentials or token; 403 known but not
allowed; 404 \`route_not_found\` for any unknown route under \`/api\`, including a player-data route the platform does
not offer; 409 conflicts (also a session key that is missing or stale); 422 decrypted data of another app, or text
refused by content moderation (\`content_moderated\`); 413 JSON bodies over 16 KiB; 415 a body that is not UTF-8
JSON; 429 our limits (with \`Retry-After\`) or the platform's quota; 500 a bug (fixed text plus \`requestId\`, never a
stack trace); 502 the platform failed or rejected our credentials; 503 the cache or database is unavailable.

### Methods, paths and hostile input
- \`HEAD\` is not served under \`/api\`: 405 \`method_not_allowed\` with \`Allow: GET\`. (A GET here can log in and use up
  the player's one-time code, or fetch a platform token; a HEAD must do neither.)
- \`OPTIONS\` with \`Origin\` and \`Access-Control-Request-Method\` is a CORS preflight: 204 (see CORS). Any other
  \`OPTIONS\` under \`/api\` is 405 \`method_not_allowed\` with the path's methods in \`Allow\` (404 \`route_not_found\`
  where no route is).
- Any path no route serves, also outside \`/api\` (\`//api/users/me\`, \`/api\\users\\me\`), is 404 \`route_not_found\` in the
  envelope.
- A string containing NUL (U+0000) anywhere in a query or body is 400 \`invalid_request\`, on every route and store.
- A URL that is not valid percent-encoding (\`%ZZ\`, a lone \`%\`, a truncated or overlong UTF-8 sequence) in its path or
  query is 400 \`invalid_request\` on every route, also outside \`/api\` (under \`/matchmake\`: \`{"code":400,"error":…}\`).
- A POST, PUT, PATCH or DELETE under \`/api\` with a body that is not \`application/json\` is 415 \`unsupported_media_type\`
  (the push URLs excepted: they read their own bodies). An empty body is no body, whatever its type or framing (\`Content-Length: 0\`
  or zero bytes in \`Transfer-Encoding: chunked\`).
- A body whose \`Content-Encoding\` (gzip, deflate, br) does not decompress is 400 \`invalid_request\`.

### Client address and rate limits
Per-IP limits (\`RATE_LIMIT_IP_MAX\` per route group, and matchmaking) count the client's address: the socket's peer
address, unless the server is configured with \`TRUST_PROXY\` (Express's "trust proxy": a hop count or the proxies'
addresses); then \`X-Forwarded-For\` is read from the nearest hop outwards through the trusted proxies. \`X-Real-IP\` is
never read. The same rule applies to \`/api\`, to matchmaking and to the address the rooms see, so rotating or forging
these headers neither escapes a limit nor spends someone else's. An IPv6 client is counted by its /64 network (what
one subscriber line or host is usually given), an IPv4 client by its address.

### CORS
Browsers may read answers of \`/api\` and \`/matchmake\` only from the origins in the server's \`CORS_ORIGINS\` (with
credentials); a preflight is answered 204, with CORS headers only for an allowed origin. By default every origin in
development and none in production. Mini-game runtimes are not browsers and need no CORS.

### Matchmaking (Colyseus, outside this description)
\`POST /matchmake/<method>/<room>\` keeps Colyseus 0.18's own answers: 200 with the seat reservation (\`name\`,
\`roomId\`, \`processId\`, \`sessionId\`, \`publicAddress\`), or, for a refused join, the refusal's code as the HTTP status
with \`{ code, error }\` (\`error\` is one of the codes below, e.g. 429 \`rate_limited\`; Colyseus's own codes 520–526 are
statuses too). The server's own refusals use that shape: 400 (body not a JSON object), 405 with
\`Allow: POST, OPTIONS\` (any other method), 413 (body above 16 KiB, refused before it is read).

### Sessions
- A login starts a session: a short-lived access token and a refresh token that share a session id.
- A protected request needs the **current** access token of an active user: the server keeps one access and one
  refresh token per user, so **a new login ends the previous session** at once.
- Refresh rotates: each refresh token works once. A retry of the same refresh token within REFRESH_GRACE_SEC
  (default 10 s) gets the same new pair; a later reuse ends the session (\`refresh_token_reused\`).
- Logout, a new login, refresh-token reuse, a password change or disabling the user end the session. Room connections
  of that session are closed by the server.
- \`user.id\` (the JWT's \`userId\` claim) is the local UUID, **not** the platform openid.
- **Cache keys** (spec 5.5, for the studio's other services): \`access_token:<userId>\` and \`refresh_token:<userId>\`
  hold the default app's current tokens, with the user's id and no braces; another app's add \`:<app>\`
  (\`access_token:<userId>:puzzle\`), all under the server's CACHE_KEY_PREFIX. Only on a Redis Cluster
  (REDIS_CLUSTER_NODES) is the id a hash tag, \`access_token:{<userId>}\`, so a user's keys share one slot.

### Session grades
Every session has a grade, carried by both tokens as the \`grade\` claim and kept across refreshes (like the login
time):
- **full**: a login with a platform code (WeChat \`jsCode\`, Douyin \`code\`), or with a password (login, register,
  password change).
- **anonymous**: a Douyin login whose user was found by the anonymous id alone (\`anonymous_code\` without \`code\`).
  Whoever holds the device presents that id, so it still leads to the player's progress but cannot take the account:
  \`PUT /api/users/me/password\` answers 403 \`login_grade_insufficient\`. Erasing an account needs a full grade too,
  unless that anonymous id is the account's only way in (no other identity, no chosen password).
- A token without the claim (issued before grades existed) counts as anonymous.

### Names, chat and seats
- **Accounts ignore letter case:** \`Alice\`, \`alice\` and \`ALICE\` are one username (emails likewise); the form
  registered is the one shown. Login by username or email matches in any case.
- **Text rule** (nickname, avatar, lobby chat; one rule for HTTP and rooms): text with control characters (newlines and
  tabs included), bidi embeddings, overrides or isolates (U+202A–202E, U+2066–2069), directional marks, zero-width
  spaces, word joiners, soft hyphens, tag characters or Hangul fillers is refused, not altered: 400
  \`invalid_request\` on HTTP, an \`error\` message \`{ code: "invalid_message" }\` in the lobby. ZWJ and ZWNJ are
  allowed (emoji sequences, Persian, Indic scripts). An avatar is an https URL with a host and without spaces, quotes,
  angle brackets, backslashes or control characters.
- **One seat per player per room:** joining a room where the same user already has a seat (another tab, device or a
  retry) closes the older connection with close code **4409** (seat replaced), and a seat of that user waiting for a
  reconnection is dropped. 4409 is not a logout: the session goes on. Close code **4401** means the session ended.

### Error codes
`;

/** The reference as one Markdown page: the rules, then every error code. */
export function apiReferenceMarkdown(): string {
  return `# Mini-game login API: reference\n\n${API_REFERENCE}\n${errorCodeTable()}\n`;
}

/** Markdown table of every machine code, from the one error table the server maps errors with. */
export function errorCodeTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, { status, message }]) => `| \`${code}\` | ${status} | ${message} |`);
  return ["| Code | Status | Meaning |", "|---|---|---|", ...rows].join("\n");
}

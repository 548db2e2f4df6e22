/**
 * The operator console's JSON routes in the API description, under the `console` tag. They are
 * signed in by the console's session cookie (not a bearer token) and every change carries the
 * session's CSRF token (docs/console.md).
 */
import type { z } from "zod";
import * as c from "../../console/console-schemas";
import { rewardGrantBody } from "../../console/console-rewards";
import { appQuery, catalogUploadBody, mailSendBody } from "../../console/console-economy";
import { boardChangeBody, boardRecordParams } from "../../console/console-leaderboards";
import type { ErrorCode } from "../../core/errors";
import * as s from "../schemas";
import type { OperationSpec } from "./operation-spec";

export const CONSOLE_TAG = "console";

export function registerConsoleComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("ConsoleSessionResponse", s.okEnvelope(c.consoleSessionSchema));
  register("ConsoleSignedOutResponse", s.okEnvelope(c.signedOutSchema));
  register("ConsoleScreensResponse", s.okEnvelope(c.screenSchema.array()));
  register("ConsolePlayersResponse", s.okEnvelope(c.playerOverviewSchema.array()));
  register("ConsolePlayerResponse", s.okEnvelope(c.playerOverviewSchema));
  register("ConsolePlayerExportResponse", s.okEnvelope(c.playerExportSchema));
  register("ConsoleErasedResponse", s.okEnvelope(c.erasedSchema));
  register("ConsoleOrdersResponse", s.okEnvelope(c.consoleOrderSchema.array()));
  register("ConsoleOrderResponse", s.okEnvelope(c.consoleOrderSchema));
  register("ConsoleHealthResponse", s.okEnvelope(c.healthSchema));
  register("ConsoleAppsResponse", s.okEnvelope(c.appsSchema));
  register("ConsoleAuditResponse", s.okEnvelope(c.auditEntrySchema.array()));
  register("ConsoleOperatorsResponse", s.okEnvelope(c.operatorViewSchema.array()));
  register("ConsoleOperatorResponse", s.okEnvelope(c.operatorViewSchema));
  register("ConsoleRewardResponse", s.okEnvelope(c.rewardGrantResultSchema));
  register("ConsoleWalletResponse", s.okEnvelope(c.walletViewSchema));
  register("ConsoleCatalogResponse", s.okEnvelope(c.catalogViewSchema));
  register("ConsoleMailResponse", s.okEnvelope(c.mailSentSchema));
  register("ConsoleBoardsResponse", s.okEnvelope(c.boardsViewSchema));
  register("ConsoleBoardRecordsResponse", s.okEnvelope(c.boardRecordsSchema));
  register("ConsoleBoardChangeResponse", s.okEnvelope(c.boardChangeSchema));
}

const SIGNED_IN: ErrorCode[] = ["console_sign_in_required", "console_password_change_required", "console_role_forbidden"];
const CHANGE: ErrorCode[] = [...SIGNED_IN, "console_csrf_invalid"];
const PLAYER: ErrorCode[] = ["user_disabled"];
const PAYMENT: ErrorCode[] = ["order_not_found", "order_conflict", "session_key_missing", "payments_disabled", "payment_refused", "payment_login_required", "payment_unconfirmed", "unknown_app", "unknown_platform", "platform_unavailable", "platform_misconfigured", "platform_rate_limited"];

type Op = Omit<OperationSpec, "tag" | "operationId" | "errorFields"> & { id: string; change?: boolean };

const ops: Op[] = [
  { id: "consoleSession", method: "get", path: "/console/api/session", summary: "The signed-in operator and the session's CSRF token", description: "Answers 401 without a live session (expired, signed out, operator disabled or reset).", success: { status: 200, component: "ConsoleSessionResponse", description: "Signed in" }, errors: ["console_sign_in_required"] },
  { id: "consoleSignIn", method: "post", path: "/console/api/session", summary: "Sign in", description: "Sets the session cookie (HttpOnly, SameSite=Strict, Path=/console, Secure in production). 10 wrong passwords for a name lock it for CONSOLE_LOCKOUT_SEC (429 `operator_locked` with Retry-After); each address has a budget too. Operators with a second factor send `totp`; admins must have one in production. In production, over HTTPS only.", body: { schema: c.signInBody, examples: { signIn: { name: "dana", password: "correct horse battery", totp: "123456" } } }, success: { status: 200, component: "ConsoleSessionResponse", description: "Signed in; the cookie is set" }, errors: ["invalid_credentials", "operator_locked", "console_totp_required", "console_https_required", "console_csrf_invalid", "rate_limited"] },
  { id: "consoleSignOut", method: "delete", path: "/console/api/session", change: true, summary: "Sign out", description: "Ends this session and clears the cookie.", success: { status: 200, component: "ConsoleSignedOutResponse", description: "Signed out" }, errors: ["console_sign_in_required", "console_csrf_invalid", "console_role_forbidden"] },
  { id: "consoleChangePassword", method: "post", path: "/console/api/password", change: true, summary: "Replace the operator's password", description: "Required after a one-time password; ends every other session of the operator and starts a new one (new cookie, new CSRF token).", body: { schema: c.passwordBody, examples: { change: { currentPassword: "one-time-password", newPassword: "a-new-long-password" } } }, success: { status: 200, component: "ConsoleSessionResponse", description: "Changed; the new session" }, errors: ["console_sign_in_required", "console_csrf_invalid", "console_role_forbidden", "invalid_credentials"] },
  { id: "consoleScreens", method: "get", path: "/console/api/screens", summary: "The screens the operator's role may see", description: "Economy and leaderboard screens appear once those capabilities are wired.", success: { status: 200, component: "ConsoleScreensResponse", description: "Screens" }, errors: SIGNED_IN },
  { id: "consoleSearchPlayers", method: "get", path: "/console/api/players", summary: "Find players", description: "By user id, username, email, exact nickname, or a platform id (openid or unionid) in any app.", query: { schema: c.searchQuery, examples: { q: "oGZUI0egBJY1zhBYw2KhdUfwVJJE" } }, success: { status: 200, component: "ConsolePlayersResponse", description: "Matches (possibly none)" }, errors: SIGNED_IN },
  { id: "consolePlayer", method: "get", path: "/console/api/players/{userId}", summary: "A player's profile, restriction, identities per app and live sessions", description: "", pathParams: { schema: c.userIdParam, examples: {} }, success: { status: 200, component: "ConsolePlayerResponse", description: "The player" }, errors: [...SIGNED_IN, ...PLAYER] },
  { id: "consoleExportPlayer", method: "get", path: "/console/api/players/{userId}/export", summary: "Everything stored about a player (support, admin)", description: "Audited like a change. Never the password hash.", pathParams: { schema: c.userIdParam, examples: {} }, success: { status: 200, component: "ConsolePlayerExportResponse", description: "The record" }, errors: [...SIGNED_IN, ...PLAYER] },
  { id: "consolePlayerOrders", method: "get", path: "/console/api/players/{userId}/orders", summary: "A player's orders, newest first", description: "", pathParams: { schema: c.userIdParam, examples: {} }, query: { schema: c.ordersQuery, examples: { state: "delivered", app: "default" } }, success: { status: 200, component: "ConsoleOrdersResponse", description: "Orders" }, errors: [...SIGNED_IN, "unknown_app"] },
  { id: "consoleKickPlayer", method: "post", path: "/console/api/players/{userId}/kick", change: true, summary: "End a player's sessions (support, admin)", description: "Their room sockets close with 4401.", pathParams: { schema: c.userIdParam, examples: {} }, success: { status: 200, component: "ConsolePlayerResponse", description: "Kicked" }, errors: [...CHANGE, ...PLAYER] },
  { id: "consoleDisablePlayer", method: "post", path: "/console/api/players/{userId}/disable", change: true, summary: "Disable a player with a reason and an optional end (support, admin)", description: "Ends their sessions: their room sockets close with 4401.", pathParams: { schema: c.userIdParam, examples: {} }, body: { schema: c.disableBody, examples: { ban: { reason: "chargeback abuse", until: "2026-03-01T00:00:00Z" } } }, success: { status: 200, component: "ConsolePlayerResponse", description: "Disabled" }, errors: [...CHANGE, ...PLAYER] },
  { id: "consoleEnablePlayer", method: "post", path: "/console/api/players/{userId}/enable", change: true, summary: "Lift a disable (support, admin)", description: "", pathParams: { schema: c.userIdParam, examples: {} }, success: { status: 200, component: "ConsolePlayerResponse", description: "Enabled" }, errors: [...CHANGE, ...PLAYER] },
  { id: "consoleErasePlayer", method: "post", path: "/console/api/players/{userId}/erase", change: true, summary: "Erase a player for good (admin)", description: "`confirm` must repeat the player's username.", pathParams: { schema: c.userIdParam, examples: {} }, body: { schema: c.eraseBody, examples: { erase: { confirm: "mg_wechat_k3j9x2ab" } } }, success: { status: 200, component: "ConsoleErasedResponse", description: "Erased" }, errors: [...CHANGE, ...PLAYER] },
  { id: "consoleRefund", method: "post", path: "/console/api/players/{userId}/orders/{orderId}/refund", change: true, summary: "Refund a coin spend (admin)", description: "Through this server process, which holds the kept session keys: works on every cache backend. Idempotent.", pathParams: { schema: c.orderParams, examples: {} }, success: { status: 200, component: "ConsoleOrderResponse", description: "Refunded" }, errors: [...CHANGE, ...PAYMENT] },
  { id: "consoleRedeliver", method: "post", path: "/console/api/players/{userId}/orders/{orderId}/redeliver", change: true, summary: "Run a paid order's delivery again (support, admin)", description: "", pathParams: { schema: c.orderParams, examples: {} }, success: { status: 200, component: "ConsoleOrderResponse", description: "The order after the attempt" }, errors: [...CHANGE, ...PAYMENT] },
  { id: "consoleGrant", method: "post", path: "/console/api/players/{userId}/grants", change: true, summary: "Give coins once per grant id (support up to CONSOLE_SUPPORT_GRANT_MAX, admin)", description: "Signed with the player's kept session key in that app, by this process.", pathParams: { schema: c.userIdParam, examples: {} }, body: { schema: c.grantBody, examples: { grant: { platform: "wechat", coins: 25, grantId: "outage-2026-01-31", reason: "outage" } } }, success: { status: 200, component: "ConsoleOrderResponse", description: "The grant" }, errors: [...CHANGE, ...PLAYER, ...PAYMENT] },
  { id: "consoleGrantRewards", method: "post", path: "/console/api/rewards/players/{userId}", change: true, summary: "Give soft currencies and items once per grant id (support up to CONSOLE_SUPPORT_GRANT_MAX in all, admin)", description: "Through the economy's RewardGranter (source `operator`); 404 where the economy is not wired. A repeat answers the first grant's result with `granted: false`.", pathParams: { schema: c.userIdParam, examples: {} }, body: { schema: rewardGrantBody, examples: { grant: { app: "default", currencies: { gold: 100 }, items: [{ itemId: "sword", count: 1 }], grantId: "outage-2026-01-31", reason: "outage" } } }, success: { status: 200, component: "ConsoleRewardResponse", description: "Granted, or the first grant's result" }, errors: [...CHANGE, ...PLAYER, "unknown_app", "route_not_found", "source_conflict"] },
  { id: "consoleWallet", method: "get", path: "/console/api/economy/players/{userId}", summary: "A player's wallet and inventory in one app", description: "", pathParams: { schema: c.userIdParam, examples: {} }, query: { schema: appQuery, examples: { app: "default" } }, success: { status: 200, component: "ConsoleWalletResponse", description: "Balances and items" }, errors: [...SIGNED_IN, ...PLAYER, "unknown_app"] },
  { id: "consoleCatalog", method: "get", path: "/console/api/economy/catalog", summary: "The app's catalog in use and its version", description: "", query: { schema: appQuery, examples: { app: "default" } }, success: { status: 200, component: "ConsoleCatalogResponse", description: "The catalog" }, errors: [...SIGNED_IN, "unknown_app"] },
  { id: "consoleCatalogUpload", method: "post", path: "/console/api/economy/catalog", change: true, summary: "Store a new catalog version (admin)", description: "Checked like the settings' catalog (every problem at once: 422), stored as the next version; every process takes it up within CATALOG_REFRESH_SEC. `expectedVersion`: the version edited; a newer one stored meanwhile answers 409.", body: { schema: catalogUploadBody, examples: { upload: { app: "default", expectedVersion: 0, catalog: { currencies: [{ currencyId: "gold" }], items: [{ itemId: "crown", name: "Crown", kind: "durable", prices: { gold: 9 } }] } } } }, success: { status: 200, component: "ConsoleCatalogResponse", description: "The stored version" }, errors: [...CHANGE, "unknown_app", "catalog_invalid", "version_conflict"] },
  { id: "consoleSendMail", method: "post", path: "/console/api/mail", change: true, summary: "Mail attachments to one player or every player of an app (support up to CONSOLE_SUPPORT_GRANT_MAX in all, admin)", description: "Each player claims it once (POST /api/mail/{mailId}/claim). The same `mailId` again is the same mail (`created: false`).", body: { schema: mailSendBody, examples: { mail: { app: "default", userId: null, title: "Sorry for the outage", currencies: { gold: 100 }, items: [], expiresAt: "2030-01-31T00:00:00Z" } } }, success: { status: 200, component: "ConsoleMailResponse", description: "The mail" }, errors: [...CHANGE, ...PLAYER, "unknown_app"] },
  { id: "consoleBoards", method: "get", path: "/console/api/leaderboards", summary: "An app's leaderboards, current period and record count", description: "", query: { schema: appQuery, examples: { app: "default" } }, success: { status: 200, component: "ConsoleBoardsResponse", description: "Boards" }, errors: [...SIGNED_IN, "unknown_app"] },
  { id: "consoleBoardRecords", method: "get", path: "/console/api/leaderboards/players/{userId}", summary: "A player's records on an app's boards", description: "", pathParams: { schema: c.userIdParam, examples: {} }, query: { schema: appQuery, examples: { app: "default" } }, success: { status: 200, component: "ConsoleBoardRecordsResponse", description: "Records" }, errors: [...SIGNED_IN, ...PLAYER, "unknown_app"] },
  { id: "consoleRemoveBoardRecord", method: "post", path: "/console/api/leaderboards/{boardId}/players/{userId}/remove", change: true, summary: "Remove a player's current record from a board (admin)", description: "", pathParams: { schema: boardRecordParams, examples: {} }, body: { schema: boardChangeBody, examples: { app: { app: "default" } } }, success: { status: 200, component: "ConsoleBoardChangeResponse", description: "Whether a record was removed" }, errors: [...CHANGE, "unknown_app", "board_not_found"] },
  { id: "consoleBanFromBoard", method: "post", path: "/console/api/leaderboards/{boardId}/players/{userId}/ban", change: true, summary: "Ban a player from a board and remove their current record (admin)", description: "", pathParams: { schema: boardRecordParams, examples: {} }, body: { schema: boardChangeBody, examples: { app: { app: "default" } } }, success: { status: 200, component: "ConsoleBoardChangeResponse", description: "Banned" }, errors: [...CHANGE, ...PLAYER, "unknown_app", "board_not_found"] },
  { id: "consoleUnsettledOrders", method: "get", path: "/console/api/orders/unsettled", summary: "Orders the reconciler is still waiting on", description: "", success: { status: 200, component: "ConsoleOrdersResponse", description: "Orders" }, errors: SIGNED_IN },
  { id: "consoleHealth", method: "get", path: "/console/api/health", summary: "Processes, rooms, login and error counts, orders by state, reconciler sweeps", description: "", success: { status: 200, component: "ConsoleHealthResponse", description: "Health" }, errors: SIGNED_IN },
  { id: "consoleApps", method: "get", path: "/console/api/apps", summary: "Apps and settings, without secrets", description: "", success: { status: 200, component: "ConsoleAppsResponse", description: "Apps" }, errors: SIGNED_IN },
  { id: "consoleAudit", method: "get", path: "/console/api/audit", summary: "Search the audit trail (support, admin)", description: "Newest first; `format=csv` answers the same entries as CSV.", query: { schema: c.auditQuery, examples: { action: "order.refund" } }, success: { status: 200, component: "ConsoleAuditResponse", description: "Entries" }, errors: SIGNED_IN },
  { id: "consoleOperators", method: "get", path: "/console/api/operators", summary: "Operators (admin)", description: "Created and reset with `npm run admin -- operator …`.", success: { status: 200, component: "ConsoleOperatorsResponse", description: "Operators" }, errors: SIGNED_IN },
  { id: "consoleDisableOperator", method: "post", path: "/console/api/operators/{name}/disable", change: true, summary: "Disable an operator and end their sessions (admin)", description: "", pathParams: { schema: c.operatorParam, examples: {} }, success: { status: 200, component: "ConsoleOperatorResponse", description: "Disabled" }, errors: CHANGE },
  { id: "consoleEnableOperator", method: "post", path: "/console/api/operators/{name}/enable", change: true, summary: "Enable an operator (admin)", description: "", pathParams: { schema: c.operatorParam, examples: {} }, success: { status: 200, component: "ConsoleOperatorResponse", description: "Enabled" }, errors: CHANGE },
  { id: "consoleEndOperatorSessions", method: "post", path: "/console/api/operators/{name}/end-sessions", change: true, summary: "End every session of an operator, yours included (admin)", description: "", pathParams: { schema: c.operatorParam, examples: {} }, success: { status: 200, component: "ConsoleOperatorResponse", description: "Ended" }, errors: CHANGE },
  { id: "consoleOperatorRole", method: "post", path: "/console/api/operators/{name}/role", change: true, summary: "Change an operator's role (admin)", description: "Ends their sessions.", pathParams: { schema: c.operatorParam, examples: {} }, body: { schema: c.roleBody, examples: { role: { role: "support" } } }, success: { status: 200, component: "ConsoleOperatorResponse", description: "Changed" }, errors: CHANGE },
];

export function consoleOperations(): OperationSpec[] {
  return ops.map(({ id, change, ...op }) => ({
    ...op,
    operationId: id,
    tag: CONSOLE_TAG,
    security: op.path === "/console/api/session" && op.method === "post" ? undefined : change ? "consoleChange" : "console",
    errors: ["invalid_request", ...op.errors, ...(op.method !== "get" ? (["console_https_required"] as ErrorCode[]) : [])],
    errorFields: c.consoleErrorFields,
  }));
}

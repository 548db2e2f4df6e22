/**
 * The console's JSON shapes: what its routes validate and what they answer, one source for the
 * routes and for the API description's `console` tag (src/api/openapi/console-operations.ts).
 */
import { z } from "zod";
import { AUDIT_OUTCOMES, OPERATOR_ROLES } from "../core/ports/operator-store";
import { ORDER_KINDS, ORDER_STATES } from "../core/ports/order-ledger";
import { userSchema } from "../http/user-schema";
import { MUTE_MAX_SEC } from "../services/mute-service";

const iso = () => z.string().meta({ description: "ISO 8601 UTC", example: "2026-01-31T08:00:00.000Z" });

// Requests
export const signInBody = z.object({
  name: z.string().max(64).meta({ description: "Operator name", example: "dana" }),
  password: z.string().max(200),
  totp: z.string().max(16).optional().meta({ description: "The 6-digit code of the authenticator, when the operator has one", example: "123456" }),
});
export const passwordBody = z.object({ currentPassword: z.string().max(200), newPassword: z.string().max(400).describe("At least 12 characters") });
export const userIdParam = z.object({ userId: z.string().min(1).max(128).meta({ example: "019ab4f1-2c3d-7e4f-8a5b-6c7d8e9f0a1b" }) });
export const orderParams = userIdParam.extend({ orderId: z.string().min(1).max(128).meta({ example: "sword-1" }) });
export const operatorParam = z.object({ name: z.string().min(1).max(64).meta({ example: "dana" }) });
export const searchQuery = z.object({
  q: z.string().trim().min(1, "type a user id, openid, unionid, username or email").max(256).meta({ description: "A user id, username, email, nickname or part of a nickname or username (two characters or more), or any platform id (openid, unionid); `platform:id` narrows to one platform", example: "oGZUI0egBJY1zhBYw2KhdUfwVJJE" }),
});
export const ordersQuery = z.object({ state: z.enum(ORDER_STATES).optional(), app: z.string().min(1).max(64).optional().meta({ description: "Only this app's orders (its key)", example: "default" }) });
export const disableBody = z.object({
  reason: z.string().trim().min(1, "a reason is required").max(500),
  until: z.iso.datetime({ offset: true }).nullable().optional().describe("End of the ban; absent or null: until enabled again"),
});
export const muteBody = z.object({
  reason: z.string().trim().min(1, "a reason is required").max(500),
  durationSec: z.int().min(1).max(MUTE_MAX_SEC).meta({ description: "How long the player's chat in rooms is refused, from now (at most a year)", example: 3600 }),
});
export const eraseBody = z.object({ confirm: z.string().max(256).describe("The player's username (or id), typed: the confirmation") });
export const grantBody = z.object({
  platform: z.string().min(1).max(32).meta({ example: "wechat" }),
  app: z.string().min(1).max(64).default("default"),
  coins: z.int().min(1).max(999_999_999).meta({ description: "Coins to give; a support operator at most CONSOLE_SUPPORT_GRANT_MAX", example: 25 }),
  grantId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 of A-Z a-z 0-9 _ -: the same id again is the same grant").meta({ example: "outage-2026-01-31" }),
  reason: z.string().trim().min(1).max(64).default("operator grant"),
});
export const auditQuery = z.object({
  actor: z.string().max(64).optional(),
  action: z.string().max(64).optional().meta({ example: "order.refund" }),
  target: z.string().max(128).optional(),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional().meta({ example: 100 }),
  format: z.enum(["json", "csv"]).optional().describe("csv: the same entries as a CSV download"),
});
export const roleBody = z.object({ role: z.enum(OPERATOR_ROLES) });
export const addOperatorBody = z.object({
  name: z.string().min(1).max(64).meta({ example: "dana" }),
  role: z.enum(OPERATOR_ROLES),
  totp: z.boolean().optional().describe("Set up a second factor (always for an admin in production)"),
});
export const resetOperatorBody = z.object({ totp: z.boolean().optional().describe("A new second factor too (a lost phone)") });
export const totpCodeBody = z.object({ code: z.string().trim().regex(/^\d{6}$/, "must be the 6 digits the authenticator shows") });

// Answers
export const operatorViewSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  role: z.enum(OPERATOR_ROLES),
  disabled: z.boolean(),
  mustChangePassword: z.boolean().describe("A one-time password is still in use: only POST /console/api/password is allowed"),
  totp: z.boolean().describe("Whether a second factor is set up"),
  createdAt: iso(),
  updatedAt: iso(),
});
export const oneTimeCredentialsSchema = z.strictObject({
  operator: operatorViewSchema,
  initialPassword: z.string().describe("Shown once; replaced at the operator's first sign-in"),
  totpUri: z.string().optional().describe("The otpauth:// link of a new second factor, shown once"),
  totpQr: z.string().optional().describe("The same link as a QR code: a PNG data URL"),
});
export const totpConfirmedSchema = z.strictObject({ confirmed: z.literal(true) });
export const consoleSessionSchema = z.strictObject({
  operator: operatorViewSchema,
  csrfToken: z.string().describe("Send it as X-CSRF-Token on every change"),
  expiresAt: iso(),
});
export const playerOverviewSchema = z.strictObject({
  user: userSchema,
  restriction: z.strictObject({ reason: z.string().nullable(), until: z.string().nullable() }).nullable(),
  mute: z.strictObject({ reason: z.string(), until: iso() }).nullable().describe("The mute of the player's chat in rooms while one is in force"),
  identities: z.array(z.strictObject({ platform: z.string(), platformId: z.string(), app: z.string().nullable().describe("The app of an app's own id; null for a studio-wide one") })),
  sessionApps: z.array(z.string()).describe("The apps in which the player has a live session"),
});
export const consoleOrderSchema = z.strictObject({
  id: z.string(),
  platform: z.string(),
  appId: z.string(),
  userId: z.string(),
  openid: z.string(),
  orderId: z.string(),
  kind: z.enum(ORDER_KINDS),
  itemId: z.string(),
  coins: z.int().min(0).max(2_000_000_000).meta({ example: 30 }),
  platformOrderId: z.string(),
  env: z.int().min(0).max(1).meta({ description: "0 live, 1 sandbox", example: 1 }),
  state: z.enum(ORDER_STATES),
  attempts: z.int().min(0).max(1_000_000).meta({ example: 1 }),
  leaseUntil: z.string().nullable(),
  failure: z.string().nullable(),
  reason: z.string().nullable().optional().describe("Why the order was made, where one was given (an operator's grant)"),
  quantity: z.int().min(1).max(10_000).meta({ description: "A coin spend's terms as priced: how many (null on older orders and other kinds)", example: 1 }).nullable().optional(),
  unitPrice: z.int().min(1).max(1_000_000_000).meta({ description: "A coin spend's terms: the catalog's coin price of one", example: 30 }).nullable().optional(),
  catalogVersion: z.int().min(0).max(2_000_000_000).meta({ description: "A coin spend's terms: the catalog version it was priced under and is delivered by", example: 0 }).nullable().optional(),
  liveEvent: z.string().nullable().optional().meta({ description: "The live event whose sale priced the coin spend (docs/liveops.md); null at the catalog's price", example: "weekend-sale" }),
  createdAt: iso(),
  updatedAt: iso(),
});
const exportRows = (what: string) => z.array(z.record(z.string(), z.unknown())).describe(what);
export const playerExportSchema = z
  .strictObject({
    user: z.record(z.string(), z.unknown()).describe("Every stored column of the user but the password hash"),
    identities: z.array(z.strictObject({ platform: z.string(), platformId: z.string(), createdAt: z.string() })),
    sessionLive: z.boolean(),
    sessionApps: z.array(z.string()),
    orders: exportRows("Every order, newest first"),
    economy: z.record(z.string(), z.record(z.string(), z.unknown())).describe("Per app: balances, items and the ledger"),
    leaderboards: exportRows("The player's records on every board and period of every app"),
    mail: exportRows("Mail to the player"),
    mailClaims: exportRows("The player's claims of mail"),
    adViews: exportRows("Rewarded ad views"),
    saves: exportRows("The player's cloud-saved objects in every app (docs/saves.md)"),
    supportMessages: exportRows("The player's customer-service messages and the operators' replies, every app (docs/growth.md)"),
    liveops: exportRows("Per app: the player's experiment variants and server-set properties (docs/liveops.md)"),
    analyticsEvents: exportRows("The player's analytics events, oldest first, up to 100,000 (docs/analytics.md): what the server recorded of them and what their client sent"),
    analyticsEventsTruncated: z.literal(true).optional().describe("Present when the player had more events than the export lists"),
  })
  .describe("The same export as `npm run admin -- export` (src/services/user-export.ts)");
export const auditEntrySchema = z.strictObject({
  id: z.string(),
  at: iso(),
  actor: z.string(),
  via: z.enum(["console", "cli"]),
  action: z.string(),
  target: z.string().nullable(),
  outcome: z.enum(AUDIT_OUTCOMES),
  detail: z.record(z.string(), z.unknown()),
});
export const screenSchema = z.strictObject({ id: z.string(), title: z.string(), role: z.enum(OPERATOR_ROLES) });
export const healthSchema = z.strictObject({
  thisProcess: z.record(z.string(), z.unknown()),
  processes: z.array(z.record(z.string(), z.unknown())),
  rooms: z.array(z.record(z.string(), z.unknown())),
  logins: z.record(z.string(), z.unknown()),
  requests: z.record(z.string(), z.unknown()),
  orders: z.array(z.record(z.string(), z.unknown())),
  reconcilerRuns: z.array(z.record(z.string(), z.unknown())),
});
export const appsSchema = z.strictObject({
  apps: z.array(z.record(z.string(), z.unknown())).describe("Each app's platforms: app id, whether it takes payments there and can refund them"),
  platforms: z.array(z.strictObject({ name: z.string(), displayName: z.string(), coins: z.boolean().describe("Game coins taken on this platform"), refunds: z.boolean().describe("A coin spend can be refunded") })),
  settings: z.record(z.string(), z.unknown()),
});
export const rewardGrantResultSchema = z.strictObject({
  granted: z.boolean().describe("False when this grant id was granted before: nothing changed this time"),
  balances: z.record(z.string(), z.int().min(0).max(2_000_000_000).meta({ example: 100 })),
  items: z.array(z.strictObject({ itemId: z.string(), count: z.int().min(0).max(2_000_000_000).meta({ example: 1 }) })),
});
export const rewardDebitResultSchema = z.strictObject({
  debited: z.boolean().describe("False when this debit id was used before: nothing was taken this time"),
  balances: z.record(z.string(), z.int().min(0).max(2_000_000_000).meta({ example: 40 })),
  items: z.array(z.strictObject({ itemId: z.string(), count: z.int().min(0).max(2_000_000_000).meta({ example: 0 }) })),
});
const count = z.int().min(0).max(2_000_000_000).meta({ example: 50 });
const itemCounts = z.array(z.strictObject({ itemId: z.string(), count }));
export const walletViewSchema = z.strictObject({
  app: z.string(),
  apps: z.array(z.string()).describe("Apps where the player has economy records"),
  balances: z.record(z.string(), count),
  items: itemCounts,
});
export const catalogViewSchema = z.strictObject({
  app: z.string(),
  version: z.int().min(0).max(1_000_000_000).meta({ example: 3 }).describe("0: the settings' catalog; higher: stored by an operator"),
  catalog: z.record(z.string(), z.unknown()).describe("The catalog as in docs/economy.md"),
});
const catalogVersionNumber = z.int().min(0).max(1_000_000_000).meta({ example: 3 });
export const catalogHistorySchema = z.strictObject({
  app: z.string(),
  current: catalogVersionNumber.describe("The version in use"),
  versions: z.array(z.strictObject({ version: catalogVersionNumber, by: z.string().describe("Who stored it: console:<operator>, cli:<name>"), at: iso() })).describe("Stored versions, newest first; 0 (the settings' catalog) is not stored"),
});
export const catalogVersionSchema = z.strictObject({
  app: z.string(),
  version: catalogVersionNumber,
  by: z.string().nullable().describe("null for version 0, the settings' catalog"),
  at: z.string().nullable(),
  catalog: z.unknown().describe("The catalog as stored (docs/economy.md)"),
});
export const mailSentSchema = z.strictObject({
  mailId: z.string(),
  appId: z.string(),
  userId: z.string().nullable().describe("null: every player of the app"),
  title: z.string(),
  body: z.string(),
  attachments: z.strictObject({ currencies: z.record(z.string(), count).optional(), items: itemCounts.optional() }),
  createdAt: z.string(),
  expiresAt: z.string(),
  created: z.boolean().describe("False when this mail id was sent before: the first mail stands"),
});
export const boardsViewSchema = z.strictObject({ app: z.string(), boards: z.array(z.record(z.string(), z.unknown())) });
export const boardRecordsSchema = z.strictObject({
  app: z.string(),
  records: z.array(z.strictObject({ board: z.string(), period: z.int().min(0).max(2_000_000_000).meta({ example: 12 }), score: z.number(), subscore: z.number(), name: z.string(), updatedAt: z.string(), metadata: z.record(z.string(), z.unknown()).nullable() })),
});
export const boardChangeSchema = z.strictObject({
  app: z.string(),
  boardId: z.string(),
  userId: z.string(),
  removed: z.boolean().optional().describe("remove and ban: whether a current record was removed"),
  banned: z.boolean().optional().describe("ban: true; unban: false"),
});
export const boardResetSchema = z.strictObject({
  app: z.string(),
  boardId: z.string(),
  period: z.record(z.string(), z.unknown()).describe("The period now current (the next one)"),
  started: z.boolean().describe("False when a concurrent reset started it first: nothing more happened"),
});
export const playerRoomsSchema = z.strictObject({
  rooms: z.array(
    z.strictObject({
      roomId: z.string(),
      roomType: z.string().meta({ example: "lobby" }),
      app: z.string().nullable(),
      processId: z.string().describe("The Colyseus process holding the room"),
      host: z.string().describe("The host name of that process's machine"),
      pid: z.int().min(0).max(2_000_000_000).meta({ example: 4242 }),
      connected: z.boolean().describe("False while the seat is held for the player's reconnection"),
      clients: z.int().min(0).max(2_000_000_000).meta({ example: 12 }),
    }),
  ),
  unanswered: z.int().min(0).max(2_000_000_000).meta({ example: 0 }).describe("Rooms that did not answer in time (a process gone or slow): the player may be in one of them"),
});
export const erasedSchema = z.strictObject({ erased: z.string() });
export const signedOutSchema = z.strictObject({ signedOut: z.literal(true) });

/** `data` fields of console failures beside `code`. */
export const consoleErrorFields = {
  needs: z.enum(OPERATOR_ROLES).optional().describe("console_role_forbidden: the least role that may"),
  totp: z.boolean().optional().describe("console_totp_required: the operator has a second factor"),
  platform: z.string().optional(),
  orderId: z.string().optional(),
  problems: z.array(z.string()).optional().describe("catalog_invalid: every problem of the uploaded catalog"),
  app: z.string().optional(),
  version: z.int().min(0).max(1_000_000_000).meta({ example: 3 }).optional().describe("version_conflict: the version the upload was based on"),
  boardId: z.string().optional(),
  currencies: z.array(z.string()).optional().describe("not_in_catalog: the currency ids the app's catalog does not list"),
  items: z.array(z.string()).optional().describe("not_in_catalog: the item ids the app's catalog does not list"),
  kind: z.enum(ORDER_KINDS).optional().describe("order_refund_unsupported: the order's kind"),
  reason: z.string().optional().describe("order_still_refused: why the catalog refuses the pushed purchase"),
  itemId: z.string().optional(),
};

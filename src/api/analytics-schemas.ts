/** Request shapes of analytics (docs/analytics.md): client events, the login's appVersion, the console's queries. */
import { z } from "zod";

/** At most this many events per request; a longer batch is a bad request as a whole. */
export const MAX_EVENTS_PER_REQUEST = 100;

/**
 * The client's version, sent with a login (`?appVersion=1.4.2`) and kept on its analytics event.
 * Anything else there is ignored rather than refusing a login over an analytics field.
 */
export const appVersionParam = z
  .string()
  .regex(/^[A-Za-z0-9._+-]{1,32}$/)
  .meta({ description: "The client's version, kept on the login's analytics event (docs/analytics.md); any other value is ignored", example: "1.4.2" });
export const appVersionQuery = z.object({ appVersion: appVersionParam.optional().catch(undefined) });

/**
 * The batch's envelope only: each event's name, time and props are judged one by one
 * (services/analytics/client-events.ts), so one bad event refuses itself and not its batch.
 */
export const clientEventsBody = z.strictObject({
  events: z.array(z.unknown()).min(1, "must list at least one event").max(MAX_EVENTS_PER_REQUEST, `must list at most ${MAX_EVENTS_PER_REQUEST} events`),
});

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD").refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), "is not a calendar day");
const label = z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/, "is not an app key or platform name");

/** `?app&platform&from&to` of the console's analytics reads: at most 400 days. */
export const analyticsRangeQuery = z
  .object({ app: label.optional(), platform: label.optional(), from: day, to: day })
  .refine((q) => q.from <= q.to, { message: "must not be after to", path: ["from"] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= 400 * 86_400_000, { message: "a range is at most 400 days", path: ["from"] });

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const eventsAcceptedSchema = z.object({
  accepted: count.describe("Events taken for writing"),
  refused: count.describe("Events refused (a bad name, props, or an `at` outside the window); counted in analytics_client_events_refused_total"),
});

export const dailyDaySchema = z.object({
  date: z.string().meta({ description: "The studio's day (ANALYTICS_TIME_ZONE)", example: "2026-03-01" }),
  dau: count.describe("Players with any event that day"),
  wau: count.describe("Players with any event in the 7 days ending that day"),
  mau: count.describe("Players with any event in the 30 days ending that day"),
  newPlayers: count.describe("Players whose account a login created that day"),
  payingPlayers: count.describe("Players with a paid order delivered that day"),
  revenue: z.record(z.string(), count).meta({ description: "Delivered paid orders' revenue per unit (`<platform>_coins`, `<platform>_price`)", example: { wechat_coins: 600 } }),
  revenueCoins: count.describe("The coins those orders were for"),
  arpdau: z.record(z.string(), z.number()).describe("Revenue per daily active player, per unit (2 decimals)"),
  arppu: z.record(z.string(), z.number()).describe("Revenue per paying player, per unit (2 decimals)"),
  payerConversion: z.number().describe("payingPlayers / dau (4 decimals)"),
  adViews: count.describe("Rewarded ads the platform verified"),
  adViewsPerDau: z.number().describe("adViews / dau (2 decimals)"),
  sessions: count.describe("Room sessions that ended that day"),
  avgSessionSeconds: count.describe("Their average length, in whole seconds"),
  softPurchases: count.describe("Purchases with soft currency"),
});

const retained = count.nullable();
export const retentionCohortSchema = z.object({
  date: z.string().meta({ description: "The cohort's first day", example: "2026-03-01" }),
  size: count.describe("Players whose account was created that day"),
  retained: z
    .object({ d1: retained, d3: retained, d7: retained, d14: retained, d30: retained })
    .describe("Players of the cohort active N days later; null while that day has not come"),
});

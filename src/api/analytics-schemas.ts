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

export { analyticsRangeQuery, experimentParam, experimentQuery } from "../http/analytics-range";

/** A count in a response: bounded and with an example, as every integer of the API description. */
const count = (description: string, example: number) => z.int().min(0).max(2_000_000_000).meta({ description, example });

export const eventsAcceptedSchema = z.object({
  accepted: count("Events taken for writing", 2),
  refused: count("Events refused (a bad name, props, or an `at` outside the window); counted in analytics_client_events_refused_total", 1),
});

export const dailyDaySchema = z.object({
  date: z.string().meta({ description: "The studio's day (STUDIO_TIME_ZONE)", example: "2026-03-01" }),
  dau: count("Players with any event that day", 1200),
  wau: count("Players with any event in the 7 days ending that day", 5100),
  mau: count("Players with any event in the 30 days ending that day", 16000),
  newPlayers: count("Players whose account a login created that day", 300),
  payingPlayers: count("Players with a paid order delivered that day", 24),
  revenue: z.record(z.string(), count("Revenue in the unit", 600)).meta({ description: "Delivered paid orders' revenue per unit (`<platform>_coins`, `<platform>_price`)", example: { wechat_coins: 600 } }),
  revenueCoins: count("The coins those orders were for", 600),
  arpdau: z.record(z.string(), z.number()).meta({ description: "Revenue per daily active player, per unit (2 decimals)", example: { wechat_coins: 0.5 } }),
  arppu: z.record(z.string(), z.number()).meta({ description: "Revenue per paying player, per unit (2 decimals)", example: { wechat_coins: 25 } }),
  payerConversion: z.number().meta({ description: "payingPlayers / dau (4 decimals)", example: 0.02 }),
  adViews: count("Rewarded ads the platform verified", 900),
  adViewsPerDau: z.number().meta({ description: "adViews / dau (2 decimals)", example: 0.75 }),
  sessions: count("Room sessions that ended that day", 2500),
  avgSessionSeconds: count("Their average length, in whole seconds", 310),
  softPurchases: count("Purchases with soft currency", 140),
  softSources: z.record(z.string(), count("Amount", 5000)).meta({ description: "Soft currency given that day per currency: gifts, mail claims, operators' grants", example: { gems: 5000 } }),
  softSinks: z.record(z.string(), count("Amount", 4200)).meta({ description: "Soft currency spent on purchases or taken back by operators that day, per currency", example: { gems: 4200 } }),
});

const retained = (n: number, example: number) => count(`Players of the cohort active ${n} days after their first`, example).nullable();
export const retentionCohortSchema = z.object({
  date: z.string().meta({ description: "The cohort's first day", example: "2026-03-01" }),
  size: count("Players whose account was created that day", 300),
  retained: z
    .object({ d1: retained(1, 120), d3: retained(3, 80), d7: retained(7, 45), d14: retained(14, 30), d30: retained(30, 18) })
    .describe("Players of the cohort active N days later; null while that day has not come"),
});


const interval = z.object({ low: z.number(), high: z.number() }).meta({ description: "95 % interval", example: { low: 0.01, high: 0.05 } });
const rate = (description: string, example: number) => z.number().min(0).max(1).meta({ description, example });
const retentionOn = (day: string, example: { players: number; retained: number }) =>
  z
    .object({
      players: count(`Players whose ${day} after their first day in the experiment has come`, example.players),
      retained: count(`Of them, active on that ${day}`, example.retained),
      rate: rate("retained / players (4 decimals)", Math.round((example.retained / example.players) * 10_000) / 10_000),
      interval,
    })
    .nullable()
    .describe(`Retention on the ${day} (Wilson interval); null while no player's ${day} has come`);
export const experimentVariantSchema = z.object({
  variant: z.string().meta({ example: "control" }),
  players: count("Players with a stored assignment to the variant and an event of the app while the experiment ran", 480),
  payers: count("Of them, players with a paid order delivered while it ran", 12),
  conversion: rate("payers / players (4 decimals)", 0.025),
  interval: interval.describe("The conversion's 95 % Wilson score interval"),
  retention: z.object({
    d1: retentionOn("next day", { players: 400, retained: 150 }),
    d7: retentionOn("7th day", { players: 310, retained: 62 }),
  }),
  revenue: z.record(z.string(), count("Revenue in the unit", 600)).meta({ description: "Delivered paid orders' revenue per unit while the experiment ran", example: { wechat_coins: 600 } }),
  revenuePerPlayer: z
    .record(z.string(), z.object({ mean: z.number(), interval }))
    .meta({ description: "Revenue / players per unit (2 decimals), with the 95 % normal interval of the mean", example: { wechat_coins: { mean: 1.25, interval: { low: 0.4, high: 2.1 } } } }),
});
export const experimentResultSchema = z.object({
  experimentId: z.string().meta({ example: "ad_reward_test" }),
  app: z.string().meta({ example: "default" }),
  from: z.string().meta({ description: "The window read: the experiment's start (or 90 days ago)", example: "2026-03-01T00:00:00.000Z" }),
  to: z.string().meta({ description: "Its end, or now", example: "2026-03-15T00:00:00.000Z" }),
  timeZone: z.string().meta({ description: "The studio's time zone the days are counted in", example: "Asia/Shanghai" }),
  enoughData: z.boolean().meta({ description: "False while a variant has fewer than minPlayersPerVariant players: a difference may be chance", example: true }),
  minPlayersPerVariant: count("The fewest players per variant for enoughData", 100),
  variants: experimentVariantSchema.array(),
});

/** Request shapes of analytics (docs/analytics.md): client events, the login's appVersion, the console's queries. */
import { z } from "zod";

/** At most this many events per request; a longer batch is a bad request as a whole. */
export const MAX_EVENTS_PER_REQUEST = 100;

/**
 * The client's version, sent with a login (`?appVersion=1.4.2`) and kept on its analytics event.
 * Anything else there is ignored rather than refusing a login over an analytics field.
 */
export const appVersionQuery = z.object({
  appVersion: z.string().regex(/^[A-Za-z0-9._+-]{1,32}$/).optional().catch(undefined),
});

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

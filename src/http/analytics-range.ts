/** The analytics reads' date range, as both edges take it (the API's reports and the console's screen). */
import { z } from "zod";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD").refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), "is not a calendar day");
const label = z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/, "is not an app key or platform name");

/** `?app&platform&from&to` of the console's analytics reads: at most 400 days. */
export const analyticsRangeQuery = z
  .object({ app: label.optional(), platform: label.optional(), from: day, to: day })
  .refine((q) => q.from <= q.to, { message: "must not be after to", path: ["from"] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= 400 * 86_400_000, { message: "a range is at most 400 days", path: ["from"] });

/** `/analytics/experiments/{experimentId}?app`: the experiment of the app's running LiveOps definitions. */
export const experimentParam = z.object({ experimentId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "is not an experiment id") });
export const experimentQuery = z.object({ app: label.optional() });

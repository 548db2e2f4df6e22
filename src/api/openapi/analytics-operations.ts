/** The API description's analytics operations: client events, and the console's daily and retention reads (docs/analytics.md). */
import { z } from "zod";
import * as a from "../analytics-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerAnalyticsComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("EventsAcceptedResponse", s.okEnvelope(a.eventsAcceptedSchema));
  const timeZone = z.string().meta({ description: "The studio's time zone the days are counted in (STUDIO_TIME_ZONE)", example: "Asia/Shanghai" });
  register("ConsoleAnalyticsDailyResponse", s.okEnvelope(z.object({ timeZone, days: a.dailyDaySchema.array() })));
  register("ConsoleAnalyticsRetentionResponse", s.okEnvelope(z.object({ timeZone, cohorts: a.retentionCohortSchema.array() })));
  register("ConsoleAnalyticsExperimentResponse", s.okEnvelope(a.experimentResultSchema));
}

const rangeExamples = { app: "default", platform: "wechat", from: "2026-03-01", to: "2026-03-07" };

export function analyticsOperations(consoleTag: string): OperationSpec[] {
  return [
    {
      method: "post",
      path: "/api/events",
      operationId: "sendClientEvents",
      tag: "Analytics",
      summary: "The player's own analytics events, in a batch",
      description:
        `Up to ${a.MAX_EVENTS_PER_REQUEST} events \`{name, at?, props?}\`, each accepted or refused on its own: \`name\` 1–48 of a-z 0-9 _ . ` +
        "starting with a letter (stored as `client.<name>`); `at` an ISO 8601 time no older than ANALYTICS_CLIENT_EVENT_PAST_HOURS " +
        "and at most 5 minutes ahead (default: now); `props` at most 20 keys (a letter, then letters, digits, _; up to 32) with " +
        "strings (≤ 200 characters), finite numbers or booleans. 202 with how many were accepted and refused: a refused event " +
        "never fails the batch. Limited per user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      body: { schema: a.clientEventsBody, examples: { tutorial: { events: [{ name: "tutorial_step", props: { step: 3 } }, { name: "shop_opened", at: "2026-03-01T08:00:00Z" }] } } },
      success: { status: 202, component: "EventsAcceptedResponse", description: "`data.accepted`, `data.refused`" },
      errors: [...AUTH_ERRORS, "rate_limited"],
    },
    {
      method: "get",
      path: "/console/api/analytics/daily",
      operationId: "consoleAnalyticsDaily",
      tag: consoleTag,
      summary: "Daily numbers of one app and platform (or all) over a range of the studio's days",
      description: "From the rollups (docs/analytics.md); `app` and `platform` default to all. A day with no row has not been rolled up or saw nothing.",
      security: "console",
      query: { schema: a.analyticsRangeQuery, examples: rangeExamples },
      success: { status: 200, component: "ConsoleAnalyticsDailyResponse", description: "`data.days`, by date" },
      errors: ["console_sign_in_required", "console_password_change_required", "console_role_forbidden", "invalid_request"],
    },
    {
      method: "get",
      path: "/console/api/analytics/retention",
      operationId: "consoleAnalyticsRetention",
      tag: consoleTag,
      summary: "Retention by first-login cohort: D1, D3, D7, D14, D30 counts",
      description: "One row per cohort day in the range with new players; `retained.dN` null while day N has not come.",
      security: "console",
      query: { schema: a.analyticsRangeQuery, examples: rangeExamples },
      success: { status: 200, component: "ConsoleAnalyticsRetentionResponse", description: "`data.cohorts`, by date" },
      errors: ["console_sign_in_required", "console_password_change_required", "console_role_forbidden", "invalid_request"],
    },
    {
      method: "get",
      path: "/console/api/analytics/experiments/{experimentId}",
      operationId: "consoleAnalyticsExperiment",
      tag: consoleTag,
      summary: "An experiment's results per variant: players, payer conversion, day-1 and day-7 retention, revenue per player",
      description:
        "The experiment of the app's running LiveOps definitions (`app`: the first app that has it when not given). Players are those LiveOps " +
        "assigned (its stored exposure records) with an event of the app while it ran; 95 % Wilson intervals for rates, normal intervals " +
        "for revenue per player; `enoughData` false while a variant has fewer than `minPlayersPerVariant` players (docs/analytics.md).",
      security: "console",
      pathParams: { schema: a.experimentParam, examples: { experimentId: "ad_reward_test" } },
      query: { schema: a.experimentQuery, examples: { app: "default" } },
      success: { status: 200, component: "ConsoleAnalyticsExperimentResponse", description: "`data.variants`, in the definitions' order" },
      errors: ["console_sign_in_required", "console_password_change_required", "console_role_forbidden", "invalid_request", "experiment_not_found"],
      errorFields: { experimentId: z.string().optional().describe("experiment_not_found: the id asked for"), app: z.string().optional() },
    },
  ];
}

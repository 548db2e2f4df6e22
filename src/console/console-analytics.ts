/**
 * The console's Analytics screen: daily numbers and retention cohorts of an app and platform (or
 * all) over a range of the studio's days, read from the rollups, and experiments' results per
 * variant (docs/analytics.md). Read-only.
 */
import type { Router } from "express";
import { analyticsRangeQuery, experimentParam, experimentQuery } from "../http/analytics-range";
import { parseInput } from "../http/validate";
import { AppError } from "../core/errors";
import type { ConsoleScreen } from "./console-screens";

export const analyticsScreen: ConsoleScreen = {
  id: "analytics",
  title: "Analytics",
  role: "viewer",
  available: (services) => services.analytics !== undefined,
  routes(router: Router, { services, guard }) {
    const { reports } = services.analytics;
    const timeZone = services.config.analytics.timeZone;
    router.get("/analytics/daily", ...guard.read("viewer", async (req) => ({ timeZone, days: await reports.daily(parseInput(analyticsRangeQuery, req.query)) })));
    router.get("/analytics/experiments/:experimentId", ...guard.read("viewer", async (req) => {
      const { experimentId } = parseInput(experimentParam, req.params);
      const results = services.analytics.experiments;
      if (!results) throw new AppError("experiment_not_found", { data: { experimentId } });
      return results.results(experimentId, parseInput(experimentQuery, req.query).app);
    }));
    router.get("/analytics/retention", ...guard.read("viewer", async (req) => ({ timeZone, cohorts: await reports.retention(parseInput(analyticsRangeQuery, req.query)) })));
  },
};

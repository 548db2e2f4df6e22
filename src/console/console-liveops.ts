/**
 * The console's LiveOps screen (docs/liveops.md): the running definitions of an app with each
 * event's running or next occurrence (viewer); a check of new definitions that lists every problem
 * (viewer); publishing them as the next version, rolling back to an older one, starting or stopping
 * an experiment (admin, audited as liveops.*). Each change is a new version every process takes up
 * within LIVEOPS_REFRESH_MS; `expectedVersion` refuses one made over a version the operator has not seen.
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import { liveOpsOverview, setExperimentRunning } from "../services/liveops/liveops-operator";
import { appQuery, knownApp } from "./console-apps";
import type { ConsoleScreen } from "./console-screens";

const versionNumber = z.int().min(0).max(1_000_000_000);
const app = z.string().min(1).max(64).default("default");
export const liveopsVersionParam = z.object({ version: z.coerce.number().int().min(0).max(1_000_000_000).meta({ description: "The version; 0 is the settings'", example: 2 }) });
export const liveopsExperimentParam = z.object({ experimentId: z.string().min(1).max(64).meta({ example: "example-reward" }) });
export const liveopsHistoryQuery = appQuery.extend({
  before: z.coerce.number().int().min(0).max(1_000_000_000).optional().meta({ description: "Only versions older than this (the next page)", example: 40 }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const liveopsDefinitionsBody = z.object({ app, definitions: z.unknown().meta({ description: "The definitions as in docs/liveops.md" }) });
export const liveopsPublishBody = liveopsDefinitionsBody.extend({
  /** The version the operator edited; another operator's newer version refuses the publish (409). */
  expectedVersion: versionNumber.optional(),
});
export const liveopsChangeBody = z.object({ app, expectedVersion: versionNumber.optional() });

export const liveopsScreen: ConsoleScreen = {
  id: "liveops",
  title: "LiveOps",
  role: "viewer",
  available: (services) => services.liveops !== undefined,
  routes(router: Router, { services, guard }) {
    const { liveops } = services;
    const by = (name: string) => `console:${name}`;
    router.get("/liveops", ...guard.read("viewer", async (req) => liveOpsOverview(liveops, knownApp(services, parseInput(appQuery, req.query).app), Date.now())));
    router.get("/liveops/versions", ...guard.read("viewer", async (req) => {
      const query = parseInput(liveopsHistoryQuery, req.query);
      const known = knownApp(services, query.app);
      await liveops.refresh();
      return { app: known, current: liveops.current(known).version, versions: await liveops.history(known, { limit: query.limit, before: query.before }) };
    }));
    router.get("/liveops/versions/:version", ...guard.read("viewer", async (req) => {
      const known = knownApp(services, parseInput(appQuery, req.query).app);
      return { app: known, ...(await liveops.version(known, parseInput(liveopsVersionParam, req.params).version)) };
    }));
    router.post("/liveops/check", ...guard.read("viewer", async (req) => {
      const body = parseInput(liveopsDefinitionsBody, req.body ?? {});
      const known = knownApp(services, body.app);
      return { app: known, version: liveops.current(known).version, problems: liveops.check(known, body.definitions) };
    }));
    router.post("/liveops/publish", ...guard.change("liveops.publish", "admin", async (req, session) => {
      const body = parseInput(liveopsPublishBody, req.body ?? {});
      const known = knownApp(services, body.app);
      const saved = await liveops.publish(known, body.definitions, by(session.operator.name), body.expectedVersion);
      return { target: known, detail: { app: known, version: saved.version }, result: { app: known, version: saved.version } };
    }));
    router.post("/liveops/versions/:version/rollback", ...guard.change("liveops.rollback", "admin", async (req, session) => {
      const { version: to } = parseInput(liveopsVersionParam, req.params);
      const body = parseInput(liveopsChangeBody, req.body ?? {});
      const known = knownApp(services, body.app);
      const old = await liveops.version(known, to);
      const saved = await liveops.publish(known, old.definitions, by(session.operator.name), body.expectedVersion);
      return { target: known, detail: { app: known, from: to, version: saved.version }, result: { app: known, version: saved.version } };
    }));
    for (const [action, run] of [["start", true], ["stop", false]] as const) {
      router.post(`/liveops/experiments/:experimentId/${action}`, ...guard.change(`liveops.experiment_${action}`, "admin", async (req, session) => {
        const { experimentId } = parseInput(liveopsExperimentParam, req.params);
        const body = parseInput(liveopsChangeBody, req.body ?? {});
        const known = knownApp(services, body.app);
        const saved = await setExperimentRunning(liveops, { app: known, experimentId, run, by: by(session.operator.name), expectedVersion: body.expectedVersion, now: Date.now() });
        return { target: known, detail: { app: known, experimentId, version: saved.version }, result: { app: known, ...saved } };
      }));
    }
  },
};

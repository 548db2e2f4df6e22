/**
 * The economy screen's catalog history: every stored version of an app's catalog with who saved it
 * and when (viewer), one version's content (viewer; 0 is the settings' catalog), and an admin's
 * restore of an older version as the next version (`catalog.restore`, audited), which every process
 * takes up on its next catalog refresh as it does an upload.
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import type { Services } from "../services/services";
import { appQuery, knownApp } from "./console-apps";
import type { ScreenContext } from "./console-screens";

const version = z.coerce.number().int().min(0).max(1_000_000_000);
export const catalogVersionParam = z.object({ version: version.meta({ description: "The version; 0 is the settings' catalog", example: 2 }) });
export const catalogHistoryQuery = appQuery.extend({
  before: version.optional().meta({ description: "Only versions older than this (the next page)", example: 40 }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const catalogRestoreBody = z.object({
  app: z.string().min(1).max(64).default("default"),
  /** The version in use when the operator chose; a newer one stored meanwhile refuses the restore (409). */
  expectedVersion: z.int().min(0).max(1_000_000_000).optional(),
});

export function catalogHistoryRoutes(router: Router, { services, guard }: ScreenContext): void {
  const catalogs = (s: Services) => s.economy.catalogs;
  router.get("/economy/catalog/versions", ...guard.read("viewer", async (req) => {
    const query = parseInput(catalogHistoryQuery, req.query);
    const app = knownApp(services, query.app);
    await catalogs(services).refresh();
    const versions = await catalogs(services).history(app, { limit: query.limit, before: query.before });
    return { app, current: catalogs(services).get(app).version, versions: versions.map(({ version: v, by, at }) => ({ version: v, by, at })) };
  }));
  router.get("/economy/catalog/versions/:version", ...guard.read("viewer", async (req) => {
    const app = knownApp(services, parseInput(appQuery, req.query).app);
    const found = await catalogs(services).version(app, parseInput(catalogVersionParam, req.params).version);
    return { app, ...found };
  }));
  router.post("/economy/catalog/versions/:version/restore", ...guard.change("catalog.restore", "admin", async (req, session) => {
    const { version: from } = parseInput(catalogVersionParam, req.params);
    const body = parseInput(catalogRestoreBody, req.body ?? {});
    const app = knownApp(services, body.app);
    const saved = await catalogs(services).restore(app, from, `console:${session.operator.name}`, body.expectedVersion);
    return { target: app, detail: { app, restoredFrom: from, version: saved.version }, result: { app, version: saved.version, catalog: saved.catalog } };
  }));
}

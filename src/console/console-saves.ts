/**
 * The console's saves screen (docs/saves.md): a player's objects of a collection (viewer), and
 * editing one from the version the operator read or deleting it (support). Changes go through the
 * saves service as the game server's writes do (server collections included), compare-and-set on
 * the version shown, so an operator never overwrites a save they did not see; each is audited.
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import { AppError } from "../core/errors";
import type { SaveObject } from "../core/ports/save-store";
import { appQuery, knownApp, knownPlayer } from "./console-apps";
import type { ConsoleScreen } from "./console-screens";
import { userIdParam } from "./console-schemas";

const version = z.int().min(1).max(2_000_000_000).meta({ example: 3 });
export const saveListQuery = appQuery.extend({ collection: z.string().min(1).max(128).meta({ example: "progress" }), cursor: z.string().max(256).optional() });
export const saveObjectParams = userIdParam.extend({ collection: z.string().min(1).max(128).meta({ example: "progress" }), key: z.string().min(1).max(256).meta({ example: "slot1" }) });
export const saveEditBody = z.object({ app: z.string().min(1).max(64).default("default"), version, value: z.record(z.string(), z.unknown()) });
export const saveDeleteBody = z.object({ app: z.string().min(1).max(64).default("default"), version });

const objectView = z.strictObject({
  collection: z.string(),
  key: z.string(),
  value: z.record(z.string(), z.unknown()),
  version,
  permissionRead: z.enum(["owner", "public"]),
  permissionWrite: z.enum(["owner", "server"]),
  updatedAt: z.string(),
});
export const consoleSaveListSchema = z.strictObject({ app: z.string(), userId: z.string(), objects: z.array(objectView), cursor: z.string().optional() });
export const consoleSaveChangeSchema = z.strictObject({ app: z.string(), userId: z.string(), collection: z.string(), key: z.string(), version, deleted: z.boolean() });

const view = (o: SaveObject) => ({ collection: o.collection, key: o.key, value: o.value, version: o.version, permissionRead: o.permissionRead, permissionWrite: o.permissionWrite, updatedAt: o.updatedAt });

/** The saves' refusals with the fields the console's error envelope carries (the version now, when there is one). */
async function refusalsAsConsole<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const now = err.data.version;
    throw new AppError(err.code, { message: err.message, data: typeof now === "number" ? { version: now } : {} });
  }
}

export const savesScreen: ConsoleScreen = {
  id: "saves",
  title: "Cloud saves",
  role: "viewer",
  routes(router: Router, { services, guard }) {
    router.get("/saves/players/:userId", ...guard.read("viewer", async (req) => {
      const userId = await knownPlayer(services, parseInput(userIdParam, req.params).userId);
      const query = parseInput(saveListQuery, req.query);
      const app = knownApp(services, query.app);
      const page = await refusalsAsConsole(() => services.saves.list(app, userId, { collection: query.collection, limit: 50, cursor: query.cursor }));
      return { app, userId, objects: page.objects.map(view), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
    }));
    router.post("/saves/players/:userId/:collection/:key/edit", ...guard.change("save.edit", "support", async (req) => {
      const { userId, collection, key } = parseInput(saveObjectParams, req.params);
      const body = parseInput(saveEditBody, req.body ?? {});
      const app = knownApp(services, body.app);
      await knownPlayer(services, userId);
      const written = await refusalsAsConsole(() => services.saves.put(app, userId, { collection, key, value: body.value, version: body.version }, "server"));
      return { target: userId, detail: { app, collection, key, from: body.version, version: written.version }, result: { app, userId, collection, key, version: written.version, deleted: false } };
    }));
    router.post("/saves/players/:userId/:collection/:key/delete", ...guard.change("save.delete", "support", async (req) => {
      const { userId, collection, key } = parseInput(saveObjectParams, req.params);
      const body = parseInput(saveDeleteBody, req.body ?? {});
      const app = knownApp(services, body.app);
      await knownPlayer(services, userId);
      const deleted = await refusalsAsConsole(() => services.saves.delete(app, userId, { collection, key, version: body.version }, "server"));
      return { target: userId, detail: { app, collection, key, from: body.version, version: deleted.version }, result: { app, userId, collection, key, version: deleted.version, deleted: true } };
    }));
  },
};

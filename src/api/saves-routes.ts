/**
 * The `/saves` routes (docs/saves.md): the token's player's saved objects in the token's app, and
 * other players' public ones. Bodies are read with their own size limit (SAVES_MAX_REQUEST_BYTES,
 * api-router.ts). The value is handed to the saves service untouched, which checks it (each problem
 * its own 400 code) before any store sees it.
 */
import { Router, type Request, type Response } from "express";
import type { SaveObject } from "../core/ports/save-store";
import type { RateLimiter } from "../services/rate-limiter";
import type { SaveReceipt, SaveService, SaveWriteInput } from "../services/saves/save-service";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { saveBatchBody, saveDeleteQuery, saveListQuery, savePutBody, saveReadQuery } from "./saves-schemas";
import { parseInput } from "./validate";

export interface SaveRouteDeps {
  sessions: SessionService;
  saves: SaveService;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

/** The contract's shape of an object (the owner is the one asked for). */
export function presentSave(o: SaveObject) {
  return { collection: o.collection, key: o.key, value: o.value, version: o.version, permissionRead: o.permissionRead, permissionWrite: o.permissionWrite, updatedAt: o.updatedAt };
}

const presentReceipt = (r: SaveReceipt) => ({ collection: r.collection, key: r.key, version: r.version, updatedAt: r.updatedAt });

/**
 * The request's shape is checked without the values: the shared text guard (validate.ts) would
 * refuse a value's lone surrogate as a generic invalid_request, where the service names it.
 */
function withoutValue(body: unknown): { shape: unknown; value: unknown } {
  if (!body || typeof body !== "object" || Array.isArray(body)) return { shape: body, value: undefined };
  const { value, ...shape } = body as Record<string, unknown>;
  return { shape, value };
}

export function saveRoutes(deps: SaveRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  const { saves } = deps;
  const writing = (app: string, userId: string) => deps.limiter.hit(`user:saves:${app}:${userId}`, deps.limits.userMax, deps.limits.windowSec);

  router.post("/saves/batch", auth, async (req: Request, res: Response) => {
    const raw = req.body as { writes?: unknown } | undefined;
    const values = Array.isArray(raw?.writes) ? raw.writes.map((w) => withoutValue(w)) : undefined;
    const body = parseInput(saveBatchBody, values ? { ...raw, writes: values.map((v) => v.shape) } : raw);
    const { app, userId } = authOf(res).auth;
    if (body.reads) {
      const objects = await saves.getMany(app, userId, body.reads);
      sendOk(res, { objects: objects.map((o) => (o ? presentSave(o) : null)) });
      return;
    }
    await writing(app, userId);
    const inputs = body.writes!.map((w, i): SaveWriteInput => (w.delete ? { ...w, delete: true } : { ...w, delete: false, value: values![i].value }));
    const written = await saves.write(app, userId, inputs);
    sendOk(res, { written: written.map(presentReceipt) }, "Saved");
  });

  router.get("/saves/:collection", auth, async (req: Request, res: Response) => {
    const query = parseInput(saveListQuery, req.query);
    const { app, userId } = authOf(res).auth;
    const page = await saves.list(app, userId, { collection: String(req.params.collection), ...query });
    sendOk(res, { objects: page.objects.map(presentSave), ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) });
  });

  router.get("/saves/:collection/:key", auth, async (req: Request, res: Response) => {
    const query = parseInput(saveReadQuery, req.query);
    const { app, userId } = authOf(res).auth;
    const found = await saves.get(app, userId, { collection: String(req.params.collection), key: String(req.params.key), userId: query.userId });
    sendOk(res, presentSave(found));
  });

  router.put("/saves/:collection/:key", auth, async (req: Request, res: Response) => {
    const { shape, value } = withoutValue(req.body);
    const body = parseInput(savePutBody, shape);
    const { app, userId } = authOf(res).auth;
    await writing(app, userId);
    const written = await saves.put(app, userId, { ...body, value, collection: String(req.params.collection), key: String(req.params.key) });
    sendOk(res, presentReceipt(written), written.created ? "Created" : "Saved", written.created ? 201 : 200);
  });

  router.delete("/saves/:collection/:key", auth, async (req: Request, res: Response) => {
    const query = parseInput(saveDeleteQuery, req.query);
    const { app, userId } = authOf(res).auth;
    await writing(app, userId);
    const deleted = await saves.delete(app, userId, { collection: String(req.params.collection), key: String(req.params.key), version: query.version, overwrite: query.overwrite === "true" });
    sendOk(res, presentReceipt(deleted), "Deleted");
  });
  return router;
}

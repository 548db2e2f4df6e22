/**
 * GET /api/config: what the player of the token gets from LiveOps now — flags, their experiment
 * variants, active and upcoming events (docs/liveops.md). The answer carries an ETag; a request
 * with it in If-None-Match gets 304 while nothing changed for the player. The client may report
 * its version (X-App-Version or ?appVersion=, semver) for audiences on it; it never chooses a
 * variant or an event.
 */
import { createHash } from "node:crypto";
import { Router, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { LiveOpsService, PlayerConfig } from "../services/liveops/liveops-service";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import type { HotRoutes } from "./hot-routes";

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Serialised once per evaluation (cached per player until something of theirs changes). */
const rendered = new WeakMap<PlayerConfig, { json: string; etag: string }>();

function render(config: PlayerConfig): { json: string; etag: string } {
  let out = rendered.get(config);
  if (!out) {
    const data = { version: config.version, flags: config.flags, experiments: config.experiments, events: config.events };
    const json = JSON.stringify({ success: true, message: "OK", data });
    out = { json, etag: `"${createHash("sha1").update(json).digest("base64url")}"` };
    rendered.set(config, out);
  }
  return out;
}

/** `hot`: where GET /config is also registered by exact path (hot-routes.ts): a game asks it at every start, as it does /users/me. */
export function liveopsRoutes(deps: { sessions: SessionService; liveops: LiveOpsService; hot?: HotRoutes }): Router {
  const router = Router();
  const signedIn = requireAuth(deps.sessions);
  const config = async (req: Request, res: Response) => {
    const { auth } = authOf(res);
    const reported = req.header("x-app-version") ?? (typeof req.query.appVersion === "string" ? req.query.appVersion : undefined);
    if (reported !== undefined && !SEMVER.test(reported)) throw new AppError("invalid_request", { message: "appVersion: must be a version like 1.2.3" });
    const config = await deps.liveops.for(auth.app, auth.userId, reported ? { appVersion: reported } : {});
    const { json, etag } = render(config);
    res.setHeader("ETag", etag);
    res.setHeader("Cache-Control", "private, no-cache");
    const asked = req.header("if-none-match");
    if (asked && asked.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(json));
    res.end(json);
  };
  router.get("/config", signedIn, config);
  deps.hot?.get("/config", signedIn, config);
  return router;
}

import { Router, type Request, type Response } from "express";
import type { PlatformDefinition } from "../platforms/platform";
import type { PlatformApps } from "../services/platform-apps";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import type { PlayerStorageService } from "../services/social/player-storage-service";
import type { SubscribeMessageService } from "../services/social/subscribe-message-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { internalKeyGuard } from "./minigame-routes";
import { appIdQuery } from "./schemas";
import { storageDeleteBody, storagePutBody, subscribeMessageBody } from "./social-schemas";
import { parseInput } from "./validate";

export interface PlayerStorageRouteDeps {
  sessions: SessionService;
  storage: PlayerStorageService;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

/**
 * Mounted at `/players`: the logged-in player's hosted storage on the platform of their session's
 * latest login (what friend rankings read). Each write spends the app's platform quota, so it is
 * limited per user like the other platform-bound routes.
 */
export function playerStorageRoutes(deps: PlayerStorageRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  const perUser = (res: Response) => deps.limiter.hit(`user:player_storage:${authOf(res).auth.userId}`, deps.limits.userMax, deps.limits.windowSec);

  router.put("/me/storage", auth, async (req: Request, res: Response) => {
    const { kvList } = parseInput(storagePutBody, req.body);
    await perUser(res);
    const { auth: claims } = authOf(res);
    await deps.storage.write(claims.userId, claims.app, kvList);
    sendOk(res, {}, "Stored");
  });

  router.delete("/me/storage", auth, async (req: Request, res: Response) => {
    const { keys } = parseInput(storageDeleteBody, req.body);
    await perUser(res);
    const { auth: claims } = authOf(res);
    await deps.storage.remove(claims.userId, claims.app, keys);
    sendOk(res, {}, "Removed");
  });
  return router;
}

export interface SubscribeRouteDeps {
  platforms: readonly PlatformDefinition[];
  apps: PlatformApps;
  subscribe: SubscribeMessageService;
  /** The access-token routes' key: the studio's other servers hold it. */
  internalKey?: string;
}

/**
 * Mounted at `/minigame`: `/<platform>/subscribe_message` for the studio's other systems, guarded
 * like the access-token routes; the app is named by `?appId=` like there (default app without).
 */
export function subscribeMessageRoutes(deps: SubscribeRouteDeps): Router {
  const router = Router();
  const guards = deps.internalKey ? [internalKeyGuard(deps.internalKey)] : [];
  for (const platform of deps.platforms) {
    if (!platform.social?.subscribeMessages) continue;
    router.post(`/${platform.name}/subscribe_message`, ...guards, async (req: Request, res: Response) => {
      const { userId, templateId, page, data } = parseInput(subscribeMessageBody, req.body);
      const { app } = deps.apps.resolve(platform.name, parseInput(appIdQuery, req.query).appId);
      sendOk(res, await deps.subscribe.send(platform.name, app, userId, { templateId, page, data }), "Sent");
    });
  }
  return router;
}

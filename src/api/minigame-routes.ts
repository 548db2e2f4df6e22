import { appVersionQuery } from "./analytics-schemas";
import { Router, type RequestHandler } from "express";
import { AppError } from "../core/errors";
import type { PlatformDefinition } from "../platforms/platform";
import type { PlatformApps } from "../services/platform-apps";
import type { LoginService } from "../services/login-service";
import type { PlatformTokenService } from "../services/platform-token-service";
import type { RateLimiter } from "../services/rate-limiter";
import { constantTimeEqual } from "../core/credentials";
import { sendOk } from "./envelope";
import { appIdQuery, invalidateTokenBody } from "./schemas";
import { parseInput } from "./validate";
import type { HotRoutes } from "./hot-routes";

export const INTERNAL_KEY_HEADER = "x-internal-key";

export interface MinigameRouteDeps {
  platforms: readonly PlatformDefinition[];
  /** Finds the app a request names by its platform app id (`appId`), the default app without one. */
  apps: PlatformApps;
  login: LoginService;
  platformTokens: PlatformTokenService;
  /** When set, the access-token routes require this value in the X-Internal-Key header. */
  internalKey?: string;
  limiter: RateLimiter;
  limits: { windowSec: number; ipMax: number };
  /** Where the login and access-token GETs are also registered by exact path (mounted at `/minigame` under `/api`). */
  hot?: HotRoutes;
}

/**
 * Spec 4.1–4.4, mounted at `/minigame`: `/<platform>/login` and `/<platform>/access_token` per platform,
 * plus `/<platform>/access_token/invalidate`, where a caller reports a token the platform rejected.
 */
export function minigameRoutes(deps: MinigameRouteDeps): Router {
  const router = Router();
  // Without a key the routes are public: no pass-through guard layer on every request.
  const guards = deps.internalKey ? [internalKeyGuard(deps.internalKey)] : [];

  for (const platform of deps.platforms) {
    const login: RequestHandler = async (req, res) => {
      await deps.limiter.hitAddress("login", req.ip ?? "", deps.limits.ipMax, deps.limits.windowSec);
      const codes = parseInput(platform.loginQuerySchema, req.query);
      const { app } = deps.apps.resolve(platform.name, parseInput(appIdQuery, req.query).appId);
      const data = await deps.login.loginWithPlatform(platform.name, app, codes, parseInput(appVersionQuery, req.query));
      sendOk(res, data, "Login succeeded");
    };
    router.get(`/${platform.name}/login`, login);
    deps.hot?.get(`/minigame/${platform.name}/login`, login);

    const accessToken: RequestHandler = async (req, res) => {
      const { app } = deps.apps.resolve(platform.name, parseInput(appIdQuery, req.query).appId);
      sendOk(res, await deps.platformTokens.getAccessToken(platform.name, app), "OK");
    };
    router.get(`/${platform.name}/access_token`, ...guards, accessToken);
    deps.hot?.get(`/minigame/${platform.name}/access_token`, ...guards, accessToken);

    router.post(`/${platform.name}/access_token/invalidate`, ...guards, async (req, res) => {
      const { access_token } = parseInput(invalidateTokenBody, req.body);
      const { app } = deps.apps.resolve(platform.name, parseInput(appIdQuery, req.query).appId);
      sendOk(res, await deps.platformTokens.invalidate(platform.name, app, access_token), "OK");
    });
  }
  return router;
}

/** The access-token routes' guard; the subscribe-message route shares it. */
export function internalKeyGuard(key: string): RequestHandler {
  return (req, _res, next) => {
    const presented = req.header(INTERNAL_KEY_HEADER);
    next(presented && constantTimeEqual(presented, key) ? undefined : new AppError("internal_key_invalid"));
  };
}

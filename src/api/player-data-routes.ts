import { Router, type Request, type Response } from "express";
import { NO_PLAYER_DATA, type PlatformDefinition } from "../platforms/platform";
import type { PlayerDataService } from "../services/player-data-service";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { decryptBody, phoneNumberBody, signatureVerifyBody } from "./schemas";
import { parseInput } from "./validate";

export interface PlayerDataRouteDeps {
  platforms: readonly PlatformDefinition[];
  sessions: SessionService;
  playerData: PlayerDataService;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

/**
 * Mounted at `/minigame`: what a logged-in player's server does with the session key it keeps.
 * Each route exists only for the platforms whose module declares the feature, so any other
 * platform/route pair falls through to 404 route_not_found.
 */
export function playerDataRoutes(deps: PlayerDataRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  // Calls that reach the platform spend its quota: limited per user like matchmaking.
  const perUser = (group: string, res: Response) =>
    deps.limiter.hit(`user:${group}:${authOf(res).auth.userId}`, deps.limits.userMax, deps.limits.windowSec);

  for (const platform of deps.platforms) {
    const { name } = platform;
    const playerData = platform.playerData ?? NO_PLAYER_DATA;
    if (playerData.openData) {
      router.post(`/${name}/decrypt`, auth, async (req: Request, res: Response) => {
        const { encryptedData, iv } = parseInput(decryptBody, req.body);
        const { auth } = authOf(res);
        sendOk(res, await deps.playerData.decrypt(auth.userId, auth.app, name, encryptedData, iv), "Decrypted");
      });
      router.post(`/${name}/signature/verify`, auth, async (req: Request, res: Response) => {
        const { rawData, signature } = parseInput(signatureVerifyBody, req.body);
        const { auth } = authOf(res);
        sendOk(res, await deps.playerData.verifySignature(auth.userId, auth.app, name, rawData, signature), "Checked");
      });
    }
    if (playerData.sessionCheck) {
      router.get(`/${name}/session_key/check`, auth, async (_req: Request, res: Response) => {
        await perUser("session_check", res);
        const { auth } = authOf(res);
        sendOk(res, await deps.playerData.checkSessionKey(auth.userId, auth.app, name), "Checked");
      });
    }
    if (playerData.phoneNumber) {
      router.post(`/${name}/phone_number`, auth, async (req: Request, res: Response) => {
        const { code } = parseInput(phoneNumberBody, req.body);
        await perUser("phone_number", res);
        sendOk(res, await deps.playerData.phoneNumber(authOf(res).auth.app, name, code), "OK");
      });
    }
  }
  return router;
}

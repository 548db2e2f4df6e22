/**
 * The player's side of the growth surfaces, mounted at `/api/growth` (docs/growth.md): the Douyin
 * sidebar revisit reward, WeChat's group and game-circle data (decrypted with the kept session key), and the once-a-session risk check that lets platform callbacks be risk-checked. On the token's app; every grant is the RewardGranter's, once per studio day.
 */
import { Router, type Request, type Response } from "express";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import type { SidebarRewards } from "../services/growth/sidebar-reward";
import type { RiskRanks } from "../services/growth/risk-rank";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { shareBody, shareParams, sidebarBody, wechatOpenDataBody } from "./growth-schemas";
import type { ShareMessages } from "../services/growth/share-messages";
import type { WechatOpenData } from "../services/growth/wechat-open-data";
import { parseInput } from "./validate";

export interface GrowthRouteDeps {
  sessions: SessionService;
  sidebar: SidebarRewards;
  riskRanks: Pick<RiskRanks, "remember" | "refresh">;
  wechatOpenData: WechatOpenData;
  shares: ShareMessages;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

export function growthRoutes(deps: GrowthRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  // A repeat the same day answers 200 with granted: false.
  router.post("/growth/sidebar", auth, async (req: Request, res: Response) => {
    const scene = parseInput(sidebarBody, req.body);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:growth:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    await deps.riskRanks.remember(claims.app, claims.userId, req.ip);
    const result = await deps.sidebar.claim(claims.app, claims.userId, scene);
    sendOk(res, result, result.granted ? "Sidebar reward granted" : "Already granted today");
  });
  router.post("/growth/wechat/group-enter-info", auth, async (req: Request, res: Response) => {
    const { encryptedData, iv } = parseInput(wechatOpenDataBody, req.body);
    const { auth: claims } = authOf(res);
    sendOk(res, await deps.wechatOpenData.groupEnterInfo(claims.app, claims.userId, encryptedData, iv));
  });
  // Today's game-circle activity grants the catalog's game_club reward once per studio day.
  router.post("/growth/wechat/game-club", auth, async (req: Request, res: Response) => {
    const { encryptedData, iv } = parseInput(wechatOpenDataBody, req.body);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:growth:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    await deps.riskRanks.remember(claims.app, claims.userId, req.ip);
    sendOk(res, await deps.wechatOpenData.gameClub(claims.app, claims.userId, encryptedData, iv));
  });
  router.post("/growth/shares", auth, async (req: Request, res: Response) => {
    const input = parseInput(shareBody, req.body);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:growth:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    sendOk(res, await deps.shares.create(claims.app, claims.userId, input), "Share created");
  });
  // A repeat by the same player answers the same with joined: false.
  router.post("/growth/shares/:activityId/join", auth, async (req: Request, res: Response) => {
    const { activityId } = parseInput(shareParams, req.params);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:growth:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    sendOk(res, await deps.shares.join(claims.app, claims.userId, activityId));
  });
  // Answers only whether a check ran: the rank itself stays on the server (a cheater learns nothing to tune against).
  router.post("/growth/risk-check", auth, async (req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:growth:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    sendOk(res, await deps.riskRanks.refresh(claims.app, claims.userId, req.ip));
  });
  return router;
}

/**
 * The player's side of the reward sources, mounted at `/api`: `/mail` (the player's mail, claiming
 * attachments), `/ads` (whether a rewarded ad the player watched was verified and granted: watchAd() asks
 * here) and `/rewards/gift-codes` (a Douyin gift code the player brought, redeemed and granted once).
 * All on the token's app; every grant is the RewardGranter's, once.
 */
import { Router, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { RateLimiter } from "../services/rate-limiter";
import type { AdRewards } from "../services/rewards/ad-rewards";
import type { GiftCodes } from "../services/rewards/gift-codes";
import type { MailService } from "../services/rewards/mail-service";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { giftCodeBody, mailParams, watchParams } from "./reward-schemas";
import { parseInput } from "./validate";

export interface RewardRouteDeps {
  sessions: SessionService;
  mail: MailService;
  ads: AdRewards;
  giftCodes: GiftCodes;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

export function mailRoutes(deps: RewardRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  router.get("/mail", auth, async (_req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    sendOk(res, { mail: await deps.mail.list(claims.app, claims.userId) }, "OK");
  });
  // Replays are answered like the first claim (200) and grant nothing more.
  router.post("/mail/:mailId/claim", auth, async (req: Request, res: Response) => {
    const { mailId } = parseInput(mailParams, req.params);
    const { auth: claims } = authOf(res);
    const result = await deps.mail.claim(claims.app, claims.userId, mailId);
    sendOk(res, result, result.granted ? "Attachments granted" : "Already claimed");
  });
  return router;
}

export function adRoutes(deps: RewardRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  // Polled by watchAd(): limited per user like the other repeated reads.
  router.get("/ads/views/:watchId", auth, async (req: Request, res: Response) => {
    const { watchId } = parseInput(watchParams, req.params);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:ad_views:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    const found = await deps.ads.viewFor(claims.app, claims.userId, watchId);
    if (!found) throw new AppError("ad_view_pending", { data: { watchId } });
    const { view, result } = found;
    sendOk(res, {
      watchId,
      adUnitId: view.adUnitId,
      granted: result !== undefined,
      // Past the daily cap: verified, recorded, not granted.
      capped: view.slot === null,
      balances: result?.balances ?? {},
      items: result?.items ?? [],
    });
  });
  return router;
}

export function giftCodeRoutes(deps: RewardRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  // Replays answer 200 with granted: false. Limited per user: each first try asks the platform.
  router.post("/rewards/gift-codes", auth, async (req: Request, res: Response) => {
    const { code, envType } = parseInput(giftCodeBody, req.body);
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:gift_codes:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    const result = await deps.giftCodes.redeem(claims.app, claims.userId, code, envType);
    sendOk(res, result, result.granted ? "Gift code redeemed" : "Already redeemed");
  });
  return router;
}

import { Router, type Request, type Response } from "express";
import type { ClientEvents } from "../services/analytics/client-events";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { clientEventsBody } from "./analytics-schemas";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { parseInput } from "./validate";

export interface AnalyticsRouteDeps {
  sessions: SessionService;
  clientEvents: ClientEvents;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

/**
 * `POST /api/events`: a batch of the player's client events for analytics. Each event is accepted
 * or refused on its own (202 with the counts); only a malformed batch as a whole is a 400.
 */
export function analyticsRoutes(deps: AnalyticsRouteDeps): Router {
  const router = Router();
  router.post("/events", requireAuth(deps.sessions), async (req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    await deps.limiter.hit(`user:events:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    const { events } = parseInput(clientEventsBody, req.body);
    sendOk(res, deps.clientEvents.accept(claims.app, claims.userId, events), "Accepted", 202);
  });
  return router;
}

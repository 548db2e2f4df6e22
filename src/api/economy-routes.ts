import { Router, type Request, type Response } from "express";
import type { CatalogService } from "../services/economy/catalog-service";
import type { ShopService } from "../services/economy/shop-service";
import { pricesWith } from "../services/economy/offers";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { purchaseBody } from "./economy-schemas";
import { sendOk } from "./envelope";
import { parseInput } from "./validate";

export interface EconomyRouteDeps {
  sessions: SessionService;
  catalogs: CatalogService;
  shop: ShopService;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
}

/**
 * Mounted at the API root: the token's app's catalog, the player's wallet and inventory there, and
 * buying with soft currency. Everything is per (player, app of the token).
 */
export function economyRoutes(deps: EconomyRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);

  // The price the player pays now (a live event's sale) in `prices`, the catalog's in `regularPrices`;
  // a limited-time item only while one of the player's events offers it.
  router.get("/catalog", auth, async (_req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    const { version, catalog } = deps.catalogs.get(claims.app);
    const items = [];
    for (const item of catalog.items) {
      const offer = await deps.shop.offers.offer(claims.app, claims.userId, item);
      if (!offer.onSale) continue;
      items.push(offer.sale ? { ...item, prices: pricesWith(item, offer), regularPrices: item.prices, saleEventId: offer.sale.eventId } : { ...item, regularPrices: item.prices });
    }
    sendOk(res, { version, ...catalog, items }, "OK");
  });

  router.get("/economy/wallet", auth, async (_req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    sendOk(res, await deps.shop.wallet(claims.app, claims.userId), "OK");
  });

  router.get("/economy/inventory", auth, async (_req: Request, res: Response) => {
    const { auth: claims } = authOf(res);
    sendOk(res, await deps.shop.inventory(claims.app, claims.userId), "OK");
  });

  router.post("/economy/purchases", auth, async (req: Request, res: Response) => {
    const body = parseInput(purchaseBody, req.body);
    const { auth: claims } = authOf(res);
    // New purchaseIds only: a replay writes nothing and answers the first outcome.
    const admitNew = () => deps.limiter.hit(`user:purchases:${claims.userId}`, deps.limits.userMax, deps.limits.windowSec);
    const { created, ...purchase } = await deps.shop.buy(claims.app, claims.userId, body, admitNew);
    sendOk(res, purchase, created ? "Purchased" : "Purchase already made", created ? 201 : 200);
  });
  return router;
}

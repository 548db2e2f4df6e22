import { Router, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { PaymentPlayer } from "../services/payments/payment-deps";
import { publicOrder, type PaymentService, type SpendRequest } from "../services/payments/payment-service";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { orderListQuery, orderParams, orderQuery, spendBody } from "./payment-schemas";
import { parseInput } from "./validate";

export interface PaymentRouteDeps {
  sessions: SessionService;
  payments: PaymentService;
  /** The player's platform (their latest login to the app) and the platform's app id; 409 session_key_missing without a login kept. */
  resolvePlayer(userId: string, app: string): Promise<PaymentPlayer>;
  /** Whether payments are on for the app on any platform (its keys are set); 404 payments_disabled otherwise. */
  paymentsEnabled(app: string): boolean;
  /** The (platform, platform app id)s of the game `app` whose item purchases are pushed: where a trade number is looked up. */
  itemPurchaseApps?(app: string): Array<{ platform: string; appId: string }>;
  limiter: RateLimiter;
  limits: { windowSec: number; userMax: number };
  /**
   * The order's terms from the catalog (economy): 404 item_not_found, 409 price_mismatch, purchase_limit or
   * already_owned, 422 order_too_large; for an orderId already recorded, the request's item and quantity at the order's own price.
   */
  priceOrder(app: string, userId: string, body: { orderId: string; itemId: string; quantity?: number; coins?: number }): Promise<Omit<SpendRequest, "orderId">>;
}

/**
 * Mounted at `/payments`: the logged-in player's coins and orders, on the platform and app of their
 * token. The balance is limited per user like the other platform-bound reads. Spending is limited
 * per user on new orders only (each is a platform call, even one refused for too few coins): a
 * replay must get its order back however many a client sends at once (100 concurrent replays are
 * one platform call and ledger reads), so replays are never counted.
 */
export function paymentRoutes(deps: PaymentRouteDeps): Router {
  const router = Router();
  const authenticate = requireAuth(deps.sessions);
  const enabled = (_req: Request, res: Response, next: (err?: unknown) => void) =>
    next(deps.paymentsEnabled(authOf(res).auth.app) ? undefined : new AppError("payments_disabled"));
  const auth = [authenticate, enabled];
  const perUser = (res: Response) => deps.limiter.hit(`user:payments:${authOf(res).auth.userId}`, deps.limits.userMax, deps.limits.windowSec);
  const perUserNewOrder = (res: Response) => () => deps.limiter.hit(`user:payment_orders:${authOf(res).auth.userId}`, deps.limits.userMax, deps.limits.windowSec);
  const player = (res: Response) => {
    const { auth: claims } = authOf(res);
    return deps.resolvePlayer(claims.userId, claims.app);
  };

  router.get("/balance", auth, async (_req: Request, res: Response) => {
    await perUser(res);
    sendOk(res, await deps.payments.balance(await player(res)), "OK");
  });

  router.post("/orders", auth, async (req: Request, res: Response) => {
    const body = parseInput(spendBody, req.body);
    const { auth: claims } = authOf(res);
    const priced = await deps.priceOrder(claims.app, claims.userId, body);
    const { order, created } = await deps.payments.spendCoins(await player(res), { orderId: body.orderId, ...priced }, perUserNewOrder(res));
    sendOk(res, publicOrder(order), created ? "Order created" : "Order already made", created ? 201 : 200);
  });

  router.get("/orders", auth, async (req: Request, res: Response) => {
    const { state, limit } = parseInput(orderListQuery, req.query);
    const orders = await deps.payments.listOrders(authOf(res).auth.userId, state, limit);
    sendOk(res, { orders: orders.map(publicOrder) }, "OK");
  });

  // An orderId the ledger lacks may be an item purchase whose push is late: the service asks the platform (throttled).
  router.get("/orders/:orderId", auth, async (req: Request, res: Response) => {
    const { orderId } = parseInput(orderParams, req.params);
    const { kind } = parseInput(orderQuery, req.query);
    const { userId, app } = authOf(res).auth;
    const scope = { kind, itemApps: deps.itemPurchaseApps?.(app) ?? [] };
    sendOk(res, publicOrder(await deps.payments.getOrder(userId, orderId, () => player(res), scope)), "OK");
  });
  return router;
}

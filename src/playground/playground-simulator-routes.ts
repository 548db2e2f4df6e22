import express, { Router, type Request, type Response } from "express";
import { z } from "zod";
import { authOf, requireAuth } from "../api/auth-middleware";
import { sendOk } from "../api/envelope";
import { parseInput } from "../api/validate";
import type { SessionService } from "../services/session-service";
import type { SimulatorPlayerControls } from "../services/simulator-player-controls";

export interface PlaygroundSimulatorRouteDeps {
  sessions: SessionService;
  controls: SimulatorPlayerControls;
}

const coinsBody = z.strictObject({
  balance: z.int("must be an integer").min(0).max(2_000_000_000),
});

const itemPurchaseBody = z.strictObject({
  itemId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ . -"),
  price: z.int("must be an integer").min(0).max(2_000_000_000),
  // Becomes the order's id: the page makes one so it can wait for that order's delivery.
  outTradeNo: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 of A-Z a-z 0-9 _ -").optional(),
});

const adBody = z.strictObject({
  adUnitId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -"),
  watchId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -"),
});

/**
 * What the playground's Payments panel does on the platform's side, for the player of the Bearer
 * token: top up their coins, or buy an item in the platform's payment UI. Mounted only with the
 * embedded simulator (app.config.ts), so never in production; not part of the API description.
 */
export function playgroundSimulatorRoutes(deps: PlaygroundSimulatorRouteDeps): Router {
  const router = Router();
  const parseJson = express.json({ limit: "4kb", strict: true });
  const auth = [requireAuth(deps.sessions), parseJson];

  router.post("/playground/simulator/coins", auth, async (req: Request, res: Response) => {
    const { balance } = parseInput(coinsBody, req.body);
    const { userId, app } = authOf(res).auth;
    sendOk(res, await deps.controls.setBalance(userId, app, balance), "Balance set");
  });

  router.post("/playground/simulator/item-purchase", auth, async (req: Request, res: Response) => {
    const purchase = parseInput(itemPurchaseBody, req.body);
    const { userId, app } = authOf(res).auth;
    sendOk(res, await deps.controls.purchaseItem(userId, app, purchase), "Item bought; the platform pushes its delivery");
  });

  // The Rewards panel's ad: the player "watches" it to the end; WeChat's ad server then calls back.
  router.post("/playground/simulator/ad-reward", auth, async (req: Request, res: Response) => {
    const ad = parseInput(adBody, req.body);
    const { userId, app } = authOf(res).auth;
    sendOk(res, await deps.controls.watchAd(userId, app, ad), "Ad watched; the platform calls back");
  });
  return router;
}

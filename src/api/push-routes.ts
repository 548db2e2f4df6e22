import express, { Router, type ErrorRequestHandler, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import { readPush, verifiesUrl } from "../platforms/wechat/wechat-push";
import type { PushApp } from "../services/payments/payment-deps";
import type { PaymentOperations } from "../services/payments/payment-operations";
import type { PushNonces } from "../services/push-nonces";
import { mountDouyinPush } from "./push-routes-douyin";

export type { PushApp };


export interface PushRouteDeps {
  /** The served platforms (PLATFORMS): each platform's push route exists only where it is served. */
  platforms: readonly { name: string }[];
  /** The apps of the platform whose push Token is set. */
  pushApps(platform: string): PushApp[];
  operations: PaymentOperations;
  /** The (timestamp, nonce) pairs seen on WeChat's message push, across processes. */
  nonces: PushNonces;
  logger: Logger;
  /** Counts a refused push (metrics: platform_pushes_refused_total). */
  refused?: (platform: string, push: "item_purchase", reason: string) => void;
  nowSec?: () => number;
}

/**
 * WeChat's reply shape, always HTTP 200: WeChat reads ErrCode. 0 only once the order is durably
 * recorded; a refusal or a failure to record is non-zero, and WeChat pushes again later.
 */
function reply(res: Response, errCode: number, errMsg: string): void {
  res.status(200).json({ ErrCode: errCode, ErrMsg: errMsg });
}

/** Non-zero ErrCodes of our refusals, one per reason, so a console log tells them apart. */
const REFUSAL_CODES: Record<string, number> = {
  bad_signature: 40001,
  stale_timestamp: 40002,
  malformed: 40003,
  wrong_app: 40004,
  bad_pay_sig: 40005,
  wrong_env: 40006,
  body_too_large: 40007,
  body_unreadable: 40008,
  replayed: 40009,
};

/**
 * Mounted at `/minigame`, before the JSON parser: item purchases the platforms push, at
 * `/{platform}/push` (GET: the console's URL verification; POST: a push): WeChat's message push
 * here, Douyin's payment callback in push-routes-douyin.ts. The app is the one whose Token verifies
 * the signature, so one URL serves every app. Replies are the platform's own, not our envelope.
 */
export function pushRoutes(deps: PushRouteDeps): Router {
  const router = Router();
  const nowSec = deps.nowSec ?? (() => Math.floor(Date.now() / 1000));
  const served = (name: string) => deps.platforms.some((p) => p.name === name);
  if (served("wechat")) mountWechatPush(router, deps, nowSec);
  if (served("douyin")) mountDouyinPush(router, { pushApps: deps.pushApps, operations: deps.operations, logger: deps.logger, nowSec });
  router.use(unreadablePushBodies(deps.logger));
  return router;
}

/**
 * A push body that cannot be read (over 64 KiB, a broken stream) is refused in the platform's own
 * shape like every other refusal, not in our envelope: WeChat's HTTP 200 with a non-zero ErrCode,
 * Douyin's non-200 status with err_no. Both platforms push again later. Other errors go on.
 */
function unreadablePushBodies(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    const e = err as { type?: unknown; status?: unknown; expose?: unknown };
    const unreadable = typeof e?.status === "number" && e.status >= 400 && e.status < 500 && e.expose === true;
    const platform = req.path.startsWith("/wechat/") ? "wechat" : req.path.startsWith("/douyin/") ? "douyin" : undefined;
    if (!unreadable || req.method !== "POST" || !platform || res.headersSent) return next(err);
    const reason = e.type === "entity.too.large" ? "body_too_large" : "body_unreadable";
    logger.warn({ event: "push_refused", platform, reason }, "an item-purchase push was refused");
    if (platform === "wechat") return reply(res, REFUSAL_CODES[reason], reason);
    res.status(e.status as number).json({ err_no: REFUSAL_CODES[reason], err_tips: reason });
  };
}

function mountWechatPush(router: Router, deps: PushRouteDeps, nowSec: () => number): void {
  const query = (req: Request) => new URL(req.originalUrl, "http://push.invalid").searchParams;

  router.get("/wechat/push", (req: Request, res: Response) => {
    const q = query(req);
    const app = deps.pushApps("wechat").find((a) => verifiesUrl(a.push.token, q));
    if (!app) throw new AppError("push_signature_invalid");
    res.status(200).type("text/plain").send(q.get("echostr") ?? "");
  });

  // The body is read as text: a malformed one must get WeChat's reply shape, not our envelope.
  router.post("/wechat/push", express.text({ type: () => true, limit: "64kb" }), async (req: Request, res: Response) => {
    const q = query(req);
    const raw = typeof req.body === "string" ? req.body : "";
    const refuse = (reason: string, appId?: string) => {
      deps.logger.warn({ event: "push_refused", platform: "wechat", appId, reason }, "an item-purchase push was refused");
      deps.refused?.("wechat", "item_purchase", reason);
      reply(res, REFUSAL_CODES[reason] ?? 40003, reason);
    };
    const app = deps.pushApps("wechat").find((a) => verifiesUrl(a.push.token, q));
    if (!app) return refuse("bad_signature");
    const outcome = readPush(app.appId, app.push, app.keys, q, raw, nowSec());
    if (outcome.kind === "refused") return refuse(outcome.reason, app.appId);
    // In plain mode the query's signature does not cover the body: a captured URL must not carry another one.
    try {
      if (!(await deps.nonces.admit("wechat_push", app.appId, q.get("timestamp")!, q.get("nonce") ?? "", raw))) return refuse("replayed", app.appId);
    } catch (err) {
      deps.logger.error({ err, event: "push_not_recorded", platform: "wechat", appId: app.appId }, "an item-purchase push could not be checked against replays; WeChat will push it again");
      return reply(res, 1, "internal_error");
    }
    if (outcome.kind === "purchase") {
      const { openid, tradeNo, itemId, price, env } = outcome;
      try {
        await deps.operations.recordItemPurchase("wechat", app.appId, { openid, tradeNo, itemId, price, env });
      } catch (err) {
        // Not recorded: a failure reply makes WeChat push again later.
        const code = err instanceof AppError ? err.code : "internal_error";
        deps.logger.error({ err, event: "push_not_recorded", platform: "wechat", appId: app.appId, tradeNo }, "an item purchase could not be recorded; WeChat will push it again");
        return reply(res, 1, code);
      }
    }
    reply(res, 0, "Success");
  });
}

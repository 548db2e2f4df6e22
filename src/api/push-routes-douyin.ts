import express, { type Request, type Response, type Router } from "express";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import { readCallback, readCallbackEnvelope, signedBy, verifiesCallbackUrl, type CallbackRefusal } from "../platforms/douyin/douyin-push";
import type { PaymentOperations } from "../services/payments/payment-operations";

/** What the Douyin callback route needs; push-routes.ts hands it its own deps. */
export interface DouyinPushDeps {
  /** Douyin's apps whose callback Token is set, with the env their orders are recorded in. */
  pushApps(platform: "douyin"): Array<{ appId: string; push: { token: string }; keys: { env: 0 | 1 } }>;
  operations: Pick<PaymentOperations, "recordItemPurchase">;
  logger: Logger;
  nowSec: () => number;
}

/** Our refusals: the HTTP status Douyin sees (anything but 200 is retried) and an err_no per reason for its console. */
const REFUSALS: Record<CallbackRefusal, { status: number; errNo: number }> = {
  bad_signature: { status: 401, errNo: 40001 },
  stale_timestamp: { status: 400, errNo: 40002 },
  malformed: { status: 400, errNo: 40003 },
  wrong_app: { status: 400, errNo: 40004 },
};

/** Douyin's reply shape: HTTP 200 is what Douyin reads as success; the body mirrors its `err_no`/`err_tips`. */
function reply(res: Response, status: number, errNo: number, errTips: string): void {
  res.status(status).json({ err_no: errNo, err_tips: errTips });
}

/**
 * Douyin's payment callback on `router` (mounted at `/minigame`, before the JSON parser):
 * `/douyin/push`, GET the console's URL verification, POST a paid order (douyin-push.ts). The app is
 * the one whose callback Token verifies the signature, so one URL serves every app.
 */
export function mountDouyinPush(router: Router, deps: DouyinPushDeps): void {
  router.get("/douyin/push", (req: Request, res: Response) => {
    const q = new URL(req.originalUrl, "http://push.invalid").searchParams;
    const app = deps.pushApps("douyin").find((a) => verifiesCallbackUrl(a.push.token, q));
    if (!app) throw new AppError("push_signature_invalid");
    res.status(200).type("text/plain").send(q.get("echostr") ?? "");
  });

  // The body is read as text: a malformed one must get Douyin's reply shape, not our envelope.
  router.post("/douyin/push", express.text({ type: () => true, limit: "64kb" }), async (req: Request, res: Response) => {
    const raw = typeof req.body === "string" ? req.body : "";
    const refuse = (reason: CallbackRefusal, appId?: string) => {
      deps.logger.warn({ event: "push_refused", platform: "douyin", appId, reason }, "a payment callback was refused");
      reply(res, REFUSALS[reason].status, REFUSALS[reason].errNo, reason);
    };
    const envelope = readCallbackEnvelope(raw);
    if (!envelope) return refuse("malformed");
    const app = deps.pushApps("douyin").find((a) => signedBy(a.push.token, envelope));
    if (!app) return refuse("bad_signature");
    const outcome = readCallback(app.appId, app.push.token, raw, deps.nowSec(), app.keys.env);
    if (outcome.kind === "refused") return refuse(outcome.reason, app.appId);
    if (outcome.kind === "ignored") {
      deps.logger.info({ event: "push_ignored", platform: "douyin", appId: app.appId, what: outcome.what }, "a payment callback that is not a paid order was acknowledged");
      return reply(res, 200, 0, "success");
    }
    const { openid, tradeNo, itemId, price, env, channelOrderNo } = outcome;
    try {
      await deps.operations.recordItemPurchase("douyin", app.appId, { openid, tradeNo, itemId, price, env });
    } catch (err) {
      // Not recorded: a non-200 reply makes Douyin call again later.
      const code = err instanceof AppError ? err.code : "internal_error";
      deps.logger.error({ err, event: "push_not_recorded", platform: "douyin", appId: app.appId, tradeNo, channelOrderNo }, "an item purchase could not be recorded; Douyin will call again");
      return reply(res, 500, 1, code);
    }
    reply(res, 200, 0, "success");
  });
}

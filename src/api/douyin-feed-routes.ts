/**
 * Douyin's feed direct-play call (douyin-feed.ts in platforms/douyin says what Douyin sends and
 * expects): `GET /api/minigame/douyin/feed`, mounted before the body parser and the rate limits.
 * Every answer has Douyin's shape and, where the app is known, its signature: an unsigned answer is
 * thrown away by Douyin, a refusal included.
 */
import { Router, type Request, type Response } from "express";
import type { Logger } from "../logging/logger";
import { FEED_ERR_NO, feedAnswerBody, feedErrorBody, feedSignature, readFeedPull, type FeedRefusal } from "../platforms/douyin/douyin-feed";
import type { DouyinFeed } from "../services/growth/douyin-feed";

export interface DouyinFeedRouteDeps {
  /** The app Douyin names by its app id: our key of it and its feed secret (DOUYIN_FEED_SECRETS), if both exist. */
  feedApp(appId: string): { app: string; secret: string } | undefined;
  feed: Pick<DouyinFeed, "answer">;
  logger: Logger;
  refused(reason: FeedRefusal): void;
  nowSec: () => number;
}

const REFUSALS: Record<FeedRefusal, { status: number; errNo: number }> = {
  malformed: { status: 400, errNo: FEED_ERR_NO.invalidParam },
  unknown_app: { status: 401, errNo: FEED_ERR_NO.badSignature },
  bad_signature: { status: 401, errNo: FEED_ERR_NO.badSignature },
  stale_timestamp: { status: 401, errNo: FEED_ERR_NO.badSignature },
};

export function douyinFeedRoutes(deps: DouyinFeedRouteDeps): Router {
  const router = Router();
  router.get("/douyin/feed", async (req: Request, res: Response) => {
    const search = new URL(req.originalUrl, "http://feed.invalid").searchParams;
    const send = (status: number, body: string, query: ReadonlyMap<string, string> | undefined, secret: string | undefined) => {
      if (query && secret) res.set("x-signature", feedSignature(query, body, secret));
      res.status(status).type("application/json").send(body);
    };
    let target: { app: string; secret: string } | undefined;
    const pull = readFeedPull(search, req.get("x-signature"), (appId) => (target = deps.feedApp(appId))?.secret, deps.nowSec());
    if ("refused" in pull) {
      deps.refused(pull.refused);
      deps.logger.warn({ event: "feed_call_refused", platform: "douyin", appId: pull.appId, reason: pull.refused }, "a Douyin feed call was refused");
      const { status, errNo } = REFUSALS[pull.refused];
      // Signed only where the call proved it came from Douyin: the secret is never used to sign for a stranger.
      return send(status, feedErrorBody(errNo, pull.refused), undefined, undefined);
    }
    const { app, secret } = target!; // the app whose secret verified the call
    try {
      const answer = await deps.feed.answer(app, pull.openid);
      if (answer.player === "late") deps.logger.warn({ event: "feed_scenes_late", platform: "douyin", appId: pull.appId }, "the ready scenes took too long; Douyin was answered with none");
      send(200, feedAnswerBody(answer.scenes), pull.query, secret);
    } catch (err) {
      // No card this time (Douyin asks again at the next chance); never our envelope, never a stack.
      deps.logger.error({ err, event: "feed_answer_failed", platform: "douyin", appId: pull.appId }, "the ready scenes could not be read");
      send(503, feedErrorBody(1, "unavailable"), pull.query, secret);
    }
  });
  return router;
}

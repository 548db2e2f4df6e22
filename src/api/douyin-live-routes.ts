/**
 * Douyin live-stream games (docs/douyin-live.md), under /api:
 *   POST <DOUYIN_LIVE_PUSH_PATH>   Douyin's pushes (before the JSON parser: the signature covers the raw body)
 *   POST /douyin-live/sessions     the streamer's game launches: `{token}` → the live room and a seat ticket
 * A push is checked whole before any work (douyin-live.ts readLivePush); gifts and fan-club events are
 * claimed in the ledger before the 200 (Douyin allows 3 s), comments and likes are queued after it.
 */
import express, { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { Logger } from "../logging/logger";
import { LIVE_PUSH_MAX_BODY_BYTES, readLivePush, type LiveMsgType } from "../platforms/douyin/douyin-live";
import type { LiveIntake } from "../services/douyin-live/live-intake";
import type { DouyinLiveSessions } from "../services/douyin-live/live-sessions";
import { sendOk } from "./envelope";
import { parseInput } from "./validate";

export interface DouyinLiveRouteDeps {
  pushPath: string;
  secrets: Partial<Record<LiveMsgType, string | undefined>>;
  intake: LiveIntake;
  sessions: DouyinLiveSessions;
  logger: Logger;
  refused?: (reason: string) => void;
  now?: () => number;
}

/** Our refusals as Douyin sees them: any non-2xx is a failed push (retried, or kept for the failed-data query). */
const STATUS: Record<string, number> = { bad_signature: 401, wrong_secret: 401, unknown_type: 400, stale_timestamp: 400, malformed: 400, not_an_array: 400, too_large: 413 };

function lowercaseHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (k.startsWith("x-") && typeof v === "string") out[k] = v;
  return out;
}

/** Mounted before the JSON parser. */
export function douyinLivePushRoutes(deps: DouyinLiveRouteDeps): Router {
  const router = Router();
  const now = deps.now ?? Date.now;
  const refuse = (res: Response, reason: string) => {
    deps.logger.warn({ event: "push_refused", platform: "douyin", push: "live", reason }, "a Douyin live push was refused");
    deps.refused?.(reason);
    res.status(STATUS[reason] ?? 400).json({ err_no: 1, err_msg: reason });
  };
  router.post(
    deps.pushPath,
    express.raw({ type: () => true, limit: LIVE_PUSH_MAX_BODY_BYTES }),
    async (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
      const read = readLivePush(lowercaseHeaders(req), raw, (t) => deps.secrets[t], now());
      if ("refused" in read) return refuse(res, read.refused);
      try {
        await deps.intake.accept(read.head.roomId, read.head.msgType, read.messages);
      } catch (err) {
        // Not recorded: a failed push is retried by Douyin, or kept for the failed-data query.
        deps.logger.error({ err, event: "push_not_recorded", liveRoomId: read.head.roomId, msgType: read.head.msgType }, "a Douyin live push could not be recorded");
        return res.status(503).json({ err_no: 2, err_msg: "not_recorded" });
      }
      res.status(200).json({ err_no: 0, err_msg: "success" });
    },
  );
  // A body past the limit, or one that cannot be read, is refused in the same shape.
  router.use(deps.pushPath, (err: unknown, _req: Request, res: Response, next: (e?: unknown) => void) => {
    const e = err as { type?: unknown; status?: unknown };
    if (typeof e?.status !== "number" || res.headersSent) return next(err);
    refuse(res, e.type === "entity.too.large" ? "too_large" : "malformed");
  });
  return router;
}

const startSchema = z.object({ token: z.string().min(1).max(1024) }).strict();

/** Mounted after the JSON parser. The launch token is the streamer's credential: no player session is needed. */
export function douyinLiveSessionRoutes(deps: Pick<DouyinLiveRouteDeps, "sessions">): Router {
  const router = Router();
  router.post("/douyin-live/sessions", async (req: Request, res: Response) => {
    const { token } = parseInput(startSchema, req.body);
    const s = await deps.sessions.start(token);
    sendOk(res, { live_room_id: s.liveRoomId, anchor_open_id: s.anchorOpenId, nickname: s.nickName, avatar_url: s.avatarUrl, tasks: s.tasks, ticket: s.ticket });
  });
  return router;
}

/**
 * The `/leaderboards` routes: the boards of the token's app. Scores normally come from the game's
 * own code (rooms call the service); a client may submit only where the board says so, within its
 * bounds and a per-player rate.
 */
import { Router, type Request, type Response } from "express";
import { AppError } from "../core/errors";
import type { BoardDefinition } from "../config/settings/leaderboards";
import type { LeaderboardService } from "../services/leaderboards/leaderboard-service";
import type { PageCursor } from "../services/leaderboards/ranked-reads";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import { aroundQuery, boardIdParam, meQuery, recordsQuery, scoreBody } from "./leaderboard-schemas";
import { parseInput } from "./validate";

export interface LeaderboardRouteDeps {
  sessions: SessionService;
  leaderboards: LeaderboardService;
  limiter: RateLimiter;
}

export function leaderboardRoutes(deps: LeaderboardRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  const lb = deps.leaderboards;

  router.get("/leaderboards", auth, (_req: Request, res: Response) => {
    sendOk(res, { boards: lb.boards(authOf(res).auth.app).map(publicBoard) });
  });

  router.get("/leaderboards/:boardId/records", auth, async (req: Request, res: Response) => {
    const { boardId } = parseInput(boardIdParam, req.params);
    const query = parseInput(recordsQuery, req.query);
    const app = authOf(res).auth.app;
    if (query.userIds) {
      sendOk(res, { ...(await lb.records(app, boardId, query.userIds, { period: query.period })), next: null });
      return;
    }
    const page = await lb.top(app, boardId, { limit: query.limit, cursor: query.cursor ? decodeCursor(query.cursor) : undefined, period: query.period });
    sendOk(res, { records: page.records, next: page.next ? encodeCursor(page.next) : null, period: page.period });
  });

  router.get("/leaderboards/:boardId/records/around-me", auth, async (req: Request, res: Response) => {
    const { boardId } = parseInput(boardIdParam, req.params);
    const query = parseInput(aroundQuery, req.query);
    const { app, userId } = authOf(res).auth;
    sendOk(res, await lb.aroundMe(app, userId, boardId, query));
  });

  router.get("/leaderboards/:boardId/me", auth, async (req: Request, res: Response) => {
    const { boardId } = parseInput(boardIdParam, req.params);
    const query = parseInput(meQuery, req.query);
    const { app, userId } = authOf(res).auth;
    sendOk(res, await lb.me(app, userId, boardId, query));
  });

  router.post("/leaderboards/:boardId/scores", auth, async (req: Request, res: Response) => {
    const { boardId } = parseInput(boardIdParam, req.params);
    const { app, userId } = authOf(res).auth;
    const board = lb.board(app, boardId);
    if (!board.clientSubmit) throw new AppError("client_submit_disabled");
    const body = parseInput(scoreBody, req.body);
    await deps.limiter.hit(`user:lb_submit:${app}:${boardId}:${userId}`, board.clientSubmitsPerMinute, 60);
    sendOk(res, await lb.submit(app, userId, boardId, body.score, { subscore: body.subscore, metadata: body.metadata ?? null }), "Submitted");
  });

  router.post("/leaderboards/:boardId/join", auth, async (req: Request, res: Response) => {
    const { boardId } = parseInput(boardIdParam, req.params);
    const { app, userId } = authOf(res).auth;
    sendOk(res, await lb.join(app, userId, boardId), "Joined");
  });
  return router;
}

/** What a client may know of a board. */
export function publicBoard(b: BoardDefinition) {
  return {
    id: b.id,
    title: b.title ?? null,
    order: b.order,
    operator: b.operator,
    clientSubmit: b.clientSubmit,
    minScore: b.minScore ?? null,
    maxScore: b.maxScore ?? null,
    reset: b.reset ?? null,
    timezone: b.timezone,
    tournament: b.tournament ? { startsAt: b.tournament.startsAt, endsAt: b.tournament.endsAt, joinRequired: b.tournament.joinRequired, maxSize: b.tournament.maxSize ?? null } : null,
    rewards: b.rewards,
  };
}

/** Opaque to clients: the page's position in the ranking, base64url JSON. */
export function encodeCursor(c: PageCursor): string {
  return Buffer.from(JSON.stringify([c.offset, c.score, c.subscore, c.reachedAt, c.userId])).toString("base64url");
}

export function decodeCursor(text: string): PageCursor {
  try {
    const [offset, score, subscore, reachedAt, userId] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if ([offset, score, subscore, reachedAt].every(Number.isSafeInteger) && typeof userId === "string" && (offset as number) >= 0) {
      return { offset: offset as number, score: score as number, subscore: subscore as number, reachedAt: reachedAt as number, userId };
    }
  } catch {
    // falls through to the refusal below
  }
  throw new AppError("invalid_request", { message: "cursor: is not a cursor of this list", data: { fields: [{ field: "cursor", message: "is not a cursor of this list" }] } });
}

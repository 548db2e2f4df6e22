/**
 * The console's leaderboard screen: an app's boards with their current period and record count, a
 * player's records on them (viewer), and removing a player's current record, banning them from a
 * board, which also removes it, lifting a ban, and resetting a board: its period ends now and the
 * next starts (admin). Each change is audited like every console change.
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import { appQuery, knownApp, knownPlayer } from "./console-apps";
import type { ConsoleScreen } from "./console-screens";
import { userIdParam } from "./console-schemas";

export const boardRecordParams = userIdParam.extend({ boardId: z.string().min(1).max(64).meta({ example: "weekly-score" }) });
export const boardChangeBody = z.object({ app: z.string().min(1).max(64).default("default") });
export const boardParam = z.object({ boardId: z.string().min(1).max(64).meta({ example: "weekly-score" }) });

export const leaderboardsScreen: ConsoleScreen = {
  id: "leaderboards",
  title: "Leaderboards",
  role: "viewer",
  available: (services) => services.leaderboards !== undefined,
  routes(router: Router, { services, guard }) {
    router.get("/leaderboards", ...guard.read("viewer", async (req) => {
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      return { app, boards: await services.leaderboards.describe(app) };
    }));
    router.get("/leaderboards/players/:userId", ...guard.read("viewer", async (req) => {
      const userId = await knownPlayer(services, parseInput(userIdParam, req.params).userId);
      const app = knownApp(services, parseInput(appQuery, req.query).app);
      return { app, records: await services.leaderboards.recordsOf(app, userId) };
    }));
    router.post("/leaderboards/:boardId/players/:userId/remove", ...guard.change("board.remove_record", "admin", async (req) => {
      const { boardId, userId } = parseInput(boardRecordParams, req.params);
      const app = knownApp(services, parseInput(boardChangeBody, req.body ?? {}).app);
      services.leaderboards.board(app, boardId);
      const removed = await services.leaderboards.removeRecord(app, boardId, userId);
      return { target: userId, detail: { app, boardId, removed }, result: { app, boardId, userId, removed } };
    }));
    router.post("/leaderboards/:boardId/players/:userId/ban", ...guard.change("board.ban", "admin", async (req, session) => {
      const { boardId, userId } = parseInput(boardRecordParams, req.params);
      const app = knownApp(services, parseInput(boardChangeBody, req.body ?? {}).app);
      await knownPlayer(services, userId);
      const { removed } = await services.leaderboards.ban(app, boardId, userId, `console:${session.operator.name}`);
      return { target: userId, detail: { app, boardId, removed }, result: { app, boardId, userId, banned: true, removed } };
    }));
    // The same service call as `npm run admin -- leaderboards reset`: the ended period's rewards are paid by the servers.
    router.post("/leaderboards/:boardId/reset", ...guard.change("board.reset", "admin", async (req, session) => {
      const { boardId } = parseInput(boardParam, req.params);
      const app = knownApp(services, parseInput(boardChangeBody, req.body ?? {}).app);
      const { period, started } = await services.leaderboards.reset(app, boardId, `console:${session.operator.name}`);
      return { target: boardId, detail: { app, boardId, period: period.seq, started }, result: { app, boardId, period, started } };
    }));
    // The same service call as `npm run admin -- leaderboards unban`.
    router.post("/leaderboards/:boardId/players/:userId/unban", ...guard.change("board.unban", "admin", async (req) => {
      const { boardId, userId } = parseInput(boardRecordParams, req.params);
      const app = knownApp(services, parseInput(boardChangeBody, req.body ?? {}).app);
      await knownPlayer(services, userId);
      await services.leaderboards.unban(app, boardId, userId);
      return { target: userId, detail: { app, boardId }, result: { app, boardId, userId, banned: false } };
    }));
  },
};

/** The players and orders screens' JSON routes (under /console/api). */
import { Router } from "express";
import { AppError } from "../core/errors";
import { parseInput } from "../http/validate";
import type { ConsolePlayers } from "../services/console/console-players";
import type { AuditLog } from "../services/console/audit-log";
import type { ConsoleGuard } from "./console-guard";
import { playerRooms } from "./console-player-rooms";
import { disableBody, eraseBody, muteBody, grantBody, orderParams, ordersQuery, searchQuery, userIdParam } from "./console-schemas";

export function consolePlayerRoutes(players: ConsolePlayers, guard: ConsoleGuard, audit: AuditLog, supportGrantMax: number): Router {
  const router = Router();

  router.get("/players", ...guard.read("viewer", (req) => players.search(parseInput(searchQuery, req.query).q)));
  router.get("/players/:userId", ...guard.read("viewer", (req) => players.overview(parseInput(userIdParam, req.params).userId)));
  router.get(
    "/players/:userId/export",
    ...guard.read("support", async (req, session) => {
      const { userId } = parseInput(userIdParam, req.params);
      const record = await players.export(userId);
      // Reading everything stored about a player is recorded like a change.
      await audit.record({ actor: session.operator.name, via: "console", action: "player.export", target: userId, outcome: "ok" });
      return record;
    }),
  );
  router.get(
    "/players/:userId/rooms",
    ...guard.read("viewer", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      return playerRooms(userId, (await players.overview(userId)).sessionApps);
    }),
  );
  router.get(
    "/players/:userId/orders",
    ...guard.read("viewer", (req) => {
      const query = parseInput(ordersQuery, req.query);
      return players.orders(parseInput(userIdParam, req.params).userId, query.state, query.app);
    }),
  );

  router.post(
    "/players/:userId/kick",
    ...guard.change("player.kick", "support", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      return { target: userId, result: await players.kick(userId) };
    }),
  );
  router.post(
    "/players/:userId/disable",
    ...guard.change("player.disable", "support", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      const body = parseInput(disableBody, req.body ?? {});
      const until = body.until ? new Date(body.until).toISOString() : null;
      return { target: userId, detail: { reason: body.reason, until }, result: await players.disable(userId, { reason: body.reason, until }) };
    }),
  );
  router.post(
    "/players/:userId/enable",
    ...guard.change("player.enable", "support", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      return { target: userId, result: await players.enable(userId) };
    }),
  );
  router.post(
    "/players/:userId/mute",
    ...guard.change("player.mute", "support", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      const body = parseInput(muteBody, req.body ?? {});
      const overview = await players.mute(userId, body);
      return { target: userId, detail: { reason: body.reason, durationSec: body.durationSec, until: overview.mute?.until }, result: overview };
    }),
  );
  router.post(
    "/players/:userId/unmute",
    ...guard.change("player.unmute", "support", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      return { target: userId, result: await players.unmute(userId) };
    }),
  );
  router.post(
    "/players/:userId/erase",
    ...guard.change("player.erase", "admin", async (req) => {
      const { userId } = parseInput(userIdParam, req.params);
      const { confirm } = parseInput(eraseBody, req.body ?? {});
      return { target: userId, result: await players.erase(userId, confirm) };
    }, { recordAttempt: true }),
  );
  router.post(
    "/players/:userId/orders/:orderId/refund",
    ...guard.change("order.refund", "admin", async (req) => {
      const { userId, orderId } = parseInput(orderParams, req.params);
      const order = await players.refund(userId, orderId);
      return { target: userId, detail: { orderId, coins: order.coins, platform: order.platform }, result: order };
    }, { recordAttempt: true }),
  );
  router.post(
    "/players/:userId/orders/:orderId/redeliver",
    ...guard.change("order.redeliver", "support", async (req) => {
      const { userId, orderId } = parseInput(orderParams, req.params);
      const order = await players.redeliver(userId, orderId);
      return { target: userId, detail: { orderId, state: order.state }, result: order };
    }),
  );
  router.post(
    "/players/:userId/grants",
    ...guard.change("order.grant", "support", async (req, session) => {
      const { userId } = parseInput(userIdParam, req.params);
      const body = parseInput(grantBody, req.body ?? {});
      if (session.operator.role === "support" && body.coins > supportGrantMax) {
        throw new AppError("console_role_forbidden", { message: `A support operator may grant at most ${supportGrantMax} coins at once`, data: { needs: "admin" } });
      }
      const { order, created } = await players.grant(userId, body);
      return { target: userId, outcome: created ? "ok" : "repeated", detail: { grantId: body.grantId, coins: body.coins, platform: body.platform, app: body.app, reason: body.reason }, result: order };
    }, { recordAttempt: true }),
  );
  router.get("/orders/unsettled", ...guard.read("viewer", () => players.unsettled()));
  return router;
}

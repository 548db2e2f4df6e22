/**
 * The console's Douyin live screen (docs/douyin-live.md): the streamers live now and the game room
 * serving each, a room's push tasks as Douyin reports them and its per-round counts, and a round's
 * gift ledger. Read-only: everything comes from DouyinLiveMonitor.
 */
import type { Router } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { parseInput } from "../http/validate";
import type { ConsoleScreen } from "./console-screens";

export const liveRoomParam = z.object({ liveRoomId: z.string().regex(/^\d{1,20}$/).meta({ example: "7214015683695250235" }) });
export const roundParams = liveRoomParam.extend({ roundId: z.coerce.number().int().min(0).max(1_000_000_000) });

export const douyinLiveScreen: ConsoleScreen = {
  id: "douyin-live",
  title: "Douyin live",
  role: "viewer",
  available: (services) => services.douyinLive !== undefined,
  routes(router: Router, { services, guard }) {
    const monitor = () => services.douyinLive!.monitor;
    router.get("/douyin-live/rooms", ...guard.read("viewer", async () => ({ rooms: await monitor().liveRooms() })));
    router.get("/douyin-live/rooms/:liveRoomId", ...guard.read("viewer", async (req) => {
      const { liveRoomId } = parseInput(liveRoomParam, req.params);
      const room = await monitor().room(liveRoomId);
      if (!room) throw new AppError("live_room_unavailable", { message: `No live session for live room ${liveRoomId}: the stream ended or was never launched here` });
      return room;
    }));
    router.get("/douyin-live/rooms/:liveRoomId/rounds/:roundId/gifts", ...guard.read("viewer", async (req) => {
      const { liveRoomId, roundId } = parseInput(roundParams, req.params);
      return monitor().roundLedger(liveRoomId, roundId);
    }));
  },
};

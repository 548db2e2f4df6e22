/**
 * The API description's console routes for Douyin live games (src/console/console-douyin-live.ts):
 * read-only, for any signed-in operator; described only where DOUYIN_LIVE_ENABLED serves them.
 */
import { z } from "zod";
import * as s from "../schemas";
import { liveRoomParam, roundParams } from "../../console/console-douyin-live";
import { consoleErrorFields } from "../../console/console-schemas";
import type { ErrorCode } from "../../core/errors";
import { LIVE_MSG_TYPES } from "../../platforms/douyin/douyin-live";
import { CONSOLE_SIGNED_IN } from "./console-operations";
import type { OperationSpec } from "./operation-spec";

const SIGNED_IN: ErrorCode[] = [...CONSOLE_SIGNED_IN, "invalid_request"];
const count = () => z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const round = () => z.int().min(0).max(1_000_000_000);

const liveRoomView = {
  liveRoomId: z.string().meta({ description: "Douyin's live room id (digits)", example: "7214015683695250235" }),
  anchorOpenId: z.string(),
  nickName: z.string().describe("The streamer's nickname"),
  startedAt: z.string().describe("When the game was launched in this room (ISO 8601)"),
  gameRoomId: z.string().nullable().describe("The `douyin_live` room serving it, when one is bound"),
  viewers: count().describe("Distinct viewers whose comment, gift, like or fan-club event reached the room"),
  currentRound: round().describe("The round running now (0: none)"),
  lastRound: round(),
  tasks: z.array(z.enum(LIVE_MSG_TYPES)).describe("The push tasks started"),
};
const counts = z.strictObject({ gift: count(), comment: count(), like: count().describe("Taps (Douyin's like_num)"), fansclub: count(), giftValueFen: count() });

export function registerConsoleDouyinLiveComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("ConsoleDouyinLiveRoomsResponse", s.okEnvelope(z.strictObject({ rooms: z.array(z.strictObject(liveRoomView)) })));
  register(
    "ConsoleDouyinLiveRoomResponse",
    s.okEnvelope(
      z.strictObject({
        ...liveRoomView,
        taskStatus: z.array(z.strictObject({ msgType: z.enum(LIVE_MSG_TYPES), status: z.enum(["not_found", "not_started", "running", "unknown"]) })).describe("Douyin's own answer per task (`task/get`); `unknown` when it could not be asked"),
        rounds: z.array(z.strictObject({ roundId: round(), counts })).describe("Newest first, at most 20; round 0 holds what arrived outside any round"),
      }),
    ),
  );
  const viewer = { secOpenid: z.string(), nickname: z.string(), giftNum: count(), valueFen: count().describe("Value in fen (Douyin's gift_value)") };
  register(
    "ConsoleDouyinLiveRoundResponse",
    s.okEnvelope(
      z.strictObject({
        liveRoomId: z.string(),
        roundId: round(),
        entries: z.array(
          z.strictObject({
            msgId: z.string(),
            kind: z.enum(["gift", "fansclub"]),
            roomId: z.string(),
            roundId: round(),
            ...viewer,
            secGiftId: z.string().describe('"" for fan-club events'),
            source: z.enum(["push", "failed_data"]).describe("Pushed, or recovered by the failed-data query"),
            receivedAt: z.string(),
            delivered: z.boolean().describe("Whether it reached the game room"),
          }),
        ),
        totals: z.array(z.strictObject(viewer)).describe("Per viewer, highest value first"),
      }),
    ),
  );
}

export function consoleDouyinLiveOperations(consoleTag: string): OperationSpec[] {
  const read = { tag: consoleTag, security: "console" as const, errorFields: consoleErrorFields, method: "get" as const };
  return [
    { ...read, path: "/console/api/douyin-live/rooms", operationId: "consoleDouyinLiveRooms", summary: "The streamers live now with the game, and the room serving each", description: "", success: { status: 200, component: "ConsoleDouyinLiveRoomsResponse", description: "Live rooms" }, errors: SIGNED_IN },
    { ...read, path: "/console/api/douyin-live/rooms/{liveRoomId}", operationId: "consoleDouyinLiveRoom", summary: "One live room: Douyin's push task status and the counts per round", description: "409 `live_room_unavailable` when the stream ended or was never launched here.", pathParams: { schema: liveRoomParam, examples: {} }, success: { status: 200, component: "ConsoleDouyinLiveRoomResponse", description: "The live room" }, errors: [...SIGNED_IN, "live_room_unavailable"] },
    { ...read, path: "/console/api/douyin-live/rooms/{liveRoomId}/rounds/{roundId}/gifts", operationId: "consoleDouyinLiveRoundGifts", summary: "A round's gift ledger (the first 500) and its totals per viewer", description: "", pathParams: { schema: roundParams, examples: {} }, success: { status: 200, component: "ConsoleDouyinLiveRoundResponse", description: "The round's gifts" }, errors: SIGNED_IN },
  ];
}

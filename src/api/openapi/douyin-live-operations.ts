/** The API description's Douyin live-stream routes (docs/douyin-live.md); described only where DOUYIN_LIVE_ENABLED serves them. */
import { z } from "zod";
import * as s from "../schemas";
import type { OperationSpec } from "./operation-spec";

export const DOUYIN_LIVE_TAG = "Douyin live";

export function registerDouyinLiveComponents(register: (id: string, schema: z.ZodType) => void): void {
  register(
    "DouyinLiveSessionResponse",
    s.okEnvelope(
      z.strictObject({
        live_room_id: z.string().meta({ description: "Douyin's live room id (digits)", example: "7300000000001" }),
        anchor_open_id: z.string(),
        nickname: z.string(),
        avatar_url: z.string(),
        tasks: z.array(z.enum(["live_comment", "live_gift", "live_like", "live_fansclub"])).describe("Push tasks started (the types with a secret)"),
        ticket: z.string().describe("One-use seat ticket for the `douyin_live` room, valid 2 minutes"),
      }),
    ),
  );
  register(
    "DouyinLivePushReply",
    z.strictObject({
      err_no: z.int().min(0).max(9).meta({ description: "0 taken; 1 refused; 2 not recorded (Douyin pushes again or keeps it for the failed-data query)", example: 0 }),
      err_msg: z.string().meta({ example: "success" }),
    }),
  );
}

export function douyinLiveOperations(pushPath: string): OperationSpec[] {
  return [
    {
      method: "post",
      path: "/api/douyin-live/sessions",
      operationId: "startDouyinLiveSession",
      tag: DOUYIN_LIVE_TAG,
      summary: "Launch a live-stream game from the streamer's launch token",
      description:
        "The streamer's game sends the `token` its launcher (直播伴侣) gave it; no player login is needed. The server resolves it " +
        "to the live room (`webcastmate/info` with the app's access token), starts the push tasks of every message type that has a " +
        "secret, pins DOUYIN_LIVE_TOP_GIFTS, and answers a one-use ticket to join the `douyin_live` room with " +
        "`{liveRoomId, ticket}`. A second launch by the same streamer gets the same live room, hence the same game room. " +
        "A token Douyin refuses → 401 `live_token_invalid` (with its `err_no`: launch again); a room that is not live → 409 " +
        "`live_room_unavailable`; Douyin unreachable → 502 `platform_unavailable`.",
      body: { schema: z.object({ token: z.string().min(1).max(1024) }), examples: { launch: { token: "launch-token-from-douyin" } } },
      success: { status: 200, component: "DouyinLiveSessionResponse", description: "The live room and the seat ticket" },
      errors: ["live_token_invalid", "live_room_unavailable", "platform_misconfigured", "platform_unavailable"],
      errorFields: {
        platform: z.literal("douyin").optional(),
        err_no: z.int().optional().describe("Douyin's error number"),
        err_msg: z.string().optional(),
        logid: z.string().optional(),
      },
    },
    {
      method: "post",
      path: `/api${pushPath}`,
      operationId: "douyinLivePush",
      tag: DOUYIN_LIVE_TAG,
      summary: "Douyin's live pushes (comments, gifts, likes, fan-club events)",
      description:
        "Register this URL in Douyin's console for every message type, each with its own secret (DOUYIN_LIVE_SECRET_*). Checked " +
        "before any work: the type has a secret; `x-signature` = base64(md5(sorted `x-*` headers as `k=v` joined by `&` + raw body + " +
        "secret)); `x-timestamp` within 5 minutes; the body a JSON array of at most 500 well-formed payloads and 256 KiB. Gifts and " +
        "fan-club events are recorded in the gift ledger (once per `msg_id`) before the answer; everything reaches the live room's " +
        "`douyin_live` room after it. Answers are Douyin's shape, not the envelope.",
      body: { schema: z.array(z.object({ msg_id: z.string(), sec_openid: z.string() }).loose()), examples: {} },
      success: { status: 200, component: "DouyinLivePushReply", description: "Taken" },
      errors: [],
      bodyErrors: [],
      platformReplies: [
        { status: 400, component: "DouyinLivePushReply", description: "Refused: unknown type, stale timestamp, not an array, malformed" },
        { status: 401, component: "DouyinLivePushReply", description: "Refused: the signature does not verify with the type's secret" },
        { status: 413, component: "DouyinLivePushReply", description: "Refused: too large" },
        { status: 503, component: "DouyinLivePushReply", description: "Not recorded: Douyin pushes again or keeps it for the failed-data query" },
      ],
    },
  ];
}

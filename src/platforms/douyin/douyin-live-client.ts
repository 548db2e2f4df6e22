/**
 * Douyin's live-stream server APIs on webcast.bytedance.com (platform-apis-5.md §1), with the app
 * access token from the token service (the caller's withAccessToken heals a rejected one).
 *
 * Platform facts, from Douyin's open-platform docs for live games (developer.open-douyin.com
 * /docs/resource/zh-CN/interaction/develop/server/live-room-scope/…):
 * - `webcastmate/info` (`audience-play/get-live-info`): header `X-Token`, body `{token}` (valid 30 min)
 *   → `data.info.room_id` (int64), `anchor_open_id`, `nick_name`, `avatar_url`; errors 40001 bad
 *   parameters, 40002 capability missing, 40007 too frequent, -1 internal.
 * - `live_data/task/start|stop` (header `access-token`, body `{roomid, appid, msg_type}`), `task/get`
 *   (query; `data.status` 1 not found, 2 not started, 3 running): idempotent per (room, app, type);
 *   `err_no` 2005003019 = room gone / capability off / QPS limit (platform notes).
 * - `task/fail_data/get` (`data-open/page-query-failure`): query `page_num` from 1, `page_size` ≤ 100;
 *   reply `data.page_num`, `total_count`, `data_list[] {roomid, msg_type, payload}` with `payload` the
 *   pushed payload as JSON text; no ack, "the developer keeps which page it reached" (so fetched items
 *   stay, hence our cursor). Douyin keeps about the first 100,000 items for a day (`live/danmu`).
 * - `gaming_con/round/sync_status` (`gift-effects/sync-game-state`): header `X-Token`; body
 *   `anchor_open_id, app_id, room_id, round_id, start_time, end_time` (seconds), `status` 1 started /
 *   2 ended (`unity-sdk/…/gift-interaction-upgrade`), `group_result_list [{group_id, result}]`
 *   (1 win, 2 lose, 3 draw); 3 calls/s per app; 40004 = access token expired.
 * - `live_data/ack` (`ack-data-report`): body `{room_id, app_id, ack_type 1 received | 2 handled,
 *   data: JSON text of [{msg_id, msg_type, client_time}]}`.
 * - A bad app access token: 40022 on `task/get`, `fail_data/get`, `fans_club/get_info`; 40004 on
 *   `round/sync_status`.
 * - `gift/top_gift` (the SKIT .NET SDK, fudiwei/DotNetCore.SKIT.FlurlHttpClient.ByteDance,
 *   `ExtendedSDK/Webcast/Models/Gift/WebcastGiftTopGift*.cs`): header `X-Token`, body `{app_id, room_id,
 *   sec_gift_id_list}` → `data.success_top_gift_id_list`, its error in `errcode`/`errmsg` (read too).
 *
 * Unconfirmed (flagged here and in docs/douyin-live.md): `ack`'s reply,
 * whether the task and ack calls also answer 28001003/28001008 for a bad token (kept from Douyin's
 * other APIs), and which `err_no` webcastmate/info gives an expired launch token (the doc lists none:
 * 40001 and any other positive number but 40002/40007 are read as `live_token_invalid`).
 */
import { AppError, type ErrorCode } from "../../core/errors";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import { classifyError, type ErrorTable } from "../shared/platform-errors";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../platform";
import type { LiveMsgType } from "./douyin-live";

export const DOUYIN_LIVE_API_BASE_URL = "https://webcast.bytedance.com";
export const ROOM_GONE = 2005003019;
const BAD_TOKEN = new Set([28001003, 28001008, 40004, 40022]);
const ERRORS: ErrorTable = { [ROOM_GONE]: "live_room_unavailable" };
/** webcastmate/info's own refusals that are not the launch token's: the capability is missing, too frequent. */
const NOT_THE_TOKEN = new Set([40002, 40007]);
/** webcastmate/info: any other refusal but a system error is the launch token's (unconfirmed, see above). */
const LAUNCH_TOKEN_ERRORS = (errNo: number): ErrorCode => ERRORS[errNo] ?? (errNo > 0 && !NOT_THE_TOKEN.has(errNo) ? "live_token_invalid" : "platform_unavailable");

export interface LiveRoomInfo {
  roomId: string;
  anchorOpenId: string;
  nickName: string;
  avatarUrl: string;
}

export type LiveTaskStatus = "not_found" | "not_started" | "running";

export interface FailedDataPage {
  pageNum: number;
  totalCount: number;
  /** Each item's payload, parsed; an unreadable one is kept as undefined so page arithmetic stays right. */
  items: Array<{ msgType: string; payload: unknown }>;
}

export interface RoundStatus {
  anchorOpenId: string;
  roomId: string;
  roundId: number;
  startTime: number;
  endTime: number;
  /** 1 started, 2 ended. */
  status: 1 | 2;
  groupResults: Array<{ groupId: string; result: 1 | 2 | 3 }>;
}

export class DouyinLiveClient {
  private readonly baseUrl: string;

  constructor(
    private readonly deps: PlatformClientDeps,
    baseUrl?: string,
  ) {
    this.baseUrl = (baseUrl ?? DOUYIN_LIVE_API_BASE_URL).replace(/\/+$/, "");
  }

  private get appId(): string {
    return this.deps.settings.appId;
  }

  private async call(
    accessToken: string,
    method: "GET" | "POST",
    path: string,
    req: { query?: Record<string, string>; body?: unknown },
    classify: (errNo: number) => ErrorCode = (n) => classifyError(ERRORS, n),
  ): Promise<Record<string, unknown>> {
    const reply = await callPlatformApi("douyin", this.deps, {
      method,
      baseUrl: this.baseUrl,
      path,
      query: req.query,
      body: req.body,
      // webcastmate/info and round/sync_status take X-Token, the live_data calls access-token.
      headers: { "access-token": accessToken, "X-Token": accessToken },
      // Live room ids are int64 (19 digits): as JSON numbers they would come out rounded.
      exactIntegers: ["room_id", "roomid"],
      isBusy: () => false,
    });
    const errNo = errorNumber(reply.err_no ?? reply.errcode ?? 0);
    if (errNo === 0) {
      const data = reply.data;
      return data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    }
    const detail = { platform: "douyin", err_no: errNo, err_msg: str(reply.err_msg ?? reply.err_tips ?? reply.errmsg), logid: str(reply.logid) };
    if (BAD_TOKEN.has(errNo)) throw new PlatformTokenRejectedError("douyin", accessToken, detail);
    throw new AppError(classify(errNo), { data: detail });
  }

  /** The streamer's launch token → their live room (10 calls/s per app upstream). */
  async liveInfo(accessToken: string, launchToken: string): Promise<LiveRoomInfo> {
    const data = await this.call(accessToken, "POST", "/api/webcastmate/info", { body: { token: launchToken } }, LAUNCH_TOKEN_ERRORS);
    const info = (data.info ?? {}) as Record<string, unknown>;
    const roomId = typeof info.room_id === "number" || typeof info.room_id === "string" ? String(info.room_id) : "";
    if (!/^\d{1,20}$/.test(roomId)) throw new AppError("platform_unavailable", { data: { platform: "douyin", reason: "malformed_response" } });
    return { roomId, anchorOpenId: str(info.anchor_open_id), nickName: str(info.nick_name), avatarUrl: str(info.avatar_url) };
  }

  async startTask(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<string> {
    const data = await this.call(accessToken, "POST", "/api/live_data/task/start", { body: { roomid: roomId, appid: this.appId, msg_type: msgType } });
    return str(data.task_id);
  }

  /** Douyin finishes what it holds, then stops; idempotent. */
  async stopTask(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<void> {
    await this.call(accessToken, "POST", "/api/live_data/task/stop", { body: { roomid: roomId, appid: this.appId, msg_type: msgType } });
  }

  async taskStatus(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<LiveTaskStatus> {
    const data = await this.call(accessToken, "GET", "/api/live_data/task/get", { query: { roomid: roomId, appid: this.appId, msg_type: msgType } });
    const status = errorNumber(data.status);
    return status === 3 ? "running" : status === 2 ? "not_started" : "not_found";
  }

  /** One page of pushes Douyin could not deliver (gifts and fan-club only); `pageNum` from 1. */
  async failedData(accessToken: string, roomId: string, msgType: "live_gift" | "live_fansclub", pageNum: number, pageSize = 100): Promise<FailedDataPage> {
    const data = await this.call(accessToken, "GET", "/api/live_data/task/fail_data/get", {
      query: { roomid: roomId, appid: this.appId, msg_type: msgType, page_num: String(pageNum), page_size: String(Math.min(pageSize, 100)) },
    });
    const list = Array.isArray(data.data_list) ? (data.data_list as Array<Record<string, unknown>>) : [];
    const items = list.map((item) => {
      let payload: unknown;
      try {
        payload = typeof item?.payload === "string" ? JSON.parse(item.payload) : item?.payload;
      } catch {
        payload = undefined;
      }
      return { msgType: str(item?.msg_type) || msgType, payload };
    });
    return { pageNum: errorNumber(data.page_num) || pageNum, totalCount: errorNumber(data.total_count), items };
  }

  /** Pins gifts in the live room's gift panel; answers the ids Douyin pinned. */
  async topGift(accessToken: string, roomId: string, secGiftIds: string[]): Promise<string[]> {
    const data = await this.call(accessToken, "POST", "/api/gift/top_gift", { body: { room_id: roomId, app_id: this.appId, sec_gift_id_list: secGiftIds } });
    return Array.isArray(data.success_top_gift_id_list) ? data.success_top_gift_id_list.map(str) : [];
  }

  async syncRoundStatus(accessToken: string, round: RoundStatus): Promise<void> {
    await this.call(accessToken, "POST", "/api/gaming_con/round/sync_status", {
      body: {
        anchor_open_id: round.anchorOpenId,
        app_id: this.appId,
        room_id: round.roomId,
        round_id: round.roundId,
        start_time: round.startTime,
        end_time: round.endTime,
        status: round.status,
        group_result_list: round.groupResults.map((g) => ({ group_id: g.groupId, result: g.result })),
      },
    });
  }

  /** Optional receipt ack: 1 received, 2 handled. */
  async ack(accessToken: string, roomId: string, ackType: 1 | 2, items: Array<{ msgId: string; msgType: LiveMsgType; clientTime: number }>): Promise<void> {
    const data = JSON.stringify(items.map((i) => ({ msg_id: i.msgId, msg_type: i.msgType, client_time: i.clientTime })));
    await this.call(accessToken, "POST", "/api/live_data/ack", { body: { room_id: roomId, app_id: this.appId, ack_type: ackType, data } });
  }
}

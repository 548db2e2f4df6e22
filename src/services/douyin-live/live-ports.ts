/**
 * What the Douyin live service needs from the edges: Douyin's webcast API (douyin-live-client.ts
 * implements it) and a way into the game room bound to a live room (the Colyseus room, over presence).
 */
import type { FailedDataPage, LiveRoomInfo, LiveTaskStatus, RoundStatus } from "../../platforms/douyin/douyin-live-client";
import type { LiveMsgType } from "../../platforms/douyin/douyin-live";

export interface DouyinLiveApi {
  liveInfo(accessToken: string, launchToken: string): Promise<LiveRoomInfo>;
  startTask(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<string>;
  stopTask(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<void>;
  taskStatus(accessToken: string, roomId: string, msgType: LiveMsgType): Promise<LiveTaskStatus>;
  failedData(accessToken: string, roomId: string, msgType: "live_gift" | "live_fansclub", pageNum: number, pageSize?: number): Promise<FailedDataPage>;
  topGift(accessToken: string, roomId: string, secGiftIds: string[]): Promise<string[]>;
  syncRoundStatus(accessToken: string, round: RoundStatus): Promise<void>;
  ack(accessToken: string, roomId: string, ackType: 1 | 2, items: Array<{ msgId: string; msgType: LiveMsgType; clientTime: number }>): Promise<void>;
}

/** One viewer event as the game room receives it (room message type = `type`). */
export interface LiveRoomMessage {
  type: "comment" | "gift" | "like" | "fansclub";
  msgId: string;
  secOpenid: string;
  nickname: string;
  avatarUrl: string;
  /** comment */
  content?: string;
  /** gift */
  secGiftId?: string;
  giftNum?: number;
  /** gift: total value in fen */
  giftValue?: number;
  /** like */
  likeNum?: number;
  /** fansclub (unconfirmed fields) */
  reasonType?: number;
  level?: number;
  /** The round the gift was recorded in (0: none). */
  roundId?: number;
  timestamp: number;
}

export interface LiveRoomDelivery {
  /** Sends the messages to the game room bound to `liveRoomId`, wherever it runs; best effort, the room drops msg_ids it already took. */
  deliver(liveRoomId: string, messages: LiveRoomMessage[]): Promise<void>;
}

/** Runs a call with the app's Douyin access token (the token service heals a rejected one). */
export type WithAccessToken = <T>(call: (accessToken: string) => Promise<T>) => Promise<T>;

/** Request and answer schemas of the growth routes (docs/growth.md). */
import { z } from "zod";

const sceneText = z.string().max(64, "must be at most 64 characters");

export const sidebarBody = z.strictObject({
  launchFrom: sceneText.describe("tt.onShow's `launch_from`, as the client read it (`homepage` from the sidebar)").meta({ example: "homepage" }),
  location: sceneText.describe("tt.onShow's `location`, as the client read it (`sidebar_card` from the sidebar)").meta({ example: "sidebar_card" }),
});

const itemCount = z.strictObject({ itemId: z.string().meta({ example: "potion" }), count: z.int().min(0).max(2_000_000_000).meta({ example: 1 }) });

export const dailyRewardSchema = z.strictObject({
  rewardId: z.enum(["sidebar", "game_club"]).meta({ example: "sidebar" }),
  day: z.string().describe("The studio day (STUDIO_TIME_ZONE) this grant counts for").meta({ example: "2026-01-31" }),
  granted: z.boolean().describe("False when the player had this reward today already: nothing more was given"),
  balances: z.record(z.string(), z.int().min(0).max(2_000_000_000).meta({ example: 3 })).describe("The player's balances after the grant, by currency id").meta({ example: { gems: 3 } }),
  items: z.array(itemCount).describe("The counts after the grant of the items it touched"),
});

export const riskCheckSchema = z.strictObject({
  checked: z.boolean().describe("Whether WeChat's risk rank of the player is known now (false: no check configured, no WeChat login on the app, or WeChat unavailable)"),
});

export { decryptBody as wechatOpenDataBody } from "./schemas";

export const groupEnterInfoSchema = z.strictObject({
  opengid: z.string().nullable().describe("The group chat's id for this app (multi-person chats)").meta({ example: "tG-Ds5AxUbqrC1Jm1R2fFkG3pmVY" }),
  openSingleRoomid: z.string().nullable().describe("The single chat's id (wx.getGroupEnterInfo with allowSingleChat)"),
  groupOpenid: z.string().nullable().describe("The player's id in that chat (needGroupOpenID)"),
  chatType: z.int().min(-1_000).max(1_000).meta({ example: 3 }).nullable().describe("WeChat's chat_type"),
});

const counter = z.int().min(-2_147_483_648).max(2_147_483_647).meta({ example: 1 });
export const gameClubSchema = z.strictObject({
  dataList: z.array(z.strictObject({ dataType: counter, value: counter })).describe("WeChat's GameClubData.dataList as decrypted"),
  activity: z.record(z.string(), counter).describe("Today's activity by kind: likes, comments, posts, videoPosts, officialLikes, officialComments (the kinds asked for)"),
  muted: z.boolean().nullable().describe("Whether the player is muted in the game circle (type 3), null when not asked"),
  reward: dailyRewardSchema.nullable().describe("The game_club grant of today: null without activity today or without a game_club reward in the catalog"),
});

export const shareBody = z.strictObject({
  subject: z.enum(["room", "invite"]).describe("What the share is for").meta({ example: "room" }),
  subjectId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1–128 of A-Z a-z 0-9 _ . : -").describe("The room's or invite's id, told to whoever arrives through the share").meta({ example: "room-42" }),
  limit: z.int().min(2).max(1000).describe("How many players the card counts up to (room_limit)").meta({ example: 4 }),
  private: z.boolean().optional().describe("A private message: only this player can share the id"),
});

export const shareParams = z.object({
  activityId: z.string().regex(/^[A-Za-z0-9_.:=-]{1,256}$/, "must be 1–256 of A-Z a-z 0-9 _ . : = -").describe("The activity id from the share's query (`share=`)"),
});

export const shareSchema = z.strictObject({
  activityId: z.string().meta({ example: "1048_abc" }),
  subject: z.enum(["room", "invite"]),
  subjectId: z.string().meta({ example: "room-42" }),
  members: z.int().min(1).max(2_000_000_000).describe("Players counted so far, the sharer included").meta({ example: 2 }),
  limit: z.int().min(2).max(1000).meta({ example: 4 }),
  expiresAt: z.iso.datetime().meta({ example: "2026-01-02T00:00:00.000Z" }),
  query: z.string().describe("The query to share with (wx.shareAppMessage's `query`)").meta({ example: "share=1048_abc" }),
  joined: z.boolean().optional().describe("Join: false when this player had joined before (nothing changed)"),
  updated: z.boolean().optional().describe("Join: whether WeChat's card was updated now"),
});

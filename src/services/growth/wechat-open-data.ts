/**
 * WeChat's group and game-circle data (docs/growth.md), decrypted with the player's session key the
 * server keeps, through the same checks as every other encrypted data (PlayerDataService.decrypt:
 * input shape, a kept WeChat key, the key fits, `watermark.appid` is this app's):
 * - `wx.getGroupEnterInfo` → `{opengid | open_single_roomid, group_openid?, chat_type?}`: which group
 *   chat (or single chat) the player opened the game from;
 * - `wx.getGameClubData` → `{dataList: [{dataType, value}]}`: the player's game-circle (游戏圈) activity,
 *   types 1 joined at (unix s), 3 muted (0/1), 4–9 today's likes, comments, posts, video posts, likes and
 *   comments on official posts, 10 posts on a topic, 11 last recommended at (WeChat's type table).
 *
 * Game-circle activity today (any of types 4–9 above zero) grants the catalog's `game_club` reward once
 * per studio day. Encrypted data carries no nonce, so a replay is only bounded by its watermark time:
 * data sealed more than OPEN_DATA_MAX_AGE_MS ago, or in the future, is refused (yesterday's activity
 * cannot claim today's reward). WeChat's "today" is its own natural day (presumably China time,
 * unconfirmed); the studio day decides the grant.
 */
import { AppError } from "../../core/errors";
import type { DailyGrowthRewards, DailyRewardResult } from "./daily-rewards";

export const OPEN_DATA_MAX_AGE_MS = 10 * 60_000;
/** Game-circle types that count as activity today (likes, comments, posts, video posts, on official posts). */
const ACTIVITY_TYPES = [4, 5, 6, 7, 8, 9] as const;
const ACTIVITY_NAMES: Record<number, string> = { 4: "likes", 5: "comments", 6: "posts", 7: "videoPosts", 8: "officialLikes", 9: "officialComments" };

export interface OpenDataDecrypter {
  decrypt(userId: string, app: string, platform: string, encryptedData: string, iv: string): Promise<Record<string, unknown>>;
}

export interface GroupEnterInfo {
  /** The group chat's id for this app (multi-person chats), or null. */
  opengid: string | null;
  /** The single chat's id (base library 3.7.8 with allowSingleChat), or null. */
  openSingleRoomid: string | null;
  /** The player's id in that chat (needGroupOpenID), or null. */
  groupOpenid: string | null;
  chatType: number | null;
}

export interface GameClubData {
  dataList: Array<{ dataType: number; value: number }>;
  /** Today's activity by kind, from the types asked for (absent kinds were not asked). */
  activity: Record<string, number>;
  muted: boolean | null;
  /** The game_club grant: null when there was no activity today, or the catalog has no game_club reward. */
  reward: DailyRewardResult | null;
}

export interface WechatOpenDataDeps {
  decrypter: OpenDataDecrypter;
  daily: Pick<DailyGrowthRewards, "grant">;
  /** Whether the app's catalog declares the game_club reward. */
  rewardsGameClub(app: string): Promise<boolean>;
  now?: () => number;
}

const str = (v: unknown) => (typeof v === "string" && v.length > 0 && v.length <= 256 ? v : null);
const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= 2 ** 31 ? v : null);

export class WechatOpenData {
  private readonly now: () => number;

  constructor(private readonly deps: WechatOpenDataDeps) {
    this.now = deps.now ?? Date.now;
  }

  async groupEnterInfo(app: string, userId: string, encryptedData: string, iv: string): Promise<GroupEnterInfo> {
    const data = await this.open(app, userId, encryptedData, iv);
    const info = { opengid: str(data.opengid), openSingleRoomid: str(data.open_single_roomid), groupOpenid: str(data.group_openid), chatType: int(data.chat_type) };
    if (!info.opengid && !info.openSingleRoomid) throw new AppError("open_data_unexpected", { data: { expected: "opengid or open_single_roomid" } });
    return info;
  }

  async gameClub(app: string, userId: string, encryptedData: string, iv: string): Promise<GameClubData> {
    const data = await this.open(app, userId, encryptedData, iv);
    const list = Array.isArray(data.dataList) ? data.dataList : undefined;
    const dataList = (list ?? []).map((e) => (e && typeof e === "object" ? { dataType: int((e as Record<string, unknown>).dataType), value: int((e as Record<string, unknown>).value) } : undefined));
    if (!list || dataList.some((e) => !e || e.dataType === null || e.value === null)) throw new AppError("open_data_unexpected", { data: { expected: "dataList of {dataType, value} integers" } });
    const entries = dataList as Array<{ dataType: number; value: number }>;
    const activity: Record<string, number> = {};
    for (const e of entries) if ((ACTIVITY_TYPES as readonly number[]).includes(e.dataType)) activity[ACTIVITY_NAMES[e.dataType]] = e.value;
    const mutedEntry = entries.find((e) => e.dataType === 3);
    const active = Object.values(activity).some((n) => n > 0);
    const reward = active && (await this.deps.rewardsGameClub(app)) ? await this.deps.daily.grant(app, userId, "game_club") : null;
    return { dataList: entries, activity, muted: mutedEntry ? mutedEntry.value === 1 : null, reward };
  }

  private async open(app: string, userId: string, encryptedData: string, iv: string): Promise<Record<string, unknown>> {
    const data = await this.deps.decrypter.decrypt(userId, app, "wechat", encryptedData, iv);
    const watermark = data.watermark as Record<string, unknown> | undefined;
    const sealedAtMs = (int(watermark?.timestamp) ?? 0) * 1000;
    const age = this.now() - sealedAtMs;
    // A minute of clock skew is tolerated either way.
    if (!sealedAtMs || age > OPEN_DATA_MAX_AGE_MS || age < -60_000) throw new AppError("open_data_expired", { data: { maxAgeSec: OPEN_DATA_MAX_AGE_MS / 1000 } });
    return data;
  }
}

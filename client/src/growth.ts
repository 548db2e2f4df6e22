/**
 * The platforms' growth surfaces (the server's docs/growth.md), over a logged-in GameClient:
 * `growth(client).sidebarReward(options)` reports a launch from Douyin's sidebar (pass tt.onShow's
 * options) and answers the once-per-day grant; `groupInfo` and `gameClub` hand WeChat's encrypted group
 * and game-circle data to the server; `riskCheck` lets it read the player's risk rank; `feedScenes`
 * tells the server which Douyin feed scenes the player has ready (feed direct play). Refusals throw the
 * server's code (`not_from_sidebar`, `growth_unsupported`, …).
 */
import type { RewardResult } from "./rewards";

/** Anything that makes authenticated calls to the server: a GameClient. */
export interface GrowthRequester {
  request<T = unknown>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T>;
}

/** A once-per-day growth grant: `granted` false when the player had it today (nothing more given). */
export interface DailyReward extends RewardResult {
  rewardId: "sidebar" | "game_club";
  /** The studio's day (YYYY-MM-DD) it counts for. */
  day: string;
}

/** What wx.getGroupEnterInfo / wx.getGameClubData hand the game (only these two fields are sent). */
export interface SealedData {
  encryptedData: string;
  iv: string;
}

export interface GroupInfo {
  opengid: string | null;
  openSingleRoomid: string | null;
  groupOpenid: string | null;
  chatType: number | null;
}

export interface GameClub {
  dataList: Array<{ dataType: number; value: number }>;
  activity: Record<string, number>;
  muted: boolean | null;
  /** Today's game_club grant, or null (no activity today, or no such reward in the catalog). */
  reward: DailyReward | null;
}

/** A share message as the server answers it. */
export interface ShareMessage {
  activityId: string;
  subject: "room" | "invite";
  subjectId: string;
  members: number;
  limit: number;
  expiresAt: string;
  /** Pass as wx.shareAppMessage's `query`. */
  query: string;
  /** joinShare: false when this player had joined before. */
  joined?: boolean;
  updated?: boolean;
}

/** What tt.onShow / tt.getLaunchOptionsSync report (only these two fields are read). */
export interface DouyinShowOptions {
  launch_from?: string;
  location?: string;
}

/** Whether Douyin launched the game from its sidebar (tt.onShow's options). */
export function launchedFromSidebar(options: DouyinShowOptions | undefined): boolean {
  return options?.launch_from === "homepage" && options.location === "sidebar_card";
}

/**
 * A Douyin feed scene the player has ready (the server's docs/growth.md): 1 offline income, 2 stamina
 * restored, 3 an event's drop; the content ids Douyin's console approved for it; ready from `readyAt`
 * (now when absent) until `until`; `extra` reaches the game when the player comes in from the card.
 */
export interface FeedScene {
  scene: 1 | 2 | 3;
  contentIds: string[];
  readyAt?: string;
  until?: string;
  extra?: string;
}

/** What tt.getLaunchOptionsSync reports (only these fields are read). */
export interface DouyinLaunchOptions {
  scene?: string | number;
  query?: Record<string, string | undefined>;
}

/**
 * Whether Douyin launched the game from a feed card: its launch scene ends in 3041 (Douyin's docs);
 * `feed_game_scene` and `feed_game_extra` in the query are what third-party SDKs read (unconfirmed).
 */
export function feedLaunch(options: DouyinLaunchOptions | undefined): { scene: number | null; extra: string } | null {
  if (!options || !String(options.scene ?? "").endsWith("3041")) return null;
  const scene = Number(options.query?.feed_game_scene);
  return { scene: Number.isInteger(scene) && scene > 0 ? scene : null, extra: options.query?.feed_game_extra ?? "" };
}

export class Growth {
  constructor(private readonly client: GrowthRequester) {}

  /** Reports a sidebar launch; call it from tt.onShow when `launchedFromSidebar(options)`. */
  sidebarReward(options: DouyinShowOptions): Promise<DailyReward> {
    return this.client.request("POST", "/api/growth/sidebar", { launchFrom: options.launch_from ?? "", location: options.location ?? "" });
  }

  /** The group chat the player opened the game from: pass wx.getGroupEnterInfo's success result. */
  groupInfo(sealed: SealedData): Promise<GroupInfo> {
    return this.client.request("POST", "/api/growth/wechat/group-enter-info", { encryptedData: sealed.encryptedData, iv: sealed.iv });
  }

  /** The player's game-circle activity, and today's game_club reward: pass wx.getGameClubData's success result. */
  gameClub(sealed: SealedData): Promise<GameClub> {
    return this.client.request("POST", "/api/growth/wechat/game-club", { encryptedData: sealed.encryptedData, iv: sealed.iv });
  }

  /** Creates a WeChat updatable share message for a room or an invite; pass `activityId` to wx.updateShareMenu. */
  shareMessage(input: { subject: "room" | "invite"; subjectId: string; limit: number; private?: boolean }): Promise<ShareMessage> {
    return this.client.request("POST", "/api/growth/shares", input);
  }

  /** The player arrived through a share (launch query `share`): which room or invite it was for. */
  joinShare(activityId: string): Promise<ShareMessage> {
    return this.client.request("POST", `/api/growth/shares/${encodeURIComponent(activityId)}/join`);
  }

  /**
   * Lets the server read the player's WeChat risk rank now, with this request's IP; call it once after
   * login where the studio checks risk before rewards (`checked` says whether a rank is known).
   */
  riskCheck(): Promise<{ checked: boolean }> {
    return this.client.request("POST", "/api/growth/risk-check");
  }

  /**
   * Replaces the player's ready feed scenes, which the server answers Douyin's feed call with (saved
   * as `<collection>/scenes`, DOUYIN_FEED_COLLECTION on the server). An empty list: no card.
   */
  feedScenes(scenes: FeedScene[], collection = "douyin_feed"): Promise<{ version: number }> {
    return this.client.request("PUT", `/api/saves/${encodeURIComponent(collection)}/scenes`, { value: { scenes }, overwrite: true });
  }
}

export function growth(client: GrowthRequester): Growth {
  return new Growth(client);
}

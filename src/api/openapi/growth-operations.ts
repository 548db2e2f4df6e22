/** The API description's growth operations: sidebar revisit, risk rank, group and game-circle data (docs/growth.md). */
import { z } from "zod";
import * as g from "../growth-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export const GROWTH_TAG = { name: "Growth", description: "The platforms' growth surfaces: sidebar revisits, group and game-circle data, share messages (docs/growth.md)" };

const GROWTH_ERROR_FIELDS = {
  launchFrom: z.string().optional().describe("not_from_sidebar: the launch_from the client sent"),
  location: z.string().optional().describe("not_from_sidebar: the location the client sent"),
  reason: z.string().optional().describe("growth_unsupported: `app_not_on_douyin`, `no_douyin_login`, `app_not_on_wechat` or `no_wechat_login`"),
  rewardId: z.string().optional().describe("growth_reward_unconfigured: the catalog's growthRewards entry missing"),
  source: z.string().optional().describe("risky_player: the grant refused"),
  expected: z.string().optional().describe("open_data_unexpected: what the route reads"),
  activityId: z.string().optional().describe("share_not_found: the id asked for"),
  maxAgeSec: z.int().min(1).max(86_400).optional().meta({ description: "open_data_expired: how old the data may be", example: 600 }),
};
const OPEN_DATA_ERRORS = ["invalid_request", "session_key_missing", "session_key_stale", "watermark_mismatch", "open_data_unexpected", "open_data_expired"] as const;

export function registerGrowthComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("DailyRewardResponse", s.okEnvelope(g.dailyRewardSchema));
  register("RiskCheckResponse", s.okEnvelope(g.riskCheckSchema));
  register("GroupEnterInfoResponse", s.okEnvelope(g.groupEnterInfoSchema));
  register("GameClubResponse", s.okEnvelope(g.gameClubSchema));
  register("ShareResponse", s.okEnvelope(g.shareSchema));
  const scene = z.strictObject({
    scene: z.int().min(1).max(3).meta({ description: "1 offline income, 2 stamina restored, 3 an important event's drop", example: 1 }),
    content_ids: z.array(z.string()).meta({ description: "The content ids Douyin's console approved for the scene's card", example: ["CONTENT963547906"] }),
    extra: z.string().meta({ description: "Handed to the game when the player comes in from the card (empty: none)", example: "" }),
  });
  register(
    "DouyinFeedReply",
    z.strictObject({
      err_no: z.int().min(0).max(99_999_999).meta({ description: "0: answered; 28006009 a signature, timestamp or app refused; 28001007 a malformed query; 1 the scenes could not be read", example: 0 }),
      err_msg: z.string().meta({ example: "" }),
      data: z.strictObject({ scenes: z.array(scene) }),
    }),
  );
}

export function growthOperations(platforms: readonly { name: string }[]): OperationSpec[] {
  const ops: OperationSpec[] = [
    {
      method: "post",
      path: "/api/growth/risk-check",
      operationId: "riskCheck",
      tag: GROWTH_TAG.name,
      summary: "Let the server read the player's WeChat risk rank now (once a session)",
      description:
        "Where RISK_RANK_CHECKS lists grants, the server asks WeChat's getuserriskrank for the player's rank with this " +
        "request's IP (WeChat requires one) and keeps the rank (RISK_RANK_CACHE_SEC) and the IP, so grants a platform " +
        "callback brings (rewarded ads, gift packs) can be checked. In `refuse` mode a guarded grant for a player whose rank " +
        "is unknown and whose IP was never seen is refused, so the game calls this after login. The answer says only " +
        "whether a rank is known; the rank stays on the server. Limited per user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      success: { status: 200, component: "RiskCheckResponse", description: "`data.checked`" },
      errors: [...AUTH_ERRORS, "rate_limited"],
    },
  ];
  if (platforms.some((p) => p.name === "wechat")) {
    ops.push(
      {
        method: "post",
        path: "/api/growth/wechat/group-enter-info",
        operationId: "wechatGroupEnterInfo",
        tag: GROWTH_TAG.name,
        summary: "Decrypt wx.getGroupEnterInfo: the group chat the player opened the game from",
        description:
          "The client passes wx.getGroupEnterInfo's `encryptedData` and `iv`; the server decrypts them with the player's kept " +
          "WeChat session key and checks them like POST /api/minigame/wechat/decrypt (400 `invalid_request`, 409 " +
          "`session_key_missing` / `session_key_stale`, 422 `watermark_mismatch`). Sealed more than 10 minutes ago → 422 " +
          "`open_data_expired`; neither `opengid` nor `open_single_roomid` inside → 422 `open_data_unexpected`. Nothing is stored.",
        security: "bearer",
        body: { schema: g.wechatOpenDataBody, examples: { sealed: { encryptedData: "q1Wg…", iv: "r7BXXKkLb8qrSNn05n0qiA==" } } },
        success: { status: 200, component: "GroupEnterInfoResponse", description: "The chat's ids" },
        errors: [...AUTH_ERRORS, ...OPEN_DATA_ERRORS],
        errorFields: GROWTH_ERROR_FIELDS,
      },
      {
        method: "post",
        path: "/api/growth/wechat/game-club",
        operationId: "wechatGameClub",
        tag: GROWTH_TAG.name,
        summary: "Decrypt wx.getGameClubData; reward today's game-circle activity once per studio day",
        description:
          "Decrypted and checked like group-enter-info. Any of today's likes, comments, posts, video posts or likes/comments " +
          "on official posts (types 4–9) above zero grants the catalog's `growthRewards` entry `game_club` through the reward " +
          "ledger, once per player per day of STUDIO_TIME_ZONE (`reward.granted` false on a repeat that day); no activity, or " +
          "no game_club reward in the catalog: `reward` null. A risk-rank check refusing it → 403 `risky_player`. Limited per " +
          "user (RATE_LIMIT_USER_MAX).",
        security: "bearer",
        body: { schema: g.wechatOpenDataBody, examples: { sealed: { encryptedData: "q1Wg…", iv: "r7BXXKkLb8qrSNn05n0qiA==" } } },
        success: { status: 200, component: "GameClubResponse", description: "The activity, and today's grant" },
        errors: [...AUTH_ERRORS, ...OPEN_DATA_ERRORS, "risky_player", "rate_limited"],
        errorFields: GROWTH_ERROR_FIELDS,
      },
      {
        method: "post",
        path: "/api/growth/shares",
        operationId: "createShare",
        tag: GROWTH_TAG.name,
        summary: "Create a WeChat updatable share message for a room or an invite",
        description:
          "Asks WeChat for an activity id (activityid/create; with `private`, bound to this player's openid so only they can " +
          "share it), counts the sharer as the first member and sets the card to \"{members}/{limit}\". The game passes " +
          "`activityId` to wx.updateShareMenu({withShareTicket, isUpdatableMessage: true, activityId, templateInfo}) and shares " +
          "with `query`. No WeChat login on the app → 404 `growth_unsupported`. Lives until WeChat's id expires (24 h).",
        security: "bearer",
        body: { schema: g.shareBody, examples: { room: { subject: "room", subjectId: "room-42", limit: 4 } } },
        success: { status: 200, component: "ShareResponse", description: "The activity id and the query to share with" },
        errors: [...AUTH_ERRORS, "invalid_request", "growth_unsupported", "rate_limited", "platform_unavailable", "platform_misconfigured"],
        errorFields: { ...GROWTH_ERROR_FIELDS, ...s.platformTokenErrorFields("wechat") },
      },
      {
        method: "post",
        path: "/api/growth/shares/{activityId}/join",
        operationId: "joinShare",
        tag: GROWTH_TAG.name,
        summary: "A player arrived through a share: which room or invite, and count them on the card",
        description:
          "The invitee's client reads `share=<activityId>` from its launch options and calls this: the answer names the room " +
          "or invite. A player is counted once (a repeat answers `joined: false`); a new member moves WeChat's card on " +
          "(updatablemsg/send), to \"started\" when the count reaches the limit. WeChat unavailable: the join still counts " +
          "(`updated: false`). Unknown, expired or another app's id → 404 `share_not_found`.",
        security: "bearer",
        pathParams: { schema: g.shareParams, examples: { activityId: "1048_abc" } },
        success: { status: 200, component: "ShareResponse", description: "The room or invite, and the count" },
        errors: [...AUTH_ERRORS, "invalid_request", "share_not_found", "rate_limited"],
        errorFields: GROWTH_ERROR_FIELDS,
      },
    );
  }
  if (platforms.some((p) => p.name === "douyin")) {
    ops.push({
      method: "get",
      path: "/api/minigame/douyin/feed",
      operationId: "douyinFeedScenes",
      tag: GROWTH_TAG.name,
      summary: "Douyin's feed direct-play call: the player's ready scenes (called by Douyin, not by games)",
      description:
        "Douyin asks, while the player scrolls its feed, which scenes the player has ready, and shows a card for one. Signed " +
        "both ways with the secret Douyin generated for the app (DOUYIN_FEED_SECRETS): header `x-signature` = " +
        "base64(md5(the query's `k=v` pairs sorted by name and joined by `&` + the body (empty for the call) + the secret)); " +
        "the answer carries `x-signature` over the same query and its exact body. The scenes are the game's save " +
        "`douyin_feed/scenes` (DOUYIN_FEED_COLLECTION): the entries ready now, each scene once; a player this app does not " +
        "know gets none. Scenes not read within DOUYIN_FEED_DEADLINE_MS → answered with none. Refused in Douyin's shape, " +
        "unsigned, recording nothing: 401 (err_no 28006009) a bad signature, a timestamp more than 600 s off, an app without " +
        "a secret; 400 (28001007) a malformed query or a repeated parameter. The store failing → 503, err_no 1. The answer's " +
        "shape and err_nos are unconfirmed (docs/growth.md).",
      query: {
        schema: z.object({ appid: z.string(), openid: z.string(), nonce: z.string(), timestamp: z.string().describe("Seconds since the epoch") }),
        examples: { appid: "tt411d37a0de37d565", openid: "Bv-7RJnQcBqep1vT", nonce: "356acp", timestamp: "1717038098" },
      },
      success: { status: 200, component: "DouyinFeedReply", description: "err_no 0: the ready scenes (possibly none), signed" },
      errors: [],
      platformReplies: [
        { status: 400, component: "DouyinFeedReply", description: "Refused: a malformed query" },
        { status: 401, component: "DouyinFeedReply", description: "Refused: signature, timestamp or app" },
        { status: 503, component: "DouyinFeedReply", description: "The scenes could not be read; Douyin asks again later" },
      ],
    });
    ops.push({
      method: "post",
      path: "/api/growth/sidebar",
      operationId: "claimSidebarReward",
      tag: GROWTH_TAG.name,
      summary: "Report a launch from Douyin's sidebar: the catalog's sidebar reward, once per studio day",
      description:
        "The client sends what tt.onShow reported (`launch_from`, `location`). From the sidebar (`homepage`, `sidebar_card`) the " +
        "catalog's `growthRewards` entry `sidebar` is granted through the reward ledger, once per player per day of " +
        "STUDIO_TIME_ZONE: a repeat that day answers 200 with `granted: false`. Another scene → 422 `not_from_sidebar`; no " +
        "sidebar reward in the catalog → 404 `growth_reward_unconfigured`; the app is not on Douyin or the player has no Douyin " +
        "login → 404 `growth_unsupported`; a risk-rank check refusing it → 403 `risky_player`. Nothing is granted on any " +
        "failure. The server cannot verify the launch: Douyin gives no server-side proof of it (docs/growth.md). Limited per " +
        "user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      body: { schema: g.sidebarBody, examples: { sidebar: { launchFrom: "homepage", location: "sidebar_card" } } },
      success: { status: 200, component: "DailyRewardResponse", description: "`data.granted`: true the first time that day" },
      errors: [...AUTH_ERRORS, "not_from_sidebar", "growth_reward_unconfigured", "growth_unsupported", "risky_player", "rate_limited"],
      errorFields: GROWTH_ERROR_FIELDS,
    });
  }
  return ops;
}

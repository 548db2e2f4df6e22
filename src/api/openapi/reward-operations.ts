/** The API description's reward-source operations: mail, rewarded-ad views and the platforms' callbacks (docs/economy-rewards.md). */
import { z } from "zod";
import * as r from "../reward-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerRewardComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("MailListResponse", s.okEnvelope(r.mailListSchema));
  register("MailClaimResponse", s.okEnvelope(r.claimSchema));
  register("AdViewResponse", s.okEnvelope(r.adViewSchema));
  register("GiftCodeResponse", s.okEnvelope(r.giftCodeSchema));
  register(
    "DouyinGiftPushReply",
    z.strictObject({
      success: z.boolean().describe("True with HTTP 200 once granted (or nothing to grant): the gift guide's reply"),
      err_no: z.int().min(0).max(99_999).meta({ description: "0 on success; our refusal's number otherwise", example: 0 }),
      err_tips: z.string().meta({ example: "success" }),
    }),
  );
  register("AdCallbackReply", z.strictObject({ is_valid: z.boolean().optional(), echostr: z.string().optional() }).describe("WeChat's ad-callback answer: `is_valid`, or `echostr` for the console's URL check"));
}

export function rewardOperations(platforms: readonly { name: string }[]): OperationSpec[] {
  const ops: OperationSpec[] = [
    {
      method: "get",
      path: "/api/mail",
      operationId: "listMail",
      tag: "Rewards",
      summary: "The player's mail, newest first",
      description: "The player's own mail and the app's mail to every player, not expired, at most 100, each with whether this player claimed it.",
      security: "bearer",
      success: { status: 200, component: "MailListResponse", description: "`data.mail`" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "post",
      path: "/api/mail/{mailId}/claim",
      operationId: "claimMail",
      tag: "Rewards",
      summary: "Claim a mail's attachments, once",
      description:
        "Grants the attachments through the reward ledger, keyed (mail, player): a replay, also concurrent, answers 200 with " +
        "`granted: false` and gives nothing more. Another player's mail or an unknown id → 404 `mail_not_found`; a mail " +
        "that expired before this player claimed it → 410 `mail_expired` (a claimed one replays 200 even after). A notice " +
        "(a mail with nothing attached, e.g. a season reward already paid to the player) has nothing to claim → 400 `invalid_request`.",
      security: "bearer",
      pathParams: { schema: r.mailParams, examples: { mailId: "3f0c5a2e-6b1d-4a8e-9c1f-2a7d6e5b4c3a" } },
      success: { status: 200, component: "MailClaimResponse", description: "`data.granted`: true the first time" },
      errors: [...AUTH_ERRORS, "invalid_request", "mail_not_found", "mail_expired"],
      errorFields: {
        mailId: z.string().optional().describe("mail_not_found, mail_expired: the mail asked for"),
        expiresAt: z.iso.datetime().optional().meta({ description: "mail_expired: when it expired", example: "2026-01-01T00:00:00.000Z" }),
      },
    },
    {
      method: "get",
      path: "/api/ads/views/{watchId}",
      operationId: "getAdView",
      tag: "Rewards",
      summary: "Whether a rewarded ad the player watched was verified and granted",
      description:
        "`watchId` is the id the client put in the ad's verification data (customData, `watchAd()`). Until the platform's " +
        "callback arrived → 404 `ad_view_pending` (poll again). Once it did: the view, granted once (asking again repeats " +
        "the grant, which changes nothing, so a grant a crash interrupted lands now), or `capped: true` past the ad unit's " +
        "daily cap. Limited per user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      pathParams: { schema: r.watchParams, examples: { watchId: "wlq3x0k2abc123" } },
      success: { status: 200, component: "AdViewResponse", description: "The view and its grant" },
      errors: [...AUTH_ERRORS, "ad_view_pending", "rate_limited"],
      errorFields: { watchId: z.string().optional().describe("ad_view_pending: the view asked for") },
    },
    {
      method: "post",
      path: "/api/rewards/gift-codes",
      operationId: "redeemGiftCode",
      tag: "Rewards",
      summary: "Redeem a Douyin gift code the player brought, once",
      description:
        "For Douyin's live-room lucky bags and paid packs: the game passes the code (tt.onShow's query `game_cdkey`, or one " +
        "the player typed). The server asks Douyin to redeem it for the player's openid (receive_reward, with a uuid derived " +
        "from the app, player and code, so a retry is the same redemption) and grants the catalog's gift pack named by the " +
        "answer's `gift_id` through the reward ledger, keyed by the code (a code also delivered by the gift push lands once). " +
        "A replay, also concurrent, answers 200 with `granted: false`, from the ledger without asking Douyin. Douyin does " +
        "not know the code for this player → 404 `gift_code_invalid`; redeemed already (another player's, or outside this " +
        "server) → 409 `gift_code_used`; Douyin confirmed a pack the catalog lacks → 409 `gift_pack_unknown` (retry once the " +
        "operator adds it); the app is not on Douyin, or the player has no Douyin login on it → 404 `gift_codes_unsupported`. " +
        "Nothing is granted on any failure. Limited per user (RATE_LIMIT_USER_MAX).",
      security: "bearer",
      body: { schema: r.giftCodeBody, examples: { code: { code: "cdkey88888" } } },
      success: { status: 200, component: "GiftCodeResponse", description: "`data.granted`: true the first time" },
      errors: [...AUTH_ERRORS, "gift_code_invalid", "gift_code_used", "gift_pack_unknown", "gift_codes_unsupported", "rate_limited", "platform_unavailable", "platform_misconfigured"],
      errorFields: {
        ...s.platformTokenErrorFields("douyin"),
        reason: z.string().optional().describe("gift_codes_unsupported: `app_not_on_douyin` or `no_douyin_login`; platform_unavailable: timeout, network_error, malformed_response, http_<status>, access_token_rejected"),
        giftId: z.string().optional().describe("gift_pack_unknown: the pack Douyin named"),
        err_msg: z.string().optional().describe("the platform's refusal: Douyin's err_msg"),
      },
    },
  ];
  if (platforms.some((p) => p.name === "wechat")) ops.push(...wechatCallbacks(), ...wechatGiftPush());
  if (platforms.some((p) => p.name === "douyin")) ops.push(douyinGiftPush());
  return ops;
}

function wechatCallbacks(): OperationSpec[] {
  const fields = z.object({ signature: z.string(), timestamp: z.string(), nonce: z.string(), encrypt: z.string().optional(), echostr: z.string().optional() });
  const note =
    "Register this URL in the ad console (流量主 → 广告管理 → 激励广告 → 服务端奖励回调入口) with the ad Token and " +
    "EncodingAESKey (WECHAT_AD_TOKEN, WECHAT_AD_AES_KEY). The fields come in the query string or a JSON body. Without " +
    "`encrypt` it is the console's URL check: a valid signature (sha256 of the sorted Token, timestamp, nonce) answers " +
    '`{"echostr"}` (no app\'s Token signs it → 401 `push_signature_invalid`). With it, a reward: signature over the Token, timestamp (ms), nonce and encrypt; the reward decrypted ' +
    "(AES-256-CBC, IV first) names the transaction, the player's openid and customData `{adUnitId, watchId}`. Granted once " +
    'per transaction, up to the ad unit\'s daily cap: `{"is_valid": true}`. Forged, stale (over 10 min), another app\'s, ' +
    'malformed, an unknown ad unit or player, past the cap: `{"is_valid": false}`, nothing granted. Not recorded: 503, ' +
    "so WeChat calls again.";
  return (["get", "post"] as const).map((method) => ({
    method,
    path: "/api/minigame/wechat/ad-reward",
    operationId: method === "get" ? "wechatAdRewardGet" : "wechatAdReward",
    tag: "Rewards",
    summary: "WeChat rewarded-ad server-side verification callback",
    description: note,
    ...(method === "get" ? { query: { schema: fields, examples: {} } } : { body: { schema: fields, examples: {} } }),
    success: { status: 200 as const, component: "AdCallbackReply", description: "`is_valid`, or the echostr" },
    errors: ["push_signature_invalid"],
    platformReplies: [{ status: 503, component: "AdCallbackReply", description: "Not recorded; WeChat calls again" }],
  }));
}

function wechatGiftPush(): OperationSpec[] {
  const note =
    "Register this URL as the mini-game's message push (JSON, safe mode) with WECHAT_GIFT_PUSH_TOKEN and WECHAT_GIFT_PUSH_AES_KEY " +
    "(default: the payment push's Token and EncodingAESKey). One URL serves every app: the app is the one whose Token verifies " +
    "the signature (sha1 of the sorted Token, timestamp, nonce).";
  return [
    {
      method: "get",
      path: "/api/minigame/wechat/gift-push",
      operationId: "wechatGiftPushVerify",
      tag: "Rewards",
      summary: "WeChat message-push URL check (gift packs)",
      description: `${note} A valid signature answers \`echostr\` as plain text; any other → 401 \`push_signature_invalid\`.`,
      query: { schema: z.object({ signature: z.string(), timestamp: z.string(), nonce: z.string(), echostr: z.string() }), examples: {} },
      success: { status: 200, component: "PushEcho", description: "The echostr, as text/plain" },
      errors: ["push_signature_invalid"],
    },
    {
      method: "post",
      path: "/api/minigame/wechat/gift-push",
      operationId: "wechatGiftPush",
      tag: "Rewards",
      summary: "WeChat message push: gift-pack delivery (minigame_deliver_goods) and customer-service messages",
      description:
        `${note} Only safe mode is read (\`encrypt_type=aes\`, \`msg_signature\` = sha1 of the sorted Token, timestamp, nonce ` +
        "and `Encrypt`; the event AES-encrypted with the EncodingAESKey, the app id inside): in plain mode the signature does " +
        "not cover the body, so a plain push is refused whatever it says. The pack named by the event's `GiftId` is granted " +
        'from the catalog\'s giftPacks once per `OrderId`: `{"ErrCode":0}`, the same push again too; an OrderId already granted ' +
        "to another player answers `{\"ErrCode\":0}` too (nothing granted, logged and counted: no retry would change it). " +
        "Refused with a non-zero ErrCode and nothing granted: 40001 signature or msg_signature, 40002 timestamp (over 300 s), " +
        "40003 malformed, 40004 another app, 40009 a (timestamp, nonce) already seen with another body, 40010 a pack the " +
        "catalog lacks (WeChat pushes again: add it), 40011 plain mode; an unknown player: ErrCode 1 with SubErrCode 172935494. " +
        "Previews (IsPreview) and other events answer success and grant nothing. The same push carries players' customer-service " +
        "messages (MsgType text, image, miniprogrampage; the user_enter_tempsession event): each kept once per MsgId for the " +
        "console's Customer service screen (docs/growth.md), ErrCode 0; malformed → 40003, nothing kept.",
      body: { schema: z.object({ ToUserName: z.string(), Encrypt: z.string() }), examples: {} },
      success: { status: 200, component: "WeChatPushReply", description: "ErrCode 0: granted (or nothing to grant); non-zero: refused" },
      errors: [],
    },
  ];
}

function douyinGiftPush(): OperationSpec {
  return {
    method: "post",
    path: "/api/minigame/douyin/gift-push",
    operationId: "douyinGiftPush",
    tag: "Rewards",
    summary: "Douyin gift push (gift codes)",
    description:
      "Register this URL in 开发 → 开发设置 → 消息推送配置 (JSON) with DOUYIN_GIFT_PUSH_TOKEN. Headers x-appid, x-msg-type, " +
      "x-nonce-str, x-timestamp (ms), x-signature (base64 md5 of the sorted headers, the body and the Token). A " +
      "`gift_delivery` grants the catalog's pack named by `gift_id` once per `gift_code`: HTTP 200 `{\"success\":true, \"err_no\":0}`, the " +
      "same push again too; `verify_request`, test pushes (env_type development) and other types answer 200 and grant " +
      "nothing. `douyin_microgame_im` (a player's customer-service message) is kept once per `msg_id` for the console " +
      "(docs/growth.md): 200; malformed → 400, nothing kept. Refused, nothing granted: 401 a bad signature, 400 another app, a stale (over 10 min) or malformed push, " +
      "409 a pack the catalog lacks or an unknown player; 500 not granted (Douyin pushes again).",
    body: { schema: z.object({ gift_id: z.string().optional(), gift_code: z.string(), open_id: z.string() }), examples: {} },
    success: { status: 200, component: "DouyinGiftPushReply", description: "success: granted (or nothing to grant)" },
    errors: [],
    platformReplies: [
      { status: 400, component: "DouyinGiftPushReply", description: "Refused: another app, stale, malformed" },
      { status: 401, component: "DouyinGiftPushReply", description: "Refused: the signature verifies with no app's Token" },
      { status: 409, component: "DouyinGiftPushReply", description: "Not granted: a pack the catalog lacks, or an unknown player" },
      { status: 500, component: "DouyinGiftPushReply", description: "Not granted; Douyin pushes again" },
    ],
  };
}

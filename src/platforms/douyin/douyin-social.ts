/**
 * Douyin's social server APIs (platform-apis-3.md §4, §5), on the old developer.toutiao.com host like
 * antidirt: `/api/apps/set_user_storage` and `/api/apps/remove_user_storage` (query `access_token`,
 * `openid`, `signature`, `sig_method`; the same HMAC-SHA256 of the body under the session key as
 * WeChat), and `/api/apps/subscribe_notification/developer/v1/notify`.
 *
 * Unconfirmed: Douyin documents neither the storage limits (WeChat's are assumed, with `ttgame` as the
 * ranking wrapper), nor the answers' numbers. Storage answers are read like that host's jscode2session
 * (`{"error": 0}`, failures `{"error", "errcode", "errmsg"}`), notify answers like its newer APIs
 * (`{"err_no", "err_tips"}`); the numbers below are this module's and the simulator's shared
 * assumption, so a real capture changes this one table.
 */
import { AppError } from "../../core/errors";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import { signedBody } from "../shared/player-signature";
import { BUSY, classifyError, type ErrorTable } from "../shared/platform-errors";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../platform";
import type { PlayerSignedCall, SocialClient, StorageEntry, StorageLimits, SubscribeCall } from "../social-port";

export const DOUYIN_STORAGE_LIMITS: StorageLimits = { maxKeys: 128, maxKeyBytes: 128, maxEntryBytes: 1024, rankingWrapper: "ttgame" };

export const DOUYIN_SOCIAL_ERRORS = {
  badParams: 40014,
  badToken: 40016,
  badSignature: 40021,
  storageFull: 40022,
  entryTooLong: 40023,
  keysMissing: 40024,
  /** notify (`err_no`): a token that does not work, as on the other mgplatform APIs. */
  notifyBadToken: 28001003,
  notifyNotGranted: 28005001,
  notifyInvalidTemplate: 28005002,
  notifyInvalidData: 28005003,
} as const;

const E = DOUYIN_SOCIAL_ERRORS;
const STORAGE_TABLE: ErrorTable = {
  [E.badParams]: "invalid_request",
  [E.badSignature]: "session_key_rejected",
  [E.storageFull]: "player_storage_full",
  [E.entryTooLong]: "invalid_request",
  [E.keysMissing]: "invalid_request",
};
const NOTIFY_TABLE: ErrorTable = {
  [E.notifyNotGranted]: "subscribe_not_granted",
  [E.notifyInvalidTemplate]: "subscribe_invalid",
  [E.notifyInvalidData]: "subscribe_invalid",
};

const DEFAULT_API_BASE_URL = "https://minigame.zijieapi.com";
const OLD_HOST = "https://developer.toutiao.com";

/** The same rule as antidirt's host: DOUYIN_CONTENT_API_BASE_URL, else the old host, else wherever the API points (the simulator). */
function socialBaseUrl(deps: PlatformClientDeps): string {
  const configured = deps.settings.extra.contentApiBaseUrl;
  if (typeof configured === "string" && configured) return configured.replace(/\/+$/, "");
  return deps.settings.apiBaseUrl === DEFAULT_API_BASE_URL ? OLD_HOST : deps.settings.apiBaseUrl;
}

export function createDouyinSocialClient(deps: PlatformClientDeps): SocialClient {
  const baseUrl = socialBaseUrl(deps);

  async function signedCall(path: string, call: PlayerSignedCall, payload: object): Promise<void> {
    const { body, signature } = signedBody(payload, call.sessionKey);
    const reply = await callPlatformApi("douyin", deps, {
      method: "POST",
      baseUrl,
      path,
      query: { access_token: call.accessToken, openid: call.openid, signature, sig_method: "hmac_sha256" },
      body,
      isBusy: (r) => errorNumber(r.errcode) === BUSY,
    });
    const errcode = errorNumber(reply.errcode);
    if (errorNumber(reply.error) === 0 && errcode === 0) return;
    const detail = { platform: "douyin", errcode, errmsg: str(reply.errmsg) };
    if (errcode === E.badToken) throw new PlatformTokenRejectedError("douyin", call.accessToken, detail);
    throw new AppError(classifyError(STORAGE_TABLE, errcode), { data: detail });
  }

  return {
    platform: "douyin",
    storageLimits: DOUYIN_STORAGE_LIMITS,
    setUserStorage: (call: PlayerSignedCall & { kvList: StorageEntry[] }) =>
      signedCall("/api/apps/set_user_storage", call, { kv_list: call.kvList.map(({ key, value }) => ({ key, value })) }),
    removeUserStorage: (call: PlayerSignedCall & { keys: string[] }) => signedCall("/api/apps/remove_user_storage", call, { key: call.keys }),

    async sendSubscribeMessage(call: SubscribeCall): Promise<void> {
      const { message } = call;
      const reply = await callPlatformApi("douyin", deps, {
        method: "POST",
        baseUrl,
        path: "/api/apps/subscribe_notification/developer/v1/notify",
        body: {
          access_token: call.accessToken,
          app_id: call.appId,
          tpl_id: message.templateId,
          open_id: call.openid,
          data: message.data,
          ...(message.page ? { page: message.page } : {}),
        },
        // Not retried: a busy answer may have delivered and used the grant.
        isBusy: () => false,
      });
      const errNo = errorNumber(reply.err_no);
      if (errNo === 0) return;
      const detail = { platform: "douyin", err_no: errNo, err_tips: str(reply.err_tips) };
      if (errNo === E.notifyBadToken) throw new PlatformTokenRejectedError("douyin", call.accessToken, detail);
      throw new AppError(classifyError(NOTIFY_TABLE, errNo), { data: detail });
    },
  };
}

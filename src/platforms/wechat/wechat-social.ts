/**
 * WeChat's social server APIs (platform-apis-3.md §4, §5): the player's hosted storage that friend
 * rankings read (`set_user_storage`, `remove_user_storage`), interactive data
 * (`setuserinteractivedata`), and subscribe messages (`cgi-bin/message/subscribe/send`).
 *
 * The storage calls carry the user-state signature (HMAC-SHA256 of the body under the player's session
 * key) in the query with `openid` and `sig_method`; a key WeChat no longer accepts is 87009, as for
 * `checksession` (unconfirmed for these paths: the sheet names only "the session-key signature errors").
 */
import { AppError } from "../../core/errors";
import { errcodeBusinessFailure, isBusy } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber } from "../shared/login-code";
import { signedBody } from "../shared/player-signature";
import type { ErrorTable } from "../shared/platform-errors";
import type { PlatformClientDeps } from "../platform";
import type { InteractiveDataLimits, InteractiveEntry, PlayerSignedCall, SocialClient, StorageEntry, StorageLimits, SubscribeCall } from "../social-port";

/**
 * §4: 128 keys per player; a key ≤ 128 bytes and key + value ≤ 1024 bytes (the byte limits are
 * unconfirmed upstream; they are the client API's documented ones); ranking values are
 * `{"wxgame": {"score": <int>, "update_time": <unix seconds>}}`.
 */
export const WECHAT_STORAGE_LIMITS: StorageLimits = { maxKeys: 128, maxKeyBytes: 128, maxEntryBytes: 1024, rankingWrapper: "wxgame" };

/** Interactive data: keys "1"…"50" configured in the console, integer values (the range is WeChat's int32, an assumption). */
export const WECHAT_INTERACTIVE_LIMITS: InteractiveDataLimits = {
  keys: Array.from({ length: 50 }, (_, i) => String(i + 1)),
  minValue: 0,
  maxValue: 2 ** 31 - 1,
};

/** The storage and interactive-data errcodes (§4) and what they mean for our caller. */
export const WECHAT_STORAGE_ERRORS = {
  invalidSignature: 87009,
  keysMissing: 87016,
  storageFull: 87017,
  keyTooLong: 87018,
  valueTooLong: 87019,
  keyNotConfigured: 87081,
  valueOutOfRange: 87082,
  invalidOpenid: 40003,
} as const;

const STORAGE_TABLE: ErrorTable = {
  // The signature did not verify with the player's current key: they logged in again elsewhere.
  [WECHAT_STORAGE_ERRORS.invalidSignature]: "session_key_rejected",
  [WECHAT_STORAGE_ERRORS.invalidOpenid]: "session_key_rejected",
  [WECHAT_STORAGE_ERRORS.keysMissing]: "invalid_request",
  [WECHAT_STORAGE_ERRORS.storageFull]: "player_storage_full",
  [WECHAT_STORAGE_ERRORS.keyTooLong]: "invalid_request",
  [WECHAT_STORAGE_ERRORS.valueTooLong]: "invalid_request",
  [WECHAT_STORAGE_ERRORS.keyNotConfigured]: "invalid_request",
  [WECHAT_STORAGE_ERRORS.valueOutOfRange]: "invalid_request",
  45009: "platform_rate_limited",
};

/** Subscribe-message errcodes (§5). */
export const WECHAT_SUBSCRIBE_ERRORS = { notGranted: 43101, invalidOpenid: 40003, invalidTemplate: 40037, dataMismatch: 47003, invalidPage: 41030 } as const;

const SUBSCRIBE_TABLE: ErrorTable = {
  // No unused grant: not retryable, not an operator error; the game asks the player again.
  [WECHAT_SUBSCRIBE_ERRORS.notGranted]: "subscribe_not_granted",
  [WECHAT_SUBSCRIBE_ERRORS.invalidOpenid]: "subscribe_invalid",
  [WECHAT_SUBSCRIBE_ERRORS.invalidTemplate]: "subscribe_invalid",
  [WECHAT_SUBSCRIBE_ERRORS.dataMismatch]: "subscribe_invalid",
  [WECHAT_SUBSCRIBE_ERRORS.invalidPage]: "subscribe_invalid",
  45009: "platform_rate_limited",
};

const BAD_TOKEN_CODES = [40001, 42001, 40014] as const;

function failure(table: ErrorTable, reply: Record<string, unknown>, accessToken: string): AppError {
  return errcodeBusinessFailure({ platform: "wechat", errorTable: table, badTokenCodes: BAD_TOKEN_CODES }, reply, accessToken);
}

async function signedCall(deps: PlatformClientDeps, path: string, call: PlayerSignedCall, payload: object): Promise<void> {
  const { body, signature } = signedBody(payload, call.sessionKey);
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path,
    query: { access_token: call.accessToken, signature, openid: call.openid, sig_method: "hmac_sha256" },
    body,
    isBusy,
  });
  if (errorNumber(reply.errcode) !== 0) throw failure(STORAGE_TABLE, reply, call.accessToken);
}

export function createWechatSocialClient(deps: PlatformClientDeps): SocialClient {
  return {
    platform: "wechat",
    storageLimits: WECHAT_STORAGE_LIMITS,
    interactiveDataLimits: WECHAT_INTERACTIVE_LIMITS,

    setUserStorage: (call: PlayerSignedCall & { kvList: StorageEntry[] }) =>
      signedCall(deps, "/wxa/set_user_storage", call, { kv_list: call.kvList.map(({ key, value }) => ({ key, value })) }),

    removeUserStorage: (call: PlayerSignedCall & { keys: string[] }) => signedCall(deps, "/wxa/remove_user_storage", call, { key: call.keys }),

    setUserInteractiveData: (call: PlayerSignedCall & { kvList: InteractiveEntry[] }) =>
      signedCall(deps, "/wxa/setuserinteractivedata", call, { kv_list: call.kvList.map(({ key, value }) => ({ key, value })) }),

    async sendSubscribeMessage(call: SubscribeCall): Promise<void> {
      const { message } = call;
      const reply = await callPlatformApi("wechat", deps, {
        method: "POST",
        path: "/cgi-bin/message/subscribe/send",
        query: { access_token: call.accessToken },
        body: {
          touser: call.openid,
          template_id: message.templateId,
          ...(message.page ? { page: message.page } : {}),
          data: Object.fromEntries(Object.entries(message.data).map(([field, value]) => [field, { value }])),
          miniprogram_state: message.state,
          lang: message.lang,
        },
        // A busy answer may still have delivered (and used the grant): retrying could send twice.
        isBusy: () => false,
      });
      if (errorNumber(reply.errcode) !== 0) throw failure(SUBSCRIBE_TABLE, reply, call.accessToken);
    },
  };
}

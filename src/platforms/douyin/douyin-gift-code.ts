/**
 * Douyin's gift-code redemption (兑奖 OpenAPI, docs/economy-rewards.md#rewards-evidence): the game's
 * server redeems a code the player brought (a live-room lucky bag's `game_cdkey` from tt.onShow, or one
 * typed in) and, once Douyin confirms it, grants the pack. Douyin calls nothing back for these codes.
 *
 * Platform facts:
 * - `POST https://minigame.zijieapi.com/mgplatform/api/gift/receive_reward`, header `access-token` (the
 *   app's client-credential token), JSON `{gift_code, open_id, uuid, env_type?}`; `uuid` is "开发者厂商侧传入,
 *   幂等" (receive-reward page; Douyin's own Node SDK @open-dy/open_api_sdk 1.1.0 sends exactly these four).
 * - The answer is `{err_no, err_msg, gift_info}`, `gift_info` `{gift_id, name, play_type, icon_url,
 *   prop_list [{prop_id, name, icon, count}], gift_effective_start_time, gift_effective_end_time,
 *   user_receive_guide}` (the same SDK's model, and the SKIT.FlurlHttpClient.ByteDance SDK's).
 * - A code is unique within the app and belongs to one player (一人一码); lucky-bag and paid packs must be
 *   confirmed here, game-station packs arrive by the gift push instead (游戏礼包能力接入指引概览).
 *
 * Unconfirmed (flagged here and in docs/economy-rewards.md, nowhere else):
 * - The error numbers, known from one third-party transcription only: 28006040 "礼包码重复核销" (already
 *   redeemed), 28006041 "礼包码与 open_id 绑定关系有误" (not this player's code), 28001007 bad parameters,
 *   28001005/28001006 system or network errors ("retry"), 28001003/28001008 the token. What an unknown or
 *   expired code gets is not said: anything else is `platform_unavailable`.
 * - What "幂等" means for a repeat: we read it as "the same uuid gets the same answer", so a redemption
 *   whose answer was lost is finished by asking again with the same uuid (giftCodeUuid derives it from the
 *   app, the player and the code). Should Douyin answer 28006040 to our own repeat instead, such a
 *   redemption needs the operator (logged at error by the service).
 * - That `gift_id` is the id the console shows for the pack (the catalog's `giftId`), as in the gift push.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import { classifyError, type ErrorTable } from "../shared/platform-errors";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../platform";

export const DOUYIN_GIFT_CODE_PATH = "/mgplatform/api/gift/receive_reward";

export const DOUYIN_GIFT_CODE_ERRORS = {
  systemError: 28001005,
  networkError: 28001006,
  badParams: 28001007,
  badToken: 28001003,
  expiredToken: 28001008,
  alreadyRedeemed: 28006040,
  notThisPlayers: 28006041,
} as const;

const E = DOUYIN_GIFT_CODE_ERRORS;
const TABLE: ErrorTable = {
  [E.alreadyRedeemed]: "gift_code_used",
  [E.notThisPlayers]: "gift_code_invalid",
  // We send only a code that passed GIFT_CODE and the player's openid: a parameter Douyin refuses is the code.
  [E.badParams]: "gift_code_invalid",
};
const RETRIED = new Set<number>([-1, E.systemError, E.networkError]);

/** What a code can look like before Douyin is asked (the documented examples: `mg1722924937_11229022`, `cdkey88888`). */
export const GIFT_CODE = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface GiftCodeCall {
  accessToken: string;
  code: string;
  openid: string;
  uuid: string;
  /** `env_type`, passed through from the game (tt.getEnvInfoSync); absent in production. */
  envType?: string;
}

export interface RedeemedGiftCode {
  /** gift_info.gift_id: the pack, as the catalog's `giftId`. */
  giftId: string;
  name: string;
  props: Array<{ propId: string; count: number }>;
}

/**
 * The uuid of one player's redemption of one code: the same for every retry of ours (Douyin's
 * idempotency), different for another player or app (a stranger's failed attempt cannot shadow the owner's).
 */
export function giftCodeUuid(app: string, openid: string, code: string): string {
  const h = crypto.createHash("sha256").update(`douyin-gift-code\0${app}\0${openid}\0${code}`).digest("hex");
  // Shaped like the documented example (a v4-looking UUID), version and variant bits set as v5's.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Redeems one code for one player; throws a typed AppError (or PlatformTokenRejectedError) when Douyin does not confirm it. */
export async function redeemDouyinGiftCode(deps: PlatformClientDeps, call: GiftCodeCall): Promise<RedeemedGiftCode> {
  const reply = await callPlatformApi("douyin", deps, {
    method: "POST",
    path: DOUYIN_GIFT_CODE_PATH,
    headers: { "access-token": call.accessToken },
    body: { gift_code: call.code, open_id: call.openid, uuid: call.uuid, ...(call.envType ? { env_type: call.envType } : {}) },
    // Safe to repeat: the same uuid is the same redemption.
    isBusy: (r) => RETRIED.has(errorNumber(r.err_no)),
  });
  const errNo = errorNumber(reply.err_no);
  const detail = { platform: "douyin", err_no: errNo, err_msg: str(reply.err_msg) || str(reply.err_tips) };
  if (errNo === E.badToken || errNo === E.expiredToken) throw new PlatformTokenRejectedError("douyin", call.accessToken, detail);
  if (errNo !== 0) throw new AppError(classifyError(TABLE, errNo), { data: detail });
  const info = reply.gift_info;
  const giftId = info && typeof info === "object" ? (info as Record<string, unknown>).gift_id : undefined;
  // Douyin's SDK types gift_id as a string; the push sends it as a number: read both.
  const id = typeof giftId === "string" ? giftId : typeof giftId === "number" && Number.isSafeInteger(giftId) ? String(giftId) : "";
  if (!id) throw new AppError("platform_unavailable", { data: { platform: "douyin", reason: "malformed_response" } });
  const g = info as Record<string, unknown>;
  const props = Array.isArray(g.prop_list)
    ? (g.prop_list as Array<Record<string, unknown>>).flatMap((p) => (p && typeof p.prop_id === "string" && Number.isSafeInteger(p.count) ? [{ propId: p.prop_id, count: p.count as number }] : []))
    : [];
  return { giftId: id, name: str(g.name), props };
}

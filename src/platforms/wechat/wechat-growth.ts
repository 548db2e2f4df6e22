/**
 * WeChat's growth APIs on the server (docs/growth.md): the player's risk rank
 * (`POST /wxa/getuserriskrank`: body `{appid, openid, scene, client_ip}`, answer `risk_rank` 0–4, higher
 * is riskier; scenes 0 registration, 1 marketing fraud, 2 UGC), per WeChat's mini-game server docs
 * (safety-control-capability/getUserRiskRank) and silenceper/wechat's riskcontrol. Unconfirmed: the
 * errcodes it answers besides the access-token ones (none are documented); any other errcode is
 * reported as the platform's refusal.
 */
import { errcodeBusinessFailure, isBusy } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber } from "../shared/login-code";
import type { ErrorTable } from "../shared/platform-errors";
import type { PlatformClientDeps } from "../platform";
import { AppError } from "../../core/errors";

export const RISK_RANK_PATH = "/wxa/getuserriskrank";
const BAD_TOKEN_CODES = [40001, 42001, 40014] as const;
const TABLE: ErrorTable = { 45009: "platform_rate_limited" };

export interface RiskRankCall {
  accessToken: string;
  openid: string;
  scene: number;
  clientIp: string;
}

export async function getUserRiskRank(deps: PlatformClientDeps, call: RiskRankCall): Promise<number> {
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: RISK_RANK_PATH,
    query: { access_token: call.accessToken },
    body: { appid: deps.settings.appId, openid: call.openid, scene: call.scene, client_ip: call.clientIp },
    isBusy,
  });
  if (errorNumber(reply.errcode) !== 0) throw errcodeBusinessFailure({ platform: "wechat", errorTable: TABLE, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
  const rank = reply.risk_rank;
  if (typeof rank !== "number" || !Number.isInteger(rank) || rank < 0 || rank > 4) {
    throw new AppError("platform_unavailable", { data: { platform: "wechat", reason: "malformed_response" } });
  }
  return rank;
}

/**
 * Updatable share messages (动态消息; WeChat's updatableMessage docs, royalrick/weapp): an activity id
 * (`GET /cgi-bin/message/wxopen/activityid/create`, 24 h; with `openid` a private message only that
 * player can share), then state changes (`POST .../updatablemsg/send`): state 0 "members joining
 * {member_count}/{room_limit}", state 1 "started" (final), whose `path` is a query for mini-games.
 */
export const ACTIVITY_ID_PATH = "/cgi-bin/message/wxopen/activityid/create";
export const UPDATABLE_MSG_PATH = "/cgi-bin/message/wxopen/updatablemsg/send";
const SHARE_TABLE: ErrorTable = { 45009: "platform_rate_limited", 47001: "invalid_request", 44002: "invalid_request" };

export async function createActivityId(deps: PlatformClientDeps, call: { accessToken: string; openid?: string }): Promise<{ activityId: string; expiresAtSec: number }> {
  const reply = await callPlatformApi("wechat", deps, {
    method: "GET",
    path: ACTIVITY_ID_PATH,
    query: { access_token: call.accessToken, openid: call.openid },
    isBusy,
  });
  if (errorNumber(reply.errcode) !== 0) throw errcodeBusinessFailure({ platform: "wechat", errorTable: SHARE_TABLE, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
  if (typeof reply.activity_id !== "string" || !reply.activity_id) throw new AppError("platform_unavailable", { data: { platform: "wechat", reason: "malformed_response" } });
  return { activityId: reply.activity_id, expiresAtSec: typeof reply.expiration_time === "number" ? reply.expiration_time : 0 };
}

export type UpdatableState = { state: 0; members: number; limit: number } | { state: 1; path: string; versionType: "develop" | "trial" | "release" };

export async function setUpdatableMsg(deps: PlatformClientDeps, call: { accessToken: string; activityId: string; update: UpdatableState }): Promise<void> {
  const { update } = call;
  const parameters =
    update.state === 0
      ? [{ name: "member_count", value: String(update.members) }, { name: "room_limit", value: String(update.limit) }]
      : [{ name: "path", value: update.path }, { name: "version_type", value: update.versionType }];
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: UPDATABLE_MSG_PATH,
    query: { access_token: call.accessToken },
    body: { activity_id: call.activityId, target_state: update.state, template_info: { parameter_list: parameters } },
    isBusy,
  });
  if (errorNumber(reply.errcode) !== 0) throw errcodeBusinessFailure({ platform: "wechat", errorTable: SHARE_TABLE, badTokenCodes: BAD_TOKEN_CODES }, reply, call.accessToken);
}

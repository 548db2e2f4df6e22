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

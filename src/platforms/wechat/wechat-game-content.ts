/**
 * WeChat's content-security check for games (platform-apis-2.md §1.4, platform-apis-3.md §6):
 * `POST /wxa/game/content_spam/msg_sec_check` with `{openid, version: 2, scene, content}`, scene 5 =
 * chat. Its verdict is `result.suggest`, risky or pass only. Its error table and quota are unconfirmed
 * (the sheet guesses ~10,000/min per app): we read it as msgSecCheck's (a per-player condition is not
 * retried, 45009/44991 is the limit), which the moderation service's fallback policy then handles.
 */
import { AppError } from "../../core/errors";
import { errcodeBusinessFailure, isBusy } from "../shared/errcode-client";
import { callPlatformApi } from "../shared/http-json";
import { errorNumber, str } from "../shared/login-code";
import type { ErrorTable } from "../shared/platform-errors";
import type { PlatformClientDeps, TextCheck, TextVerdict } from "../platform";

export const GAME_CONTENT_CHECK_PATH = "/wxa/game/content_spam/msg_sec_check";
/** The game endpoint's scenes run 1–5; we use it only for chat. */
export const GAME_CHAT_SCENE = 5;

const ERRORS: ErrorTable = { 45009: "platform_rate_limited", 44991: "platform_rate_limited" };
/** No recent visit, an unknown openid, another app's openid: retrying cannot help (as msgSecCheck). */
const PLAYER_CONDITIONS = new Set([61010, 40003, 43104]);

export async function checkGameChatText(deps: PlatformClientDeps, check: TextCheck): Promise<TextVerdict> {
  const unavailable = (reason: string, detail: Record<string, unknown> = {}) =>
    new AppError("platform_unavailable", { data: { platform: "wechat", reason, ...detail } });
  if (!check.openid) throw unavailable("openid_missing");
  const reply = await callPlatformApi("wechat", deps, {
    method: "POST",
    path: GAME_CONTENT_CHECK_PATH,
    query: { access_token: check.accessToken },
    body: { openid: check.openid, version: 2, scene: GAME_CHAT_SCENE, content: check.text },
    isBusy,
  });
  const errcode = errorNumber(reply.errcode);
  if (PLAYER_CONDITIONS.has(errcode)) throw unavailable("player_not_checkable", { errcode, errmsg: str(reply.errmsg) });
  if (errcode !== 0) throw errcodeBusinessFailure({ platform: "wechat", errorTable: ERRORS, badTokenCodes: [40001, 42001, 40014] }, reply, check.accessToken);
  const suggest = ((reply.result ?? {}) as Record<string, unknown>).suggest;
  if (suggest !== "risky" && suggest !== "pass") throw unavailable("malformed_response");
  return suggest;
}

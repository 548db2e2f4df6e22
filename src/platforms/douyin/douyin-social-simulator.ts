/**
 * Douyin's social APIs in the simulator, at their developer.toutiao.com paths, with the answers and
 * numbers douyin-social.ts assumes (Douyin documents none of them; see there):
 * - `set_user_storage` / `remove_user_storage`: a token that does not work 40016, `sig_method` or
 *   `openid` missing 40014, a signature that is not HMAC-SHA256 of the raw body under the player's
 *   current session key 40021, then WeChat's limits whole list or nothing (an entry too long 40023,
 *   more than 128 keys 40022, removing a key the player lacks 40024). Success is `{"error": 0}`,
 *   failure `{"error": 1, "errcode", "errmsg", "message"}` as on that host's jscode2session.
 * - `subscribe_notification/developer/v1/notify`: the token in the body (28001003 when it does not
 *   work), `app_id` the token's app, `tpl_id` starting with `invalid` 28005002, `data` not a flat
 *   object of strings 28005003, no grant left 28005001; answers `{"err_no", "err_tips"}`.
 */
import { JSON_TYPE, param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { checkPlayerSignature, entryList, isString, objectBody } from "../../simulator/signed-request";
import { applyStorageRemoval, applyStorageWrite, type StorageOutcome } from "../../simulator/storage-rules";
import { DOUYIN_SOCIAL_ERRORS as E, DOUYIN_STORAGE_LIMITS } from "./douyin-social";

const storageError = (errcode: number, errmsg: string): SimReply => ({ contentType: JSON_TYPE, body: { error: 1, errcode, errmsg, message: errmsg } });
const notifyReply = (errNo: number, errTips: string): SimReply => ({ contentType: JSON_TYPE, body: { err_no: errNo, err_tips: errTips } });

const OUTCOMES: Record<Exclude<StorageOutcome, "ok">, [number, string]> = {
  key_too_long: [E.entryTooLong, "key or value too long"],
  entry_too_long: [E.entryTooLong, "key or value too long"],
  full: [E.storageFull, "user storage full"],
  keys_missing: [E.keysMissing, "key not exist"],
};

function storageRoute(path: string, apply: (sim: PlatformSimContext, openid: string, body: Record<string, unknown>) => StorageOutcome | "bad_params"): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const { status, appId } = sim.tokenStatus(param(req.query, "access_token"));
    if (status !== "valid" || !appId) return storageError(E.badToken, "bad access_token");
    const signature = checkPlayerSignature(req, sim, appId);
    if (signature === "bad_sig_method" || signature === "no_openid") return storageError(E.badParams, "bad params");
    if (signature === "invalid_signature") return storageError(E.badSignature, "bad signature");
    const body = objectBody(req);
    const outcome = body ? apply(sim, param(req.query, "openid"), body) : "bad_params";
    if (outcome === "bad_params") return storageError(E.badParams, "bad params");
    if (outcome !== "ok") return storageError(...OUTCOMES[outcome]);
    return { contentType: JSON_TYPE, body: { error: 0 } };
  };
  return { method: "POST", path, counts: "business", handle };
}

const setStorage = storageRoute("/api/apps/set_user_storage", (sim, openid, body) => {
  const entries = entryList(body.kv_list, isString);
  return entries ? applyStorageWrite(sim.social, { platform: sim.platform, openid }, entries, DOUYIN_STORAGE_LIMITS) : "bad_params";
});

const removeStorage = storageRoute("/api/apps/remove_user_storage", (sim, openid, body) => {
  const keys = body.key;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every(isString)) return "bad_params";
  return applyStorageRemoval(sim.social, { platform: sim.platform, openid }, keys);
});

function notify(req: SimRequest, sim: PlatformSimContext): SimReply {
  const body = objectBody(req);
  if (!body) return notifyReply(E.badParams, "bad params");
  const { status, appId } = sim.tokenStatus(param(body, "access_token"));
  if (status !== "valid" || !appId) return notifyReply(E.notifyBadToken, "access_token 无效");
  const openid = param(body, "open_id");
  const templateId = param(body, "tpl_id");
  if (!openid || param(body, "app_id") !== appId) return notifyReply(E.badParams, "bad params");
  if (!templateId || templateId.startsWith("invalid")) return notifyReply(E.notifyInvalidTemplate, "模板不存在");
  const data = body.data;
  if (!data || typeof data !== "object" || Array.isArray(data) || !Object.values(data).every(isString)) return notifyReply(E.notifyInvalidData, "模板参数错误");
  if (!sim.social.useGrant(sim.platform, openid, templateId)) return notifyReply(E.notifyNotGranted, "用户未订阅");
  const page = param(body, "page");
  sim.social.deliver(sim.platform, openid, { templateId, data, ...(page ? { page } : {}), appId });
  return notifyReply(0, "");
}

export const douyinSocialRoutes: readonly SimulatorRoute[] = [
  setStorage,
  removeStorage,
  { method: "POST", path: "/api/apps/subscribe_notification/developer/v1/notify", counts: "business", handle: notify },
];

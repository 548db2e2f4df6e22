/**
 * WeChat's social APIs in the simulator (platform-apis-3.md §4–§6), on the shared business-API token
 * check (41001/40014/40001/42001):
 * - `set_user_storage`, `remove_user_storage`, `setuserinteractivedata`: `sig_method=hmac_sha256`
 *   (else 87008), `openid` (else 40003) and `signature` = HMAC-SHA256 of the raw body under the player's
 *   current session key (else 87009), then the §4 limits, whole list or nothing: a key over 128 bytes
 *   87018, key + value over 1024 bytes 87019, more than 128 keys stored 87017, removing a key the
 *   player lacks 87016; interactive keys "1"…"20" count as configured in the console (others 87081),
 *   values must be integers from 0 to 2^31-1 (87082);
 * - `subscribe/send`: a `template_id` starting with `invalid` is 40037, a `page` starting with `invalid`
 *   41030, `data` not `{field: {value: string}}` 47003; then one of the player's grants is used, or
 *   43101 when none is left;
 * - `game/content_spam/msg_sec_check`: like msg_sec_check v2 with scenes 1–5 and only risky/pass
 *   (`simulator-review` passes), `result.replaced_content` starred when risky, its own per-app limit
 *   (45009) and its own counter.
 */
import { newRid } from "../../simulator/codes";
import { simulatedVerdict } from "../../simulator/content-security";
import type { ErrcodeBusinessHelpers, ErrcodeReply } from "../../simulator/errcode-simulator";
import { param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { checkPlayerSignature, entryList, isInteger, isString, objectBody } from "../../simulator/signed-request";
import { applyStorageRemoval, applyStorageWrite, type StorageOutcome } from "../../simulator/storage-rules";
import { GAME_CONTENT_CHECK_PATH } from "./wechat-game-content";
import { WECHAT_INTERACTIVE_LIMITS, WECHAT_STORAGE_ERRORS as E, WECHAT_STORAGE_LIMITS, WECHAT_SUBSCRIBE_ERRORS as S } from "./wechat-social";

const DATA_FORMAT: ErrcodeReply = [47001, "data format error"];
/** The interactive-data keys the simulated console has configured. */
const CONFIGURED_INTERACTIVE_KEYS = 20;

const STORAGE_REPLIES: Record<Exclude<StorageOutcome, "ok">, ErrcodeReply> = {
  key_too_long: [E.keyTooLong, "key too long"],
  entry_too_long: [E.valueTooLong, "value too long"],
  full: [E.storageFull, "user storage full"],
  keys_missing: [E.keysMissing, "some keys not exist"],
};

type Signed = { refused: SimReply } | { appId: string; openid: string; body: Record<string, unknown> };

function signedRoute(path: string, { checkToken, error, ok }: ErrcodeBusinessHelpers, apply: (sim: PlatformSimContext, openid: string, body: Record<string, unknown>) => ErrcodeReply | undefined): SimulatorRoute {
  const verify = (req: SimRequest, sim: PlatformSimContext): Signed => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth;
    const signature = checkPlayerSignature(req, sim, auth.appId);
    if (signature === "bad_sig_method") return { refused: error([87008, "invalid sig_method"]) };
    if (signature === "no_openid") return { refused: error([E.invalidOpenid, "invalid openid"]) };
    if (signature === "invalid_signature") return { refused: error([E.invalidSignature, "invalid signature"]) };
    const body = objectBody(req);
    return body ? { appId: auth.appId, openid: param(req.query, "openid"), body } : { refused: error(DATA_FORMAT) };
  };
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const signed = verify(req, sim);
    if ("refused" in signed) return signed.refused;
    const refusal = apply(sim, signed.openid, signed.body);
    return refusal ? error(refusal) : ok({ errcode: 0, errmsg: "ok" });
  };
  return { method: "POST", path, counts: "business", handle };
}

function setStorage(sim: PlatformSimContext, openid: string, body: Record<string, unknown>): ErrcodeReply | undefined {
  const entries = entryList(body.kv_list, isString);
  if (!entries) return DATA_FORMAT;
  const outcome = applyStorageWrite(sim.social, { platform: sim.platform, openid }, entries, WECHAT_STORAGE_LIMITS);
  return outcome === "ok" ? undefined : STORAGE_REPLIES[outcome];
}

function removeStorage(sim: PlatformSimContext, openid: string, body: Record<string, unknown>): ErrcodeReply | undefined {
  const keys = body.key;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every(isString)) return DATA_FORMAT;
  const outcome = applyStorageRemoval(sim.social, { platform: sim.platform, openid }, keys);
  return outcome === "ok" ? undefined : STORAGE_REPLIES[outcome];
}

function setInteractive(sim: PlatformSimContext, openid: string, body: Record<string, unknown>): ErrcodeReply | undefined {
  const entries = entryList(body.kv_list, (v): v is unknown => true);
  if (!entries) return DATA_FORMAT;
  const { minValue, maxValue } = WECHAT_INTERACTIVE_LIMITS;
  for (const { key, value } of entries) {
    const n = Number(key);
    if (!Number.isInteger(n) || n < 1 || n > CONFIGURED_INTERACTIVE_KEYS || String(n) !== key) return [E.keyNotConfigured, "key not configured"];
    if (!isInteger(value) || value < minValue || value > maxValue) return [E.valueOutOfRange, "value out of range"];
  }
  const next = new Map(sim.social.interactiveOf(sim.platform, openid));
  for (const { key, value } of entries) next.set(key, value as number);
  sim.social.replaceInteractive(sim.platform, openid, next);
  return undefined;
}

const isTemplateValue = (v: unknown) => !!v && typeof v === "object" && typeof (v as Record<string, unknown>).value === "string";

function subscribeSendRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const body = objectBody(req);
    if (!body) return error(DATA_FORMAT);
    const touser = param(body, "touser");
    const templateId = param(body, "template_id");
    const page = param(body, "page");
    if (!touser) return error([S.invalidOpenid, "invalid openid"]);
    if (!templateId || templateId.startsWith("invalid")) return error([S.invalidTemplate, "invalid template_id"]);
    if (page.startsWith("invalid")) return error([S.invalidPage, "invalid page"]);
    const data = body.data;
    if (!data || typeof data !== "object" || Array.isArray(data) || !Object.values(data).every(isTemplateValue)) {
      return error([S.dataMismatch, "argument invalid! data.thing1.value invalid"]);
    }
    if (!sim.social.useGrant(sim.platform, touser, templateId)) return error([S.notGranted, "user refuse to accept the msg"]);
    sim.social.deliver(sim.platform, touser, {
      templateId,
      data,
      ...(page ? { page } : {}),
      miniprogramState: param(body, "miniprogram_state") || "formal",
      lang: param(body, "lang") || "zh_CN",
      appId: auth.appId,
    });
    return ok({ errcode: 0, errmsg: "ok", msgid: Date.now() });
  };
  return { method: "POST", path: "/cgi-bin/message/subscribe/send", counts: "business", handle };
}

function gameContentCheckRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    const body = objectBody(req);
    if (!body) return error(DATA_FORMAT);
    if (!sim.takeGameContentCheckQuota(auth.appId)) return error([45009, "reach max api daily quota limit"]);
    const content = param(body, "content");
    const openid = param(body, "openid");
    if (!content || String(body.version) !== "2" || !openid) return error(DATA_FORMAT);
    if (![1, 2, 3, 4, 5].includes(Number(body.scene))) return error([40129, "invalid scene"]);
    if (!sim.loggedInRecently(auth.appId, openid)) return error([61010, "code is expired"]);
    const suggest = simulatedVerdict(content) === "risky" ? "risky" : "pass";
    const label = suggest === "risky" ? 20012 : 100;
    return ok({
      errcode: 0,
      errmsg: "ok",
      result: { suggest, label, replaced_content: suggest === "risky" ? "*".repeat([...content].length) : content },
      detail: [{ strategy: "content_model", errcode: 0, suggest, label, prob: 90 }],
      trace_id: newRid(),
    });
  };
  return { method: "POST", path: GAME_CONTENT_CHECK_PATH, counts: "gameContentCheck", handle };
}

/** WeChat's social routes, added to its business routes (they share the token check). */
export function wechatSocialRoutes(helpers: ErrcodeBusinessHelpers): SimulatorRoute[] {
  return [
    signedRoute("/wxa/set_user_storage", helpers, setStorage),
    signedRoute("/wxa/remove_user_storage", helpers, removeStorage),
    signedRoute("/wxa/setuserinteractivedata", helpers, setInteractive),
    subscribeSendRoute(helpers),
    gameContentCheckRoute(helpers),
  ];
}

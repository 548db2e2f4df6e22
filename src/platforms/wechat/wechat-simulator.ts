/**
 * WeChat's part of the simulator (part 1 §1, §2). Errors are `{"errcode","errmsg":"<text>, rid: …"}`
 * sent as text/plain, as in a real capture, so clients are exercised parsing JSON whatever the header
 * says. Successes carry no errcode at all, like the real replies and unlike the documented example.
 * Ids: openid and unionid are `o` + 27 base64url characters (28 in all).
 *
 * Business APIs (part 2 §3, §9): `/wxa/checksession` and `getuserphonenumber` check the token first:
 * missing 41001, not a token's shape 40014, unknown, replaced or another app's 40001, past its lifetime
 * 42001. Phone-number codes are `<number>` or `<country>-<number>`, optionally with `.<n>` to make them
 * unique (`13800138000.1`, `1-5551234567.2`); each works once (5-minute memory, like login codes) and
 * anything else, a reuse or a login code is 40029 `invalid code hint: [...] rid: ...`. `countryCode`
 * is a string, as on the wire.
 *
 * `msg_sec_check` (part 2 §1.1, §1.2, §9): `access_token` in the body is 47001 (before the token check);
 * then the token, then the app's limit (45009 for minute and day alike). No `version` is v1: the doc's
 * test strings and `simulator-risky` are 87014 `risky content`, anything else `{errcode:0}`. `version`
 * 2 or "2" needs `content`, `scene` 1–4 (40129) and the openid of a login within the recent-login
 * window (61010 `code is expired`, even for an openid never seen); risky text is errcode 0 with
 * `result.suggest: "risky"`, `simulator-review` is "review", with `detail[]` and `trace_id`.
 *
 * Player storage, interactive data, subscribe messages and the game content check: wechat-social-simulator.ts.
 */
import { ConsumedCodes, idDigest, newRid } from "../../simulator/codes";
import { simulatedVerdict } from "../../simulator/content-security";
import { errcodeSimulator, WECHAT_FAMILY_TOKEN_ERRORS, type CredentialErrors, type ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { MALFORMED_BODY, param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { opaqueTokenPolicy } from "../../simulator/tokens";
import { wechatSocialRoutes } from "./wechat-social-simulator";
import { wechatGrowthRoutes } from "./wechat-growth-simulator";
import { wechatSupportRoutes } from "./wechat-support-simulator";

const credentialErrors: CredentialErrors = {
  missingAppid: [41002, "appid missing"],
  missingSecret: [41004, "appsecret missing"],
  badGrantType: [40002, "invalid grant_type"],
  unknownAppid: [40013, "invalid appid"],
  wrongSecret: [40125, "invalid appsecret"],
};

const PHONE_CODE = /^(?:(\d{1,4})-)?(\d{5,15})(?:\.[A-Za-z0-9_-]{1,32})?$/;

const hint = () => newRid().replace(/-/g, "").slice(0, 16);

function phoneNumberRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    if (req.body === MALFORMED_BODY || req.body === undefined) return error([47001, "data format error"]);
    const code = param(req.body, "code");
    const match = PHONE_CODE.exec(code);
    const key = ConsumedCodes.key(sim.platform, auth.appId, "phone_code", code);
    if (!match || sim.consumed.isUsed(key)) return error([40029, `invalid code hint: [${hint()}]`]);
    sim.consumed.markUsed(key);
    const countryCode = match[1] ?? "86";
    const purePhoneNumber = match[2];
    return ok({
      errcode: 0,
      errmsg: "ok",
      phone_info: {
        phoneNumber: countryCode === "86" ? purePhoneNumber : `+${countryCode}${purePhoneNumber}`,
        purePhoneNumber,
        countryCode,
        watermark: { timestamp: Math.floor(sim.now() / 1000), appid: auth.appId },
      },
    });
  };
  return { method: "POST", path: "/wxa/business/getuserphonenumber", counts: "business", handle };
}

/** The official v1 test strings (part 2 §1.2): they return 87014. */
const V1_TEST_STRINGS = ["特3456书yuuo莞6543李zxcz蒜7782法fgnv级", "完2347全dfji试3726测asad感3847知qwez到"];
/** A label per verdict (part 2 §1.1's list): 100 normal, 20012 vulgar, 21000 other. */
const LABELS = { pass: 100, risky: 20012, review: 21000 } as const;

function msgSecCheckRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const body = req.body === MALFORMED_BODY || req.body === undefined ? undefined : req.body;
    if (body && "access_token" in body) return error([47001, "data format error"]);
    const auth = checkToken(req, sim);
    if ("refused" in auth) return auth.refused;
    if (!body) return error([47001, "data format error"]);
    if (!sim.takeContentCheckQuota(auth.appId)) return error([45009, "reach max api daily quota limit"]);
    const content = param(body, "content");
    if (!content) return error([47001, "data format error"]);
    if (body.version === undefined) {
      const risky = simulatedVerdict(content) === "risky" || V1_TEST_STRINGS.includes(content);
      return risky ? error([87014, "risky content"]) : ok({ errcode: 0, errmsg: "ok" });
    }
    const openid = param(body, "openid");
    if (String(body.version) !== "2" || !openid) return error([47001, "data format error"]);
    if (![1, 2, 3, 4].includes(Number(body.scene))) return error([40129, "invalid scene"]);
    if (!sim.loggedInRecently(auth.appId, openid)) return error([61010, "code is expired"]);
    const suggest = simulatedVerdict(content);
    const label = LABELS[suggest];
    return ok({
      errcode: 0,
      errmsg: "ok",
      result: { suggest, label },
      detail: [
        { strategy: "content_model", errcode: 0, suggest, label, prob: suggest === "pass" ? 90 : 95 },
        // A keyword entry without a hit carries no suggest or label, as on the wire.
        { strategy: "keyword", errcode: 0 },
      ],
      trace_id: newRid(),
    });
  };
  return { method: "POST", path: "/wxa/msg_sec_check", counts: "contentCheck", handle };
}

export const wechatSimulator = errcodeSimulator({
  login: {
    path: "/sns/jscode2session",
    credentialErrors,
    missingCode: [41008, "missing code"],
    codeErrors: {
      invalid: [40029, "invalid code"],
      used: [40163, "code been used"],
      blocked: [40226, "code blocked"],
      busy: [-1, "system error"],
      ratelimited: [45011, "api minute-quota reach limit mustslower retry next minute"],
    },
  },
  tokens: {
    credentialErrors,
    // 47001 is WeChat's general "data format error" for unparseable POST bodies (not in the spec).
    malformedBody: [47001, "data format error"],
    routes: [
      { method: "GET", path: "/cgi-bin/token", kind: "ordinary" },
      { method: "POST", path: "/cgi-bin/stable_token", kind: "stable" },
    ],
  },
  ids: {
    openid: (appId, player) => `o${idDigest("openid", "wechat", appId, player).toString("base64url").slice(0, 27)}`,
    unionid: (player) => `o${idDigest("unionid", "wechat", player).toString("base64url").slice(0, 27)}`,
  },
  errors: { contentType: "text/plain", suffix: () => `, rid: ${newRid()}`, businessSuffix: () => ` rid: ${newRid()}` },
  tokenPolicy: opaqueTokenPolicy,
  business: {
    tokenErrors: WECHAT_FAMILY_TOKEN_ERRORS,
    sessionCheck: {
      path: "/wxa/checksession",
      invalidSigMethod: [87008, "invalid sig_method"],
      invalidOpenid: [40003, "invalid openid"],
      invalidSignature: [87009, "invalid signature"],
    },
    routes: (helpers) => [phoneNumberRoute(helpers), msgSecCheckRoute(helpers), ...wechatSocialRoutes(helpers), ...wechatGrowthRoutes(helpers), ...wechatSupportRoutes(helpers)],
  },
});

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
 */
import { ConsumedCodes, idDigest, newRid } from "../../simulator/codes";
import { errcodeSimulator, type CredentialErrors, type ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { MALFORMED_BODY, param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { opaqueTokenPolicy } from "../../simulator/tokens";

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
    tokenErrors: {
      missing: [41001, "access_token missing"],
      malformed: [40014, "invalid access_token"],
      invalid: [40001, "invalid credential, access_token is invalid or not latest"],
      expired: [42001, "access_token expired"],
    },
    sessionCheck: {
      path: "/wxa/checksession",
      invalidSigMethod: [87008, "invalid sig_method"],
      invalidOpenid: [40003, "invalid openid"],
      invalidSignature: [87009, "invalid signature"],
    },
    routes: (helpers) => [phoneNumberRoute(helpers)],
  },
});

/**
 * QQ's part of the simulator (platform-apis-2.md §6). It copies WeChat's paths, so the simulator
 * serves it under `/qq`. Wire errmsg texts are unconfirmed upstream; these are plausible ones.
 * Ids: openid is 32 uppercase hex; unionid is `UID_` + 32 uppercase hex (the SDK examples' shapes).
 * Successes carry `errcode: 0` and `errmsg`, as the SDKs show.
 *
 * `MsgSecCheck` (§6.3) answers camelCase `{errCode, errMsg}` only, refusals included: 0 "ok", 87014
 * "risky content" for `simulator-risky` (QQ has no "review": `simulator-review` passes). `appid` is
 * required in the body and must be the token's app. Unconfirmed numbers (WeChat's, QQ being its
 * clone): token errors as WeChat's, missing appid 41002, another app's 40013, no content
 * 47001, past the app's 4000/min limit 45009.
 */
import { idDigest } from "../../simulator/codes";
import { simulatedVerdict } from "../../simulator/content-security";
import { errcodeSimulator, WECHAT_FAMILY_TOKEN_ERRORS, type CredentialErrors, type ErrcodeBusinessHelpers } from "../../simulator/errcode-simulator";
import { MALFORMED_BODY, param, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "../../simulator/platform-simulator";
import { opaqueTokenPolicy } from "../../simulator/tokens";

const hex32 = (digest: Buffer) => digest.toString("hex").slice(0, 32).toUpperCase();

// code2Session answers every credential problem with one number (§6.1).
const badParameters = [-101222100, "invalid appid or appsecret"] as const;
const loginCredentialErrors: CredentialErrors = {
  missingAppid: badParameters,
  missingSecret: badParameters,
  badGrantType: badParameters,
  unknownAppid: badParameters,
  wrongSecret: badParameters,
};

/** The same answer with QQ's camelCase keys. */
function camelCased(reply: SimReply): SimReply {
  const { errcode, errmsg } = reply.body as { errcode: number; errmsg: string };
  return { ...reply, body: { errCode: errcode, errMsg: errmsg } };
}

function msgSecCheckRoute({ checkToken, error, ok }: ErrcodeBusinessHelpers): SimulatorRoute {
  const refuse = (reply: readonly [number, string]) => camelCased(error(reply));
  const handle = (req: SimRequest, sim: PlatformSimContext): SimReply => {
    const auth = checkToken(req, sim);
    if ("refused" in auth) return camelCased(auth.refused);
    if (req.body === MALFORMED_BODY || req.body === undefined) return refuse([47001, "data format error"]);
    const appid = param(req.body, "appid");
    if (!appid) return refuse([41002, "appid missing"]);
    if (appid !== auth.appId) return refuse([40013, "invalid appid"]);
    const content = param(req.body, "content");
    if (!content) return refuse([47001, "data format error"]);
    if (!sim.takeContentCheckQuota(auth.appId)) return refuse([45009, "reach max api daily quota limit"]);
    return simulatedVerdict(content) === "risky" ? refuse([87014, "risky content"]) : ok({ errCode: 0, errMsg: "ok" });
  };
  return { method: "POST", path: "/api/json/security/MsgSecCheck", counts: "contentCheck", handle };
}

export const qqSimulator = errcodeSimulator({
  login: {
    path: "/sns/jscode2session",
    credentialErrors: loginCredentialErrors,
    missingCode: [40029, "invalid code"],
    codeErrors: {
      invalid: [40029, "invalid code"],
      // QQ documents no separate "code used" number: 40029 is "code 无效" whatever the reason.
      used: [40029, "invalid code"],
      // Unconfirmed: no QQ number is documented for a blocked user; WeChat's is used.
      blocked: [40226, "code blocked"],
      busy: [-1, "system busy"],
      ratelimited: [45011, "frequency limit"],
    },
    successFields: { errcode: 0, errmsg: "ok" },
  },
  tokens: {
    credentialErrors: {
      missingAppid: [40013, "invalid appid"],
      missingSecret: [40001, "invalid appsecret"],
      badGrantType: [40002, "invalid grant_type"],
      unknownAppid: [40013, "invalid appid"],
      wrongSecret: [40001, "invalid appsecret"],
    },
    routes: [{ method: "GET", path: "/api/getToken", kind: "ordinary" }],
    // Unconfirmed: one client insists on errcode 0 and errmsg "ok" in a successful token reply.
    successFields: { errcode: 0, errmsg: "ok" },
  },
  ids: {
    openid: (appId, player) => hex32(idDigest("openid", "qq", appId, player)),
    unionid: (player) => `UID_${hex32(idDigest("unionid", "qq", player))}`,
  },
  errors: { contentType: "application/json" },
  tokenPolicy: opaqueTokenPolicy,
  business: {
    tokenErrors: WECHAT_FAMILY_TOKEN_ERRORS,
    routes: (helpers) => [msgSecCheckRoute(helpers)],
  },
});

/**
 * WeChat's part of the simulator (part 1 §1, §2). Errors are `{"errcode","errmsg":"<text>, rid: …"}`
 * sent as text/plain, as in a real capture, so clients are exercised parsing JSON whatever the header
 * says. Successes carry no errcode at all, like the real replies and unlike the documented example.
 * Ids: openid and unionid are `o` + 27 base64url characters (28 in all).
 */
import { idDigest, newRid } from "../../simulator/codes";
import { errcodeSimulator, type CredentialErrors } from "../../simulator/errcode-simulator";
import { opaqueTokenPolicy } from "../../simulator/tokens";

const credentialErrors: CredentialErrors = {
  missingAppid: [41002, "appid missing"],
  missingSecret: [41004, "appsecret missing"],
  badGrantType: [40002, "invalid grant_type"],
  unknownAppid: [40013, "invalid appid"],
  wrongSecret: [40125, "invalid appsecret"],
};

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
  errors: { contentType: "text/plain", suffix: () => `, rid: ${newRid()}` },
  tokenPolicy: opaqueTokenPolicy,
});

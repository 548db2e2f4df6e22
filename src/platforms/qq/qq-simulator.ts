/**
 * QQ's part of the simulator (platform-apis-2.md §6). It copies WeChat's paths, so the simulator
 * serves it under `/qq`. Wire errmsg texts are unconfirmed upstream; these are plausible ones.
 * Ids: openid is 32 uppercase hex; unionid is `UID_` + 32 uppercase hex (the SDK examples' shapes).
 * Successes carry `errcode: 0` and `errmsg`, as the SDKs show.
 */
import { idDigest } from "../../simulator/codes";
import { errcodeSimulator, type CredentialErrors } from "../../simulator/errcode-simulator";
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
});

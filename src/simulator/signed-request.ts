/** What the simulated signed APIs share: the user-state signature check over the body as received. */
import crypto from "node:crypto";
import { loginStateSignature } from "../core/open-data-crypto";
import { MALFORMED_BODY, param, type PlatformSimContext, type SimRequest } from "./platform-simulator";

export type SignatureCheck = "ok" | "bad_sig_method" | "no_openid" | "invalid_signature";

/**
 * Checks `signature` (query) = hex HMAC-SHA256(the player's current session key, the raw body), as
 * the platforms do (platform-apis-3.md §4): a key replaced by a later login, or never issued to this
 * openid on this app, fails like a wrong one.
 */
export function checkPlayerSignature(req: SimRequest, sim: PlatformSimContext, appId: string): SignatureCheck {
  if (param(req.query, "sig_method") !== "hmac_sha256") return "bad_sig_method";
  const openid = param(req.query, "openid");
  if (!openid) return "no_openid";
  const current = sim.currentSessionKey(appId, openid);
  const signature = param(req.query, "signature");
  if (!current || req.rawBody === undefined || !/^[0-9a-f]{64}$/.test(signature)) return "invalid_signature";
  const expected = Buffer.from(loginStateSignature(current, req.rawBody), "hex");
  return crypto.timingSafeEqual(expected, Buffer.from(signature, "hex")) ? "ok" : "invalid_signature";
}

/** The JSON object body, or undefined for none or a malformed one. */
export function objectBody(req: SimRequest): Record<string, unknown> | undefined {
  return req.body === MALFORMED_BODY || req.body === undefined ? undefined : req.body;
}

/** `[{key, value}]` with string keys and values of the given type, or undefined when the list is not that. */
export function entryList<V>(value: unknown, isValue: (v: unknown) => v is V): Array<{ key: string; value: V }> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const entries: Array<{ key: string; value: V }> = [];
  for (const item of value) {
    if (!item || typeof item !== "object") return undefined;
    const { key, value: v } = item as Record<string, unknown>;
    if (typeof key !== "string" || !isValue(v)) return undefined;
    entries.push({ key, value: v });
  }
  return entries;
}

export const isString = (v: unknown): v is string => typeof v === "string";
export const isInteger = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

export const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

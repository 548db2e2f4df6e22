import { loginStateSignature } from "../../core/open-data-crypto";

/**
 * The user-state signature of a call made on a player's behalf (platform-apis-3.md §1, §4): hex
 * HMAC-SHA256 keyed by the session key's text over the exact body string. The body is serialised here
 * once; http-json sends `JSON.stringify` of the same object, which yields the same string (no
 * toJSON or getters in these plain objects), so the signed bytes are the sent bytes.
 */
export function signedBody<T extends object>(body: T, sessionKey: string): { body: T; signature: string } {
  return { body, signature: loginStateSignature(sessionKey, JSON.stringify(body)) };
}

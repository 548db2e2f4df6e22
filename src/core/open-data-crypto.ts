/**
 * The mini-game platforms' player-data cryptography (platform-apis.md §3, §4; part 2 §2.2, §4.5),
 * shared by WeChat, Douyin and QQ: pure functions, no I/O.
 */
import crypto from "node:crypto";

const AES_BLOCK_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict standard base64 (what the client APIs hand out); undefined for anything else. */
function decodeBase64(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, "base64") : undefined;
}

export interface EncryptedInput {
  ciphertext: Buffer;
  iv: Buffer;
}

/**
 * Checks the shape of `encryptedData` and `iv` before any key is involved: base64, a 16-byte iv,
 * whole AES blocks. Returns the problems, so the edge can report them as invalid input.
 */
export function parseEncryptedInput(encryptedData: string, iv: string): EncryptedInput | { problems: { field: string; message: string }[] } {
  const problems: { field: string; message: string }[] = [];
  const ciphertext = decodeBase64(encryptedData);
  if (!ciphertext || ciphertext.length === 0 || ciphertext.length % AES_BLOCK_BYTES !== 0) {
    problems.push({ field: "encryptedData", message: "must be base64 of whole 16-byte AES blocks" });
  }
  const ivBytes = decodeBase64(iv);
  if (!ivBytes || ivBytes.length !== AES_BLOCK_BYTES) problems.push({ field: "iv", message: "must be base64 of 16 bytes" });
  if (problems.length > 0 || !ciphertext || !ivBytes) return { problems };
  return { ciphertext, iv: ivBytes };
}

/**
 * AES-128-CBC with PKCS#7, key = base64-decoded session key. Returns the JSON object, or undefined
 * when the key does not fit the data: bad padding, or plaintext that is not a JSON object (the
 * player logged in again, so the data was encrypted under a newer key).
 */
export function decryptOpenData(input: EncryptedInput, sessionKey: string): Record<string, unknown> | undefined {
  const key = decodeBase64(sessionKey);
  if (!key || key.length !== AES_BLOCK_BYTES) return undefined;
  let plaintext: string;
  try {
    const decipher = crypto.createDecipheriv("aes-128-cbc", key, input.iv);
    plaintext = Buffer.concat([decipher.update(input.ciphertext), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(plaintext);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The inverse of decryptOpenData, for the simulator and tests: what the platform does on the client's behalf. */
export function encryptOpenData(data: Record<string, unknown>, sessionKey: string, iv: Buffer = crypto.randomBytes(AES_BLOCK_BYTES)): { encryptedData: string; iv: string } {
  const key = decodeBase64(sessionKey);
  if (!key || key.length !== AES_BLOCK_BYTES) throw new RangeError("a session key is base64 of 16 bytes");
  const cipher = crypto.createCipheriv("aes-128-cbc", key, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(data), "utf8"), cipher.final()]);
  return { encryptedData: ciphertext.toString("base64"), iv: iv.toString("base64") };
}

/** The `watermark.appid` of decrypted data, or "" when absent. */
export function watermarkAppId(data: Record<string, unknown>): string {
  const watermark = data.watermark;
  if (!watermark || typeof watermark !== "object") return "";
  const appid = (watermark as Record<string, unknown>).appid;
  return typeof appid === "string" ? appid : "";
}

/** `sha1(rawData + session_key)` in lowercase hex: the signature of `getUserInfo`'s rawData. */
export function rawDataSignature(rawData: string, sessionKey: string): string {
  return crypto.createHash("sha1").update(rawData + sessionKey, "utf8").digest("hex");
}

/** Constant-time check of a rawData signature; any other length or case of hex is simply a mismatch. */
export function verifyRawDataSignature(rawData: string, sessionKey: string, signature: string): boolean {
  const expected = Buffer.from(rawDataSignature(rawData, sessionKey));
  const presented = Buffer.from(signature);
  return expected.length === presented.length && crypto.timingSafeEqual(expected, presented);
}

/**
 * The login-state signature of checksession / check_session_key: HMAC-SHA256 in lowercase hex,
 * keyed by the session key's base64 *text* (not its bytes; verified against the published vector).
 * GET APIs sign the empty string.
 */
export function loginStateSignature(sessionKey: string, message = ""): string {
  return crypto.createHmac("sha256", sessionKey).update(message, "utf8").digest("hex");
}

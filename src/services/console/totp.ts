/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) with node:crypto: HMAC-SHA1, 30 s
 * steps, 6 digits, as every authenticator app reads from an otpauth:// URI. Secrets are Base32
 * (RFC 4648) without padding.
 */
import crypto from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
export const TOTP_STEP_SEC = 30;
const DIGITS = 6;

export function newTotpSecret(): string {
  return base32Encode(crypto.randomBytes(20));
}

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch);
    if (index === -1) throw new Error("not Base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP for a counter; `secret` as raw bytes. */
export function hotp(secret: Buffer, counter: number, digits = DIGITS, algorithm: "sha1" | "sha256" | "sha512" = "sha1"): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(code).padStart(digits, "0");
}

/** The code for a time (ms since the epoch). */
export function totpAt(secretBase32: string, atMs: number): string {
  return hotp(base32Decode(secretBase32), Math.floor(atMs / 1000 / TOTP_STEP_SEC));
}

/**
 * The time step `code` is valid for at `atMs`, allowing one step of clock drift either way, or null.
 * The caller refuses a step already used (a code is good once).
 */
export function verifyTotp(secretBase32: string, code: string, atMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  let secret: Buffer;
  try {
    secret = base32Decode(secretBase32);
  } catch {
    return null; // a seed no key could decrypt (seed-cipher.ts): no code opens it
  }
  const step = Math.floor(atMs / 1000 / TOTP_STEP_SEC);
  const given = Buffer.from(code);
  for (const candidate of [step, step - 1, step + 1]) {
    if (candidate >= 0 && crypto.timingSafeEqual(Buffer.from(hotp(secret, candidate)), given)) return candidate;
  }
  return null;
}

/** What an authenticator app scans or takes as a link. */
export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secretBase32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${TOTP_STEP_SEC}`;
}

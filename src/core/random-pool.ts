import crypto from "node:crypto";

/**
 * CSPRNG bytes drawn from a pool refilled 4 KiB at a time. A randomBytes/randomFillSync call costs
 * several microseconds whatever its size, and a login needs a few small draws (token ids; for a new
 * player also a name suffix, a password and a salt). Each byte is handed out once.
 */
const POOL = Buffer.alloc(4096);
let offset = POOL.length;

/** Where the next `length` unused bytes start in the pool (refilled when they would not fit). */
function take(length: number): number {
  if (offset + length > POOL.length) {
    crypto.randomFillSync(POOL);
    offset = 0;
  }
  offset += length;
  return offset - length;
}

/** `length` fresh random bytes, copied out of the pool (larger requests straight from the CSPRNG). */
export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL.length) return crypto.randomBytes(length);
  const start = take(length);
  return Buffer.from(POOL.subarray(start, start + length));
}

/** 128 random bits, base64url: token ids and session ids (encoded from the pool, no copy). */
export function randomId(): string {
  const start = take(16);
  return POOL.toString("base64url", start, start + 16);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * A new user's primary key: a version 7 UUID (RFC 9562), 48 bits of Unix milliseconds then 74
 * random bits. Keys made close in time sort close together, so a new user lands in the index page
 * the previous one touched instead of a random one: fewer pages written per insert on SQLite and
 * PostgreSQL alike, and a burst of sign-ups shares its pages in one commit.
 * It shows when the account was made, to the millisecond, which the account's createdAt already says.
 */
export function uuidV7(nowMs = Date.now()): string {
  const bytes = POOL.subarray(take(16));
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  let out = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += "-";
    out += HEX[bytes[i]];
  }
  return out;
}

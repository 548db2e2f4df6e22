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

import crypto from "node:crypto";

/**
 * CSPRNG bytes drawn from a pool refilled 4 KiB at a time. A randomBytes/randomFillSync call costs
 * several microseconds whatever its size, and a login needs a few small draws (token ids; for a new
 * player also a name suffix, a password and a salt). Each byte is handed out once.
 */
const POOL = Buffer.alloc(4096);
let offset = POOL.length;

/** `length` fresh random bytes (at most the pool's size), copied out of the pool. */
export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL.length) return crypto.randomBytes(length);
  if (offset + length > POOL.length) {
    crypto.randomFillSync(POOL);
    offset = 0;
  }
  const bytes = Buffer.from(POOL.subarray(offset, offset + length));
  offset += length;
  return bytes;
}

/** 128 random bits, base64url: token ids and session ids. */
export function randomId(): string {
  return pooledRandomBytes(16).toString("base64url");
}

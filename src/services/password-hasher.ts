import crypto from "node:crypto";
import { promisify } from "node:util";
import { pooledRandomBytes } from "../core/random-pool";

const scrypt = promisify(crypto.scrypt) as (
  password: string | Buffer,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt (memory-hard) with a per-password 16-byte salt: N=2^15, r=8, p=1 (32 MiB), 32-byte key.
 * Parameters are stored with the hash so they can be raised later without breaking old hashes.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const;
const MAXMEM = 64 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const { N, r, p, keyLength } = SCRYPT_PARAMS;
  const key = await scrypt(password, salt, keyLength, { N, r, p, maxmem: MAXMEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/**
 * Hash for a password nobody chose or knows (a platform user's random one). It has 256 bits of
 * entropy, so a slow KDF adds nothing but ~200 ms to every new player's first login; a salted
 * SHA-256 is enough. A password the owner chooses later always goes through scrypt.
 */
export function hashRandomPassword(password: string): string {
  const salt = pooledRandomBytes(16);
  const digest = crypto.createHash("sha256").update(salt).update(password).digest();
  return `sha256$${salt.toString("base64")}$${digest.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith("sha256$")) return verifyRandomPassword(password, stored);
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: MAXMEM });
  return crypto.timingSafeEqual(key, expected);
}

function verifyRandomPassword(password: string, stored: string): boolean {
  const [, salt, digest] = stored.split("$");
  if (!salt || !digest) return false;
  const expected = Buffer.from(digest, "base64");
  const actual = crypto.createHash("sha256").update(Buffer.from(salt, "base64")).update(password).digest();
  return expected.length === actual.length && crypto.timingSafeEqual(actual, expected);
}

/** A password nobody knows: what a mini-game user gets at creation (spec 2.3 rule 2). */
export function randomPassword(): string {
  return pooledRandomBytes(32).toString("base64url");
}

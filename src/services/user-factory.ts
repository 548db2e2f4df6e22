import { pooledRandomBytes, uuidV7 } from "../core/random-pool";
import type { NewUser } from "../core/ports/user-store";
import { hashRandomPassword, randomPassword } from "./password-hasher";

const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export function randomSuffix(length = 10): string {
  const bytes = pooledRandomBytes(length);
  let out = "";
  for (const b of bytes) out += SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length];
  return out;
}

/**
 * A user created by a platform login: placeholder username `mg_<platform>_<suffix>` and email
 * `<platform>_<suffix>@<domain>` (spec 2.3), and a random password stored only as a hash.
 */
export function newPlatformUser(platform: string, openid: string, emailDomain: string, now: Date): NewUser {
  const suffix = randomSuffix();
  return {
    id: uuidV7(),
    username: `mg_${platform}_${suffix}`,
    email: `${platform}_${suffix}@${emailDomain}`,
    passwordHash: hashRandomPassword(randomPassword()),
    openid,
    createdAt: now.toISOString(),
  };
}

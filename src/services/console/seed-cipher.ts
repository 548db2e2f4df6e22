/**
 * TOTP seeds encrypted at rest: AES-256-GCM under a key derived (HKDF-SHA256) from
 * CONSOLE_SECRET_KEY, or from JWT_SECRET where that is unset (development, and a production CLI run
 * before the console is turned on). A stored seed reads `enc1:<key id>:<iv>:<ciphertext>:<tag>`,
 * bound to its operator's id, so a copied value does not open another operator's account. Older
 * keys (CONSOLE_PREVIOUS_SECRET_KEYS, the JWT-derived one) still decrypt; a seed stored in the clear
 * by an earlier version reads as it is. Both are re-encrypted under the current key (`needsUpgrade`).
 */
import crypto from "node:crypto";

/** Key material, each labelled by where it came from (`console:` or `jwt:`) so the two never coincide. */
export interface SeedKeys {
  current: string;
  /** Keys that may have encrypted stored seeds: they decrypt, nothing is encrypted with them. */
  previous: readonly string[];
}

const PREFIX = "enc1";
/** What a seed no key can decrypt reads as: no code ever verifies against it. */
export const UNREADABLE_SEED = "!unreadable";

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(material: string): Key {
  const bytes = Buffer.from(crypto.hkdfSync("sha256", material, "arena-console-totp-seed", "v1", 32));
  return { id: crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
}

export class SeedCipher {
  private readonly current: Key;
  private readonly keys = new Map<string, Key>();

  constructor(keys: SeedKeys) {
    this.current = deriveKey(keys.current);
    for (const key of [this.current, ...keys.previous.map(deriveKey)]) if (!this.keys.has(key.id)) this.keys.set(key.id, key);
  }

  encrypt(seed: string, operatorId: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv("aes-256-gcm", this.current.bytes, iv);
    cipher.setAAD(Buffer.from(operatorId));
    const body = Buffer.concat([cipher.update(seed, "utf8"), cipher.final()]);
    return [PREFIX, this.current.id, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(":");
  }

  /** The seed; a clear one (stored before encryption) as it is; UNREADABLE_SEED when no key fits. */
  decrypt(stored: string, operatorId: string): string {
    if (!stored.startsWith(`${PREFIX}:`)) return stored;
    const [, keyId, iv, body, tag] = stored.split(":");
    const key = this.keys.get(keyId ?? "");
    if (!key || !iv || !body || !tag) return UNREADABLE_SEED;
    try {
      const decipher = crypto.createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(operatorId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return UNREADABLE_SEED;
    }
  }

  /** True for a seed in the clear or under an older key, which a key holder should write again. */
  needsUpgrade(stored: string): boolean {
    if (!stored.startsWith(`${PREFIX}:`)) return true;
    const keyId = stored.split(":")[1];
    return keyId !== this.current.id && this.keys.has(keyId ?? "");
  }
}

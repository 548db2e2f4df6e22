import crypto from "node:crypto";
import type { TextScene, TextVerdict } from "../platforms/platform";

/**
 * A short per-process memory of platform verdicts for identical text, so a repeated message (spam,
 * "gg", a copied nickname) costs no platform quota. Bounded: the least recently used entry goes first.
 */
export class VerdictCache {
  private readonly entries = new Map<string, { verdict: TextVerdict; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(platform: string, scene: TextScene, text: string): TextVerdict | undefined {
    const key = cacheKey(platform, scene, text);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry); // most recently used last
    return entry.verdict;
  }

  set(platform: string, scene: TextScene, text: string, verdict: TextVerdict): void {
    if (this.maxEntries <= 0 || this.ttlMs <= 0) return;
    const key = cacheKey(platform, scene, text);
    this.entries.delete(key);
    this.entries.set(key, { verdict, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

/** Hashed, so the cache holds no player text. */
function cacheKey(platform: string, scene: TextScene, text: string): string {
  return `${platform}\0${scene}\0${crypto.createHash("sha256").update(text).digest("base64url")}`;
}

/**
 * Login codes and player ids for the platform simulator.
 *
 * How the simulator behaves (wire text follows /work/shared/spec/platform-apis.md §1, §2, §4, §5, §8):
 *
 * Codes
 * - A code is 1–128 characters of [A-Za-z0-9._-]. The player is the part before the first ".",
 *   so `alice`, `alice.1` and `alice.2` are three codes of one player. A code with an empty player
 *   part (".1") or any other shape is rejected: WeChat 40029 `invalid code`, Douyin 40018 `bad code`
 *   (40019 `bad anonymous_code` when it came as `anonymous_code`), Douyin `error` 3.
 * - A player part starting with one of these words picks an outcome, so tests can provoke it:
 *     invalid…      rejected as above
 *     blocked…      WeChat 40226 `code blocked`; Douyin: same as invalid
 *     busy…         system error -1 (Douyin `error` 1, message `system error`)
 *     ratelimited…  WeChat 45011 `api minute-quota reach limit mustslower retry next minute`; Douyin -1
 *     noopenid…     success with a unionid but no openid (WeChat omits the key, Douyin sends "")
 *     noid…         success with neither openid nor unionid (an anonymous_code still yields its
 *                   anonymous_openid unless it is itself `noid…`/`noopenid…`)
 * - Each code works once. Only a successful exchange consumes it: every outcome above is decided by
 *   the code itself, and a busy or rate-limited request never reached the point of using the code, so
 *   a retry must see the same answer again. Reuse is WeChat 40163 `code been used`, Douyin 40018
 *   `bad code` (40019 for anonymous_code). Douyin consumes both codes of a login, and only if both pass.
 * - The simulator cannot know when the client obtained a code, so the 5-minute validity becomes a
 *   5-minute memory of consumed codes, measured on the injectable clock. Older entries are purged on
 *   every request (and the oldest are dropped beyond MAX_REMEMBERED_CODES); after that a reused code
 *   would be accepted again. Real codes would have expired by then anyway, so no honest client notices.
 *
 * Ids
 * - Deterministic per (platform, app id, player): HMAC-SHA256 under a fixed simulator key, so a restart
 *   or another process running the simulator hands out the same ids.
 *   WeChat openid: `o` + 27 base64url characters (28 in all). Douyin openid: `_000` + 32 base64url.
 * - unionid is per (platform, player) and does not depend on the app id: two apps of one platform see
 *   the same unionid, which is what a unionid is for. WeChat and Douyin unionids differ, as they are
 *   separate account systems. WeChat: `o` + 27 base64url; Douyin: a UUID-shaped hex string.
 * - Douyin anonymous_openid is derived from the anonymous code's player under its own label, so it
 *   never equals the openid of the same player name.
 * - session_key is base64 of 16 fresh random bytes per login.
 */
import crypto from "node:crypto";
import type { Platform } from "./state";

export const CODE_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const CODE_MEMORY_MS = 5 * 60_000;
export const MAX_REMEMBERED_CODES = 200_000;

export type CodeOutcome = "ok" | "invalid" | "blocked" | "busy" | "ratelimited" | "noopenid" | "noid";

// Checked in this order; none of these words is a prefix of another.
const SPECIAL_PREFIXES: Exclude<CodeOutcome, "ok">[] = ["invalid", "blocked", "busy", "ratelimited", "noopenid", "noid"];

export interface ParsedCode {
  player: string;
  outcome: CodeOutcome;
}

/** Returns the player and outcome, or `undefined` when the code does not have the simulator's shape. */
export function parseCode(code: string): ParsedCode | undefined {
  if (!CODE_PATTERN.test(code)) return undefined;
  const dot = code.indexOf(".");
  const player = dot === -1 ? code : code.slice(0, dot);
  if (player === "") return undefined;
  const outcome = SPECIAL_PREFIXES.find((p) => player.startsWith(p)) ?? "ok";
  return { player, outcome };
}

// Fixed on purpose: ids must survive restarts. It protects nothing.
const ID_KEY = "minigame-platform-simulator/ids/v1";

function digest(...parts: string[]): Buffer {
  // NUL separators keep ("ab","c") and ("a","bc") apart.
  return crypto.createHmac("sha256", ID_KEY).update(parts.join("\0")).digest();
}

export function openidFor(platform: Platform, appId: string, player: string): string {
  const b64 = digest("openid", platform, appId, player).toString("base64url");
  return platform === "wechat" ? `o${b64.slice(0, 27)}` : `_000${b64.slice(0, 32)}`;
}

export function unionidFor(platform: Platform, player: string): string {
  const d = digest("unionid", platform, player);
  if (platform === "wechat") return `o${d.toString("base64url").slice(0, 27)}`;
  const h = d.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function anonymousOpenidFor(appId: string, player: string): string {
  return `_000${digest("anonymous_openid", "douyin", appId, player).toString("base64url").slice(0, 32)}`;
}

export function newSessionKey(): string {
  return crypto.randomBytes(16).toString("base64");
}

/** WeChat's request id suffix: `xxxxxxxx-xxxxxxxx-xxxxxxxx` in hex. */
export function newRid(): string {
  const h = crypto.randomBytes(12).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 16)}-${h.slice(16, 24)}`;
}

/**
 * Consumed codes with the time they were used. A Map keeps insertion order, which is time order
 * while the clock moves forward, so purging stops at the first entry that is still young.
 */
export class ConsumedCodes {
  private readonly usedAt = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  static key(platform: Platform, appId: string, kind: "code" | "anonymous_code", code: string): string {
    return `${platform}\0${appId}\0${kind}\0${code}`;
  }

  isUsed(key: string): boolean {
    this.purge();
    return this.usedAt.has(key);
  }

  markUsed(key: string): void {
    this.purge();
    this.usedAt.set(key, this.now());
    if (this.usedAt.size > MAX_REMEMBERED_CODES) {
      const oldest = this.usedAt.keys().next().value;
      if (oldest !== undefined) this.usedAt.delete(oldest);
    }
  }

  get size(): number {
    return this.usedAt.size;
  }

  purge(): void {
    const cutoff = this.now() - CODE_MEMORY_MS;
    for (const [key, at] of this.usedAt) {
      if (at > cutoff) break;
      this.usedAt.delete(key);
    }
  }
}

/**
 * Login codes and player ids for the platform simulator, shared by every platform's part.
 *
 * Codes
 * - A code is 1–128 characters of [A-Za-z0-9._-]. The player is the part before the first ".",
 *   so `alice`, `alice.1` and `alice.2` are three codes of one player. A code with an empty player
 *   part (".1") or any other shape is malformed; each platform answers it as its "invalid code".
 * - A player part starting with one of these words picks an outcome, so tests can provoke it; each
 *   platform module maps the outcome to its own error numbers (see its `*-simulator.ts`):
 *     invalid…      rejected as an invalid code
 *     blocked…      the platform's "user blocked", where it has one
 *     busy…         the platform's "system busy" (-1 on most)
 *     ratelimited…  the platform's quota error, where it has one
 *     noopenid…     success with a unionid but no openid
 *     noid…         success with neither openid nor unionid
 * - Each code works once. Only a successful exchange consumes it: every outcome above is decided by
 *   the code itself, and a busy or rate-limited request never reached the point of using the code, so
 *   a retry must see the same answer again.
 * - The simulator cannot know when the client obtained a code, so the 5-minute validity becomes a
 *   5-minute memory of consumed codes, measured on the injectable clock. Older entries are purged on
 *   every request (and the oldest are dropped beyond MAX_REMEMBERED_CODES); after that a reused code
 *   would be accepted again. Real codes would have expired by then anyway, so no honest client notices.
 *
 * Ids
 * - Deterministic per (platform, app id, player): HMAC-SHA256 under a fixed simulator key, so a restart
 *   or another process running the simulator hands out the same ids. Each platform module shapes the
 *   digest into its own id format.
 * - unionid is per (platform, player) and does not depend on the app id: two apps of one platform see
 *   the same unionid, which is what a unionid is for.
 * - session_key is base64 of 16 fresh random bytes per login.
 */
import crypto from "node:crypto";
import type { PlatformSimContext } from "./platform-simulator";

const CODE_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const CODE_MEMORY_MS = 5 * 60_000;
export const MAX_REMEMBERED_CODES = 200_000;

export type CodeOutcome = "ok" | "invalid" | "blocked" | "busy" | "ratelimited" | "noopenid" | "noid";

// Checked in this order; none of these words is a prefix of another.
const SPECIAL_PREFIXES: Exclude<CodeOutcome, "ok">[] = ["invalid", "blocked", "busy", "ratelimited", "noopenid", "noid"];

export interface ParsedCode {
  player: string;
  outcome: CodeOutcome;
}

/** Returns the player and outcome, or `undefined` when the code does not have the simulator's shape. */
function parseCode(code: string): ParsedCode | undefined {
  if (!CODE_PATTERN.test(code)) return undefined;
  const dot = code.indexOf(".");
  const player = dot === -1 ? code : code.slice(0, dot);
  if (player === "") return undefined;
  const outcome = SPECIAL_PREFIXES.find((p) => player.startsWith(p)) ?? "ok";
  return { player, outcome };
}

export type CodeKind = "code" | "anonymous_code";

/** Why a code is refused; each platform turns the reason into its own error reply. */
export type CodeRejection = "malformed" | "invalid" | "blocked" | "busy" | "ratelimited" | "used";

export type CodeVerdict =
  | { accepted: false; reason: CodeRejection }
  | { accepted: true; player: string; outcome: "ok" | "noopenid" | "noid"; consumedKey: string };

/**
 * Decides what a code yields, without consuming it: the caller marks `consumedKey` used once the
 * whole exchange succeeds (Douyin consumes both codes of a login only if both pass).
 */
export function judgeCode(sim: PlatformSimContext, appId: string, kind: CodeKind, code: string): CodeVerdict {
  const parsed = parseCode(code);
  if (!parsed) return { accepted: false, reason: "malformed" };
  const { outcome } = parsed;
  if (outcome !== "ok" && outcome !== "noopenid" && outcome !== "noid") return { accepted: false, reason: outcome };
  const consumedKey = ConsumedCodes.key(sim.platform, appId, kind, code);
  if (sim.consumed.isUsed(consumedKey)) return { accepted: false, reason: "used" };
  return { accepted: true, player: parsed.player, outcome, consumedKey };
}

// Fixed on purpose: ids must survive restarts. It protects nothing.
const ID_KEY = "minigame-platform-simulator/ids/v1";

/** The deterministic digest every simulated id is cut from. */
export function idDigest(...parts: string[]): Buffer {
  // NUL separators keep ("ab","c") and ("a","bc") apart.
  return crypto.createHmac("sha256", ID_KEY).update(parts.join("\0")).digest();
}

/** 32 hex digits shaped as a UUID (8-4-4-4-12). */
export function uuidShaped(digest: Buffer): string {
  const h = digest.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function newSessionKey(): string {
  return crypto.randomBytes(16).toString("base64");
}

/** WeChat-style request id suffix: `xxxxxxxx-xxxxxxxx-xxxxxxxx` in hex. */
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

  static key(platform: string, appId: string, kind: CodeKind | "phone_code", code: string): string {
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

  purge(): void {
    const cutoff = this.now() - CODE_MEMORY_MS;
    for (const [key, at] of this.usedAt) {
      if (at > cutoff) break;
      this.usedAt.delete(key);
    }
  }
}

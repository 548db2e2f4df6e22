/**
 * What a row of LeanCloud's `_User` class says about a mini-game player, in this project's terms.
 *
 * The shapes followed (leancloud/docs, docs/sdk/authentication/guide.mdx "鉴权数据的保存" and the
 * UnionID sections; leancloud/javascript-sdk src/user.js; @leancloud/platform-adapters-weapp):
 * - `authData` is an object keyed by platform name; the mini-game one-call logins store
 *   `authData.lc_weapp` (WeChat) and `authData.lc_qqapp` (QQ) with `openid`, `session_key` and, when
 *   the login asked for it, `unionid`; custom platforms keep the id in `uid`, not `openid`.
 * - A main account for a UnionID also has `authData._<unionIdPlatform>_unionid: {uid}` (`_weixin_unionid`,
 *   `_qq_unionid`).
 * - `createdAt`/`updatedAt` are ISO strings in exports; other dates are `{__type: "Date", iso}`.
 * - Douyin/Toutiao players are under `authData.lc_tt`: the provider name of LeanCloud's Toutiao adapter
 *   (leancloud/adapters, packages/platform-adapters-toutiao/src/auth.ts), which sends only tt.login's
 *   `code` for LeanCloud's server to exchange. `lc_toutiao` is read too, as an alias.
 * Unconfirmed (followed, and said in docs/migrate-from-leancloud.md): which fields LeanCloud's server
 * keeps in `lc_tt` (its code is not public): read as the exchange's answer is shaped, `openid`,
 * `anonymous_openid` and `unionid` (code2Session), with `uid` as for custom platforms; and the profile
 * fields, which are the game's own columns (`nickName`/`avatarUrl` when the game saved
 * wx.getUserInfo's result, `nickname`/`avatar` otherwise).
 */

/** authData key → this project's platform, for the keys LeanCloud's mini-game logins write. */
export const LEANCLOUD_AUTH_PLATFORMS: Readonly<Record<string, string>> = {
  lc_weapp: "wechat",
  lc_qqapp: "qq",
  lc_tt: "douyin",
  lc_toutiao: "douyin",
};

/** The unionIdPlatform LeanCloud's SDK uses by default for each mini-game key. */
const DEFAULT_UNION_PLATFORM: Readonly<Record<string, string>> = { lc_weapp: "weixin", lc_qqapp: "qq" };

export interface LeanCloudIdentity {
  /** This project's platform name. */
  platform: string;
  openid?: string;
  /** Douyin's id of a player who logged in without a Douyin account (code2Session's anonymous_openid). */
  anonymousOpenid?: string;
  unionid?: string;
}

export interface LeanCloudPlayer {
  objectId: string;
  /** ISO 8601, when the export has a valid one. */
  createdAt?: string;
  username?: string;
  email?: string;
  /** As written in the export (not trimmed): the importer applies the API's text rules to it. */
  nickname?: string;
  /** As written in the export, like the nickname. */
  avatar?: string;
  identities: LeanCloudIdentity[];
}

export type LeanCloudUserReading = { player: LeanCloudPlayer } | { skip: "no_object_id" | "no_platform_identity"; objectId?: string };

/** Reads one `_User` row; `platforms` maps authData keys to ours (LEANCLOUD_AUTH_PLATFORMS plus the operator's). */
export function readLeanCloudUser(row: Record<string, unknown>, platforms: Readonly<Record<string, string>>): LeanCloudUserReading {
  const objectId = text(row.objectId);
  if (!objectId) return { skip: "no_object_id" };
  const authData = isObject(row.authData) ? row.authData : {};
  const identities: LeanCloudIdentity[] = [];
  for (const [key, platform] of Object.entries(platforms)) {
    const entry = authData[key];
    if (!isObject(entry)) continue;
    const openid = text(entry.openid) ?? text(entry.uid);
    const anonymousOpenid = text(entry.anonymous_openid);
    const unionPlatform = text(entry.platform) ?? DEFAULT_UNION_PLATFORM[key];
    const mainUnion = unionPlatform ? authData[`_${unionPlatform}_unionid`] : undefined;
    const unionid = text(entry.unionid) ?? (isObject(mainUnion) ? text(mainUnion.uid) : undefined);
    if (!openid && !anonymousOpenid && !unionid) continue;
    // lc_tt and its alias lc_toutiao in one row: one identity.
    const same = identities.find((i) => i.platform === platform && i.openid === openid && i.anonymousOpenid === anonymousOpenid && i.unionid === unionid);
    if (!same) identities.push({ platform, openid, ...(anonymousOpenid ? { anonymousOpenid } : {}), unionid });
  }
  if (identities.length === 0) return { skip: "no_platform_identity", objectId };
  return {
    player: {
      objectId,
      createdAt: isoTime(row.createdAt),
      username: text(row.username),
      email: text(row.email),
      nickname: untrimmed(row.nickName) ?? untrimmed(row.nickname),
      avatar: untrimmed(row.avatarUrl) ?? untrimmed(row.avatar),
      identities,
    },
  };
}

/** `--platform lc_custom=wechat,…` (the flag given once or more) on top of the defaults; a problem names the part that is wrong. */
export function parsePlatformMap(specs: string | readonly string[] | undefined, known: readonly string[]): Record<string, string> | string {
  const map: Record<string, string> = { ...LEANCLOUD_AUTH_PLATFORMS };
  const parts = (typeof specs === "string" ? [specs] : (specs ?? [])).flatMap((spec) => spec.split(","));
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const [key, platform] = part.split("=").map((p) => p.trim());
    if (!key || !platform) return `--platform: "${part}" is not <authData key>=<platform>`;
    if (!known.includes(platform)) return `--platform: "${platform}" is not a platform of this server (${known.join(", ")})`;
    map[key] = platform;
  }
  return map;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** Text kept as written (the text rules judge it whole), or undefined when blank. */
function untrimmed(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isoTime(value: unknown): string | undefined {
  const raw = typeof value === "string" ? value : isObject(value) && value.__type === "Date" ? value.iso : undefined;
  if (typeof raw !== "string") return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

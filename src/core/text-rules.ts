/**
 * What text players write may contain, for every edge: the HTTP profile (nickname, avatar) and the
 * rooms (chat). One rule, so a name refused on one edge is refused on the other. Refused, not
 * stripped: silently changing what a player typed would show them something they did not write.
 */

/**
 * Characters that no display text needs and that are used to deceive or to break layouts:
 * - controls, C0 (newline and tab included), DEL and C1 (`\p{Cc}`);
 * - format characters (`\p{Cf}`): bidi embeddings, overrides and isolates (U+202A–202E,
 *   U+2066–2069) that reverse how a name or message reads, directional marks, zero-width space,
 *   word joiner, BOM, soft hyphen, tag characters (invisible "ASCII smuggling");
 *   except ZWNJ and ZWJ (U+200C, U+200D), which Persian, Indic scripts and emoji sequences need;
 * - line and paragraph separators (U+2028, U+2029) and lone surrogates (not text at all);
 * - Hangul fillers (U+115F, U+1160, U+3164, U+FFA0): blank-looking letters used for invisible names.
 */
const FORBIDDEN_CHARACTER = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u;

export const FORBIDDEN_TEXT_MESSAGE = "must not contain control, bidi-override or invisible characters";

/** True when the text has none of the forbidden characters above. */
export function isCleanText(text: string): boolean {
  return !FORBIDDEN_CHARACTER.test(text);
}

/** The longest nickname and avatar URL a profile takes (UTF-16 units, as the API counts them). */
export const NICKNAME_MAX_LENGTH = 32;
export const AVATAR_MAX_LENGTH = 512;

/**
 * The nickname the profile API would store for `raw`, or undefined where it would refuse it: the text
 * rule judges the text as sent (a leading or trailing BOM is refused, not trimmed away), then it is
 * trimmed and must be 1 to NICKNAME_MAX_LENGTH long. For text that did not come through the API (the
 * LeanCloud import); profilePatchBody applies the same steps with a message for each.
 */
export function acceptedNickname(raw: string): string | undefined {
  if (!isCleanText(raw)) return undefined;
  const nickname = raw.trim();
  return nickname.length >= 1 && nickname.length <= NICKNAME_MAX_LENGTH ? nickname : undefined;
}

/** Whether the profile API would store `raw` as the avatar (as sent: an avatar is not trimmed). */
export function acceptedAvatar(raw: string): boolean {
  return raw.length <= AVATAR_MAX_LENGTH && isSafeAvatarUrl(raw);
}

/** Characters an avatar URL must not contain, even where a URL parser would accept or re-encode them. */
const UNSAFE_IN_URL = /[\s"'`<>\\]/u;

export const AVATAR_URL_MESSAGE = "must be an https URL without spaces, quotes, angle brackets, backslashes or control characters";

/**
 * An avatar is shown as an image by every client: an https URL with a host, written as sent
 * (no characters a client could read as markup or that a parser would silently repair).
 */
export function isSafeAvatarUrl(value: string): boolean {
  if (!isCleanText(value) || UNSAFE_IN_URL.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

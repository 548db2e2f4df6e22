/** Settings of Douyin live-stream games (docs/douyin-live.md). */
import { z } from "zod";
import { bool, int, splitList } from "../config-types";
import type { SettingProblem } from "../config-types";

/** Douyin: the push secret is chosen by the developer, ASCII, under 100 characters. */
const pushSecret = z
  .string()
  .regex(/^[\x21-\x7e]{1,99}$/, "must be 1–99 printable ASCII characters (Douyin's limit)")
  .optional();

export const douyinLiveShape = {
  DOUYIN_LIVE_ENABLED: bool.default(false),
  /** Under /api; the URL registered in Douyin's console for every message type (x-msg-type tells them apart). */
  DOUYIN_LIVE_PUSH_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9_-]+){1,4}$/, "must be a path like /douyin-live/push")
    .default("/douyin-live/push"),
  DOUYIN_LIVE_SECRET_COMMENT: pushSecret,
  DOUYIN_LIVE_SECRET_GIFT: pushSecret,
  DOUYIN_LIVE_SECRET_LIKE: pushSecret,
  DOUYIN_LIVE_SECRET_FANSCLUB: pushSecret,
  DOUYIN_LIVE_API_BASE_URL: z.string().regex(/^https?:\/\//, "must be an http(s) URL").optional(),
  /** sec_gift_ids pinned in the live room's gift panel at launch. */
  DOUYIN_LIVE_TOP_GIFTS: z.string().optional(),
  DOUYIN_LIVE_PENDING_SEC: int(1, 600).default(30),
  DOUYIN_LIVE_FAILED_DATA_POLL_SEC: int(5, 3600).default(30),
};

type DouyinLiveSettings = z.output<z.ZodObject<typeof douyinLiveShape>>;

export function douyinLiveConfig(s: DouyinLiveSettings) {
  const secrets = {
    live_comment: s.DOUYIN_LIVE_SECRET_COMMENT,
    live_gift: s.DOUYIN_LIVE_SECRET_GIFT,
    live_like: s.DOUYIN_LIVE_SECRET_LIKE,
    live_fansclub: s.DOUYIN_LIVE_SECRET_FANSCLUB,
  };
  return {
    douyinLive: {
      enabled: s.DOUYIN_LIVE_ENABLED,
      pushPath: s.DOUYIN_LIVE_PUSH_PATH,
      /** One secret per message type; a type without one is neither started nor accepted. */
      secrets,
      apiBaseUrl: s.DOUYIN_LIVE_API_BASE_URL,
      topGiftIds: splitList(s.DOUYIN_LIVE_TOP_GIFTS),
      pendingMs: s.DOUYIN_LIVE_PENDING_SEC * 1000,
      failedDataPollMs: s.DOUYIN_LIVE_FAILED_DATA_POLL_SEC * 1000,
    },
  };
}

/** Enabled needs at least one secret; production wants secrets no one guesses, each its own. */
export function douyinLiveProblems(s: DouyinLiveSettings, production: boolean, isPlaceholder: (v: string) => boolean): SettingProblem[] {
  if (!s.DOUYIN_LIVE_ENABLED) return [];
  const set = (["COMMENT", "GIFT", "LIKE", "FANSCLUB"] as const).map((t) => ({ key: `DOUYIN_LIVE_SECRET_${t}`, value: s[`DOUYIN_LIVE_SECRET_${t}`] })).filter((e) => e.value);
  const problems: SettingProblem[] = [];
  if (set.length === 0) problems.push({ key: "DOUYIN_LIVE_SECRET_GIFT", message: "DOUYIN_LIVE_ENABLED needs the push secret of at least one message type" });
  if (!production) return problems;
  for (const { key, value } of set) {
    if (value!.length < 16 || isPlaceholder(value!)) problems.push({ key, message: "must be at least 16 characters and not a placeholder in production" });
  }
  if (new Set(set.map((e) => e.value)).size < set.length) problems.push({ key: set[0].key, message: "each message type needs its own secret in production" });
  return problems;
}

/**
 * Settings of the growth surfaces (docs/growth.md): the studio's time zone that "once per day"
 * rewards (sidebar revisit, game-circle activity) count their days in, and where WeChat's risk rank
 * (getuserriskrank) is asked before a grant, with the rank that refuses or flags it; Douyin's feed
 * direct play (the secrets of its calls, where the ready scenes are saved).
 */
import { z } from "zod";
import { splitList, type SettingProblem } from "../config-types";

/** Grants the risk rank can guard (docs/growth.md). */
export const RISK_CHECKED_GRANTS = ["ad_reward", "gift_pack", "sidebar", "game_club"] as const;
export type RiskCheckedGrant = (typeof RISK_CHECKED_GRANTS)[number];

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const growthShape = {
  /** The studio's IANA time zone: the day of the daily growth rewards and of analytics' rollups (default Asia/Shanghai). */
  STUDIO_TIME_ZONE: z.string().trim().refine(isTimeZone, "must be an IANA time zone, e.g. Asia/Shanghai").optional(),
  /** Comma-separated grants to check the player's WeChat risk rank before: ad_reward, gift_pack, sidebar, game_club. Empty: none. */
  RISK_RANK_CHECKS: z
    .string()
    .default("")
    .refine((v) => splitList(v).every((g) => (RISK_CHECKED_GRANTS as readonly string[]).includes(g)), `must list only ${RISK_CHECKED_GRANTS.join(", ")}`),
  /** The lowest risk rank (0 normal … 4 highest, as WeChat reports it) that the action applies to. */
  RISK_RANK_THRESHOLD: z.coerce.number().int().min(1).max(4).default(3),
  /** refuse: such a grant is not made (403 risky_player); flag: it is made and logged as risky. */
  RISK_RANK_ACTION: z.enum(["refuse", "flag"]).default("flag"),
  /** How long a player's rank is kept before WeChat is asked again, in seconds. */
  RISK_RANK_CACHE_SEC: z.coerce.number().int().min(0).max(7 * 86_400).default(3600),
  /** What WeChat's getuserriskrank is told the scene is (WeChat: 0 registration, 1 marketing fraud, 2 UGC). */
  RISK_RANK_SCENE: z.coerce.number().int().min(0).max(2).default(1),
  /**
   * Douyin feed direct play: `appid:secret` pairs, comma-separated, the secret Douyin generated for
   * each app's feed ability (docs/growth.md). Empty: Douyin's calls are refused (no app is set up).
   */
  DOUYIN_FEED_SECRETS: z
    .string()
    .default("")
    .refine((v) => splitList(v).every((pair) => /^[A-Za-z0-9_-]+:\S+$/.test(pair)), "must be appid:secret pairs, comma-separated (the app id as Douyin writes it, e.g. tt1234abcd:…)"),
  /** The saves collection whose `scenes` object says which feed scenes a player has ready. */
  DOUYIN_FEED_COLLECTION: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, "must be a collection name: a-z, 0-9, _ (starting with a letter)").default("douyin_feed"),
  /** How long the scenes may take before Douyin is answered with none (Douyin waits 300 ms in all; production refuses more than 280). */
  DOUYIN_FEED_DEADLINE_MS: z.coerce.number().int().min(20).max(10_000).default(200),
};

type GrowthSettings = z.output<z.ZodObject<typeof growthShape>>;

export const DEFAULT_STUDIO_TIME_ZONE = "Asia/Shanghai";

/**
 * The studio's one time zone: STUDIO_TIME_ZONE, or ANALYTICS_TIME_ZONE, its deprecated alias (the name
 * analytics shipped with), so a deployment that set only the old name keeps its days.
 */
export function studioTimeZone(s: { STUDIO_TIME_ZONE?: string; ANALYTICS_TIME_ZONE?: string }): string {
  return s.STUDIO_TIME_ZONE ?? s.ANALYTICS_TIME_ZONE ?? DEFAULT_STUDIO_TIME_ZONE;
}

/** DOUYIN_FEED_SECRETS as [app id, secret] pairs (a secret may itself hold colons). */
function feedSecretPairs(value: string): Array<[string, string]> {
  return splitList(value).map((pair) => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)]);
}

/** Douyin waits 300 ms for the feed's answer: a longer wait for the scenes means no card (tests give slow stores more). */
const FEED_DEADLINE_PRODUCTION_MAX_MS = 280;

/** Production: no feed secret that is a placeholder; a feed deadline Douyin would not wait for. */
export function growthProductionProblems(s: GrowthSettings, isPlaceholder: (value: string) => boolean): SettingProblem[] {
  const problems = feedSecretPairs(s.DOUYIN_FEED_SECRETS)
    .filter(([, secret]) => isPlaceholder(secret))
    .map(([appId]) => ({ key: "DOUYIN_FEED_SECRETS", message: `the secret of ${appId} is still a placeholder` }));
  if (s.DOUYIN_FEED_DEADLINE_MS > FEED_DEADLINE_PRODUCTION_MAX_MS) {
    problems.push({ key: "DOUYIN_FEED_DEADLINE_MS", message: `must be at most ${FEED_DEADLINE_PRODUCTION_MAX_MS} in production: Douyin waits 300 ms for the whole answer` });
  }
  return problems;
}

export function growthConfig(s: GrowthSettings & { ANALYTICS_TIME_ZONE?: string }) {
  return {
    growth: {
      timeZone: studioTimeZone(s),
      riskRank: {
        checks: splitList(s.RISK_RANK_CHECKS) as RiskCheckedGrant[],
        threshold: s.RISK_RANK_THRESHOLD,
        action: s.RISK_RANK_ACTION,
        cacheSec: s.RISK_RANK_CACHE_SEC,
        scene: s.RISK_RANK_SCENE,
      },
      douyinFeed: {
        /** Douyin app id → the feed ability's secret. */
        secrets: Object.fromEntries(feedSecretPairs(s.DOUYIN_FEED_SECRETS)) as Record<string, string>,
        collection: s.DOUYIN_FEED_COLLECTION,
        deadlineMs: s.DOUYIN_FEED_DEADLINE_MS,
      },
    },
  };
}

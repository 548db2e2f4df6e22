/**
 * Settings of the reward sources (docs/economy-rewards.md): the keys a platform's consoles issue an
 * app for rewarded-ad callbacks and gift pushes. The default app's come from the environment; an
 * APPS_FILE entry's from its platform's `payments` object (`adToken`, `adAesKey`, `giftPushToken`,
 * `giftPushAesKey`). A source stays off for an app until its keys are set; with the embedded
 * simulator every app uses the simulator's keys where none are set.
 */
import { z } from "zod";
import type { SettingProblem } from "../config-types";

/** Test-only steps of a reward grant the process can be killed at (SIGKILL fault tests). */
export const REWARD_CRASH_POINTS = ["after_view_recorded", "after_mail_granted", "before_gift_granted"] as const;
export type RewardCrashPoint = (typeof REWARD_CRASH_POINTS)[number];

const key = z.string().trim().min(1).optional();
const aesKey = z.string().regex(/^[A-Za-z0-9+/]{43}$/, "must be the console's 43-character EncodingAESKey").optional();

export const rewardsShape = {
  /** The ad console's (流量主) server-side verification Token and EncodingAESKey (WeChat). */
  WECHAT_AD_TOKEN: key,
  WECHAT_AD_AES_KEY: aesKey,
  /** The mini-game message push's Token and EncodingAESKey (gift packs); unset: the payment push's. */
  WECHAT_GIFT_PUSH_TOKEN: key,
  WECHAT_GIFT_PUSH_AES_KEY: aesKey,
  /** Douyin's message push Token (gift pushes). */
  DOUYIN_GIFT_PUSH_TOKEN: key,
  /** Days a player's ad cap counts in: the offset of their day from UTC, in hours (China: 8). */
  AD_CAP_DAY_UTC_OFFSET_HOURS: z.coerce.number().int().min(-12).max(14).default(8),
  /** How long a mail lives when the operator names no expiry, in days. */
  MAIL_DEFAULT_EXPIRY_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Test-only: the process kills itself (SIGKILL) at this step. Refused in production. */
  REWARD_CRASH_POINT: z.enum(REWARD_CRASH_POINTS).optional(),
};

type RewardSettings = z.output<z.ZodObject<typeof rewardsShape>>;

export function rewardsConfig(s: RewardSettings) {
  return {
    rewards: {
      defaultApp: {
        wechat: { adToken: s.WECHAT_AD_TOKEN, adAesKey: s.WECHAT_AD_AES_KEY, giftPushToken: s.WECHAT_GIFT_PUSH_TOKEN, giftPushAesKey: s.WECHAT_GIFT_PUSH_AES_KEY },
        douyin: { giftPushToken: s.DOUYIN_GIFT_PUSH_TOKEN },
      } as Record<string, AppRewardKeys>,
      dayOffsetHours: s.AD_CAP_DAY_UTC_OFFSET_HOURS,
      mailDefaultExpiryDays: s.MAIL_DEFAULT_EXPIRY_DAYS,
      crashPoint: s.REWARD_CRASH_POINT,
    },
  };
}

/** One app's reward keys on one platform, as set. */
export interface AppRewardKeys {
  adToken?: string;
  adAesKey?: string;
  giftPushToken?: string;
  giftPushAesKey?: string;
}

export function rewardProductionProblems(s: RewardSettings, isPlaceholder: (value: string) => boolean): SettingProblem[] {
  const problems: SettingProblem[] = [];
  if (s.REWARD_CRASH_POINT) problems.push({ key: "REWARD_CRASH_POINT", message: "is for fault tests only; not allowed in production" });
  for (const name of ["WECHAT_AD_TOKEN", "WECHAT_GIFT_PUSH_TOKEN", "DOUYIN_GIFT_PUSH_TOKEN"] as const) {
    const value = s[name];
    if (value && isPlaceholder(value)) problems.push({ key: name, message: "still a placeholder" });
  }
  return problems;
}

/** An APPS_FILE entry as far as its WeChat gift-push keys go. */
interface GiftPushApp {
  key: string;
  platforms: Record<string, { payments?: { giftPushToken?: string; giftPushAesKey?: string } }>;
}

/**
 * WeChat gift pushes given a Token but no EncodingAESKey: each named by the setting that is missing.
 * Gift pushes are read in safe mode only (wechat-gift-push.ts), so such an app could never be
 * granted one. The default app's fall back to the payment push's Token only with its EncodingAESKey
 * (reward-wiring.ts), so only a gift-push Token of their own counts here.
 */
export function giftPushesWithoutAesKey(s: RewardSettings, fileApps: readonly GiftPushApp[]): Array<{ key: string; where: string }> {
  const missing: Array<{ key: string; where: string }> = [];
  if (s.WECHAT_GIFT_PUSH_TOKEN && !s.WECHAT_GIFT_PUSH_AES_KEY) missing.push({ key: "WECHAT_GIFT_PUSH_AES_KEY", where: "WECHAT_GIFT_PUSH_AES_KEY" });
  for (const app of fileApps) {
    const keys = app.platforms.wechat?.payments;
    if (keys?.giftPushToken && !keys.giftPushAesKey) missing.push({ key: "APPS_FILE", where: `${app.key}.wechat.payments.giftPushAesKey` });
  }
  return missing;
}

/**
 * The scripted week of the analytics tests (test/integration/analytics-week.test.ts, the console's
 * Analytics screen in Chromium): who did what on which day of the studio's calendar, the events
 * that says in a time zone, and the numbers it must give, worked out from the script's days.
 */
import crypto from "node:crypto";
import { ALL, RETENTION_DAYS, type AnalyticsEvent, type DailyRow, type RetentionRow } from "../../src/core/ports/analytics-store";
import { addDays, dayStart } from "../../src/services/analytics/zoned-days";

/** The clock stands on day 8 of the script. */
export const TODAY = 8;

export interface Step {
  day: number;
  /** Seconds after the local midnight: 0 and 86399 test the day's edges. */
  second: number;
  user: string;
  platform: string;
  name: string;
  props?: AnalyticsEvent["props"];
}

const login = (day: number, user: string, platform: string, isNew = false, second = 3600): Step => ({ day, second, user, platform, name: "login", props: { new: isNew } });
const paid = (day: number, user: string, platform: string, unit: string, revenue: number): Step => ({ day, second: 7200, user, platform, name: "order_delivered", props: { kind: "coin_spend", revenue, unit, coins: revenue } });
const ad = (day: number, user: string, platform: string, second = 9000): Step => ({ day, second, user, platform, name: "ad_reward", props: { adUnitId: "u1", granted: true } });
const session = (day: number, user: string, platform: string, seconds: number): Step => ({ day, second: 10_000, user, platform, name: "session_end", props: { room: "match", seconds } });
const bought = (day: number, user: string, platform: string, costs: Record<string, number>): Step => ({ day, second: 11_000, user, platform, name: "soft_purchase", props: { itemId: "potion", quantity: 1, ...Object.fromEntries(Object.entries(costs).map(([c, n]) => [`cost_${c}`, n])) } });
const granted = (day: number, user: string, platform: string, name: string, currencies: Record<string, number>): Step => ({ day, second: 12_000, user, platform, name, props: { source: "s", sourceId: `${name}-${day}-${user}`, items: 0, ...Object.fromEntries(Object.entries(currencies).map(([c, n]) => [`currency_${c}`, n])) } });

/** The week. a, b, d on wechat; c on douyin; e was a player before the week began. */
export const SCRIPT: Step[] = [
  login(0, "a", "wechat", true, 0), // the first second of day 0
  login(0, "b", "wechat", true, 86_399), // the last second of day 0
  login(0, "e", "wechat"),
  login(1, "a", "wechat"),
  paid(1, "a", "wechat", "wechat_coins", 60),
  login(1, "b", "wechat"),
  session(1, "b", "wechat", 600),
  login(1, "c", "douyin", true),
  login(2, "c", "douyin"),
  ad(2, "c", "douyin"),
  ad(2, "c", "douyin", 9100),
  granted(2, "c", "douyin", "mail_claimed", { gems: 7, gold: 100 }),
  login(2, "d", "wechat", true),
  login(3, "a", "wechat"),
  ad(3, "a", "wechat"),
  bought(3, "a", "wechat", { gems: 10 }),
  granted(3, "a", "wechat", "gift_granted", { gems: 5 }),
  granted(3, "a", "wechat", "currency_granted", { gems: 2 }), // the rewarded ad's gems
  paid(4, "c", "douyin", "douyin_price", 600),
  login(5, "e", "wechat"),
  session(5, "e", "wechat", 300),
  session(5, "e", "wechat", 101),
  login(7, "a", "wechat"),
  paid(7, "a", "wechat", "wechat_coins", 30),
  paid(7, "b", "wechat", "wechat_coins", 6),
  granted(7, "a", "wechat", "operator_grant", { gems: -3 }),
  login(8, "c", "douyin"),
];

/** The truth, worked out from the script's days (not from timestamps). */
export function truth(first: string, app: string, platform: string) {
  const steps = SCRIPT.filter((s) => platform === ALL || s.platform === platform);
  const on = (day: number) => steps.filter((s) => s.day === day);
  const players = (list: Step[]) => new Set(list.map((s) => s.user));
  const active = (from: number, to: number) => players(steps.filter((s) => s.day >= from && s.day <= to)).size;
  const newOn = (day: number) => players(on(day).filter((s) => s.name === "login" && s.props?.new === true));
  const daily: DailyRow[] = [];
  for (let day = 0; day <= TODAY; day++) {
    const revenue: Record<string, number> = {};
    for (const s of on(day).filter((x) => x.name === "order_delivered")) revenue[s.props!.unit as string] = (revenue[s.props!.unit as string] ?? 0) + (s.props!.revenue as number);
    const sessions = on(day).filter((s) => s.name === "session_end");
    daily.push({
      app, platform, date: addDays(first, day),
      dau: players(on(day)).size, wau: active(day - 6, day), mau: active(day - 29, day),
      newPlayers: newOn(day).size,
      sessions: sessions.length, sessionSeconds: sessions.reduce((n, s) => n + (s.props!.seconds as number), 0),
      payingPlayers: players(on(day).filter((s) => s.name === "order_delivered")).size,
      revenue, revenueCoins: Object.values(revenue).reduce((a, b) => a + b, 0),
      adViews: on(day).filter((s) => s.name === "ad_reward").length,
      softPurchases: on(day).filter((s) => s.name === "soft_purchase").length,
      softSources: sums(on(day), "currency_", (n) => n > 0),
      softSinks: sums(on(day), "cost_", () => true, sums(on(day), "currency_", (n) => n < 0)),
    });
  }
  const retention: RetentionRow[] = [];
  for (let day = 0; day <= TODAY; day++) {
    const cohort = newOn(day);
    if (cohort.size === 0) continue;
    const retained = {} as RetentionRow["retained"];
    for (const n of RETENTION_DAYS) retained[`d${n}`] = day + n > TODAY ? null : [...cohort].filter((u) => players(on(day + n)).has(u)).length;
    retention.push({ app, platform, date: addDays(first, day), size: cohort.size, retained });
  }
  return { daily, retention };
}

/** Per currency, the absolute amounts of the steps' `<prefix><currency>` props that pass `keep`. */
function sums(steps: Step[], prefix: string, keep: (amount: number) => boolean, start: Record<string, number> = {}): Record<string, number> {
  const out: Record<string, number> = { ...start };
  for (const step of steps) {
    for (const [key, value] of Object.entries(step.props ?? {})) {
      if (key.startsWith(prefix) && typeof value === "number" && keep(value)) out[key.slice(prefix.length)] = (out[key.slice(prefix.length)] ?? 0) + Math.abs(value);
    }
  }
  return out;
}

export function eventsIn(first: string, timeZone: string): AnalyticsEvent[] {
  return SCRIPT.map((s) => ({
    id: crypto.randomUUID(),
    name: s.name,
    app: "default",
    platform: s.platform,
    userId: s.user,
    at: new Date(dayStart(addDays(first, s.day), timeZone) + s.second * 1000).toISOString(),
    props: s.props ?? {},
    experiments: {},
    liveEvents: [],
  }));
}

/** A fixed shuffle: the events arrive out of order. */
export function shuffled<T>(list: T[]): T[] {
  const out = [...list];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}


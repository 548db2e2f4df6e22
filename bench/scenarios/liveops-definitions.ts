/**
 * The LiveOps definitions `GET /api/config` is measured with (issue 52: 50 flags, 5 experiments, 5
 * events), all running now: flags of every JSON type, some with audience-targeted values; audiences on
 * payer, days since first login, app version and platform; experiments in five layers, each with an
 * audience; events with flag overrides and ad reward multipliers.
 */
import fs from "node:fs";
import path from "node:path";

export function writeConfigDefinitions(dir: string): string {
  const now = Date.now();
  const day = 86_400_000;
  const window = { startsAt: new Date(now - day).toISOString(), endsAt: new Date(now + 30 * day).toISOString() };
  const audiences = [
    { audienceId: "payers", rule: { payer: true } },
    { audienceId: "new-players", rule: { daysSinceFirstLogin: { lt: 7 } } },
    { audienceId: "recent-client", rule: { appVersion: { gte: "1.4.0" } } },
    { audienceId: "wechat", rule: { platform: ["wechat"] } },
    { audienceId: "new-on-wechat", rule: { all: [{ audience: "new-players" }, { audience: "wechat" }] } },
  ];
  const defaults = (i: number): unknown => [`text ${i}`, i, i % 2 === 0, { level: i, tags: ["a", "b"] }][i % 4];
  const flags = Array.from({ length: 50 }, (_, i) => ({
    key: `flag_${i}`,
    default: defaults(i),
    description: `Bench flag ${i}`,
    ...(i % 5 === 0 ? { audiences: [{ audienceId: audiences[i % audiences.length].audienceId, value: defaults(i) }] } : {}),
  }));
  const experiments = Array.from({ length: 5 }, (_, i) => ({
    experimentId: `bench-exp-${i}`,
    layer: `layer-${i}`,
    audienceId: ["wechat", "new-players", "new-on-wechat", "recent-client", "wechat"][i],
    ...window,
    variants: [
      { variant: "control", weight: 50, flags: {} },
      { variant: "treatment", weight: 50, flags: { [`flag_${i * 4 + 1}`]: 1000 + i } },
    ],
  }));
  const events = Array.from({ length: 5 }, (_, i) => ({
    eventId: `bench-event-${i}`,
    name: `Bench event ${i}`,
    ...window,
    flags: { [`flag_${i * 4}`]: `event ${i}` },
    rewardMultipliers: { ads: 2 },
  }));
  const file = path.join(dir, "liveops-bench.json");
  fs.writeFileSync(file, JSON.stringify({ timeZone: "Asia/Shanghai", flags, audiences, experiments, events }));
  return file;
}

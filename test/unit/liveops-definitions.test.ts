/**
 * LiveOps definitions: every problem reported at once; audiences; stable, weighted, layered
 * experiment assignment; live event windows and schedules; the stated precedence.
 */
import assert from "node:assert/strict";
import { exampleCatalog } from "../../src/core/catalog";
import { checkDefinitions, exampleDefinitions, type LiveOpsDefinitions } from "../../src/core/liveops";
import { evaluate, limitedItemOnSale, rewardMultiplier, salePrice, variantAt, bucket } from "../../src/core/liveops-evaluate";
import { compareVersions, matches, type PlayerFacts, type Rule } from "../../src/core/liveops-rules";
import { currentOrNext, zonedInstant } from "../../src/core/liveops-schedule";

const NOW = Date.parse("2026-06-06T12:00:00Z"); // a Saturday
const facts = (over: Partial<PlayerFacts> = {}): PlayerFacts => ({ userId: "u1", app: "default", payer: false, totalPaid: 0, leaderboardBest: {}, properties: {}, ...over });
function defs(json: unknown): LiveOpsDefinitions {
  const r = checkDefinitions(json, "test");
  if ("problems" in r) throw new Error(r.problems.join("\n"));
  return r.definitions;
}

describe("LiveOps definitions", () => {
  it("reports every problem at once, each naming its entry", () => {
    const r = checkDefinitions(
      {
        timeZone: "Mars/Olympus",
        flags: [{ key: "speed", default: 1 }, { key: "speed", default: 2 }, { key: "bad key!", default: 1 }, { key: "text", default: "hi", audiences: [{ audienceId: "ghosts", value: 3 }] }],
        audiences: [{ audienceId: "old", rule: { appVersion: { lt: "one" } } }],
        experiments: [{ experimentId: "exp", variants: [{ variant: "a", weight: 0, flags: { speed: "fast", nope: 1 } }] }],
        events: [{ eventId: "sale", name: "Sale", startsAt: "2026-02-01T00:00:00Z", endsAt: "2026-01-01T00:00:00Z", prices: { ghost: { coins: 1 }, sword: { gems: 3 } }, limitedItems: ["nothing"] }],
      },
      "liveops.json",
      { catalog: exampleCatalog(), previous: defs({ flags: [{ key: "text", default: 1 }] }) },
    );
    assert.ok("problems" in r);
    const text = r.problems.join("\n");
    for (const expected of [
      "liveops.json: timeZone: unknown time zone",
      "flags[1] (speed): key is listed twice",
      "flags[2] (bad key!).key: must be 1–64",
      'flags[3] (text).audiences[0]: unknown audience "ghosts"',
      "flags[3] (text).audiences[0].value: must be a string",
      "flags[3] (text): changes type from number to string",
      "audiences[0] (old).rule",
      "experiments[0] (exp).variants: weights add up to 0",
      "experiments[0] (exp).variants[0] (a).flags.speed: must be a number",
      "experiments[0] (exp).variants[0] (a).flags.nope: unknown flag",
      "events[0] (sale): startsAt must be before endsAt",
      "events[0] (sale).prices.ghost: unknown item",
      "events[0] (sale).prices.sword.gems: the item has no gems price",
      'events[0] (sale).limitedItems: unknown item "nothing"',
    ]) {
      assert.ok(text.includes(expected), `missing: ${expected}\n${text}`);
    }
  });

  it("ships a valid example: welcome_text, example-reward 50/50 and example-sale, neither running until scheduled", () => {
    const example = exampleDefinitions();
    assert.equal(example.flags[0].key, "welcome_text");
    assert.deepEqual(example.experiments[0].variants.map((v) => v.weight), [50, 50]);
    const e = evaluate(example, facts(), {}, NOW);
    assert.deepEqual(e.active, []);
    assert.deepEqual(e.experiments, []);
    assert.equal(evaluate(example, facts(), {}, Date.parse("2099-01-01T00:00:00Z")).experiments[0].experimentId, "example-reward");
    assert.equal(e.events[0].eventId, "example-sale");
    assert.equal(e.events[0].active, false);
  });
});

describe("LiveOps audiences", () => {
  const m = (rule: Rule, f: PlayerFacts, named: Record<string, Rule> = {}) => matches(rule, f, NOW, (id) => named[id]);
  it("match on platform, days since first login, new today, payer, total paid, leaderboard, app version, properties", () => {
    assert.ok(m({ platform: ["wechat"] }, facts({ platform: "wechat" })));
    assert.ok(!m({ platform: ["wechat"] }, facts({ platform: "douyin" })));
    assert.ok(m({ daysSinceFirstLogin: { gte: 7 } }, facts({ firstLoginAt: "2026-05-30T11:00:00Z" })));
    assert.ok(!m({ daysSinceFirstLogin: { gte: 7 } }, facts({ firstLoginAt: "2026-05-31T13:00:00Z" })));
    assert.ok(m({ newToday: true }, facts({ firstLoginAt: "2026-06-06T01:00:00Z" })));
    assert.ok(m({ payer: true }, facts({ payer: true })));
    assert.ok(m({ totalPaid: { gte: 100, lt: 500 } }, facts({ totalPaid: 100 })));
    assert.ok(!m({ leaderboardBest: { leaderboardId: "weekly", gte: 10 } }, facts()));
    assert.ok(m({ leaderboardBest: { leaderboardId: "weekly", gte: 10 } }, facts({ leaderboardBest: { weekly: 12 } })));
    assert.ok(m({ appVersion: { gte: "1.2.0", lt: "2.0.0" } }, facts({ appVersion: "1.10.0" })));
    assert.ok(!m({ appVersion: { gte: "1.2.0" } }, facts({ appVersion: "1.2.0-beta.1" })));
    assert.ok(m({ property: { key: "vip", eq: true } }, facts({ properties: { vip: true } })));
    assert.ok(m({ property: { key: "level", gte: 5 } }, facts({ properties: { level: 6 } })));
  });
  it("combine with all, any, not and named audiences", () => {
    const named: Record<string, Rule> = { payers: { payer: true } };
    const rule: Rule = { all: [{ audience: "payers" }, { not: { any: [{ platform: ["qq"] }, { app: ["other"] }] } }] };
    assert.ok(m(rule, facts({ payer: true, platform: "wechat" }), named));
    assert.ok(!m(rule, facts({ payer: true, platform: "qq" }), named));
    assert.ok(!m(rule, facts({ payer: false }), named));
  });
  it("compare versions as semver", () => {
    assert.equal(compareVersions("1.10.0", "1.9.9"), 1);
    assert.equal(compareVersions("1.0.0-alpha", "1.0.0"), -1);
    assert.equal(compareVersions("1.0.0-alpha.2", "1.0.0-alpha.10"), -1);
    assert.equal(compareVersions("2.0.0", "2.0.0"), 0);
  });
});

describe("LiveOps experiments", () => {
  const ab = (weights: number[], extra: object = {}) =>
    defs({
      flags: [{ key: "reward", default: 1 }],
      experiments: [{ experimentId: "exp", variants: weights.map((weight, i) => ({ variant: `v${i}`, weight, flags: { reward: i + 10 } })), ...extra }],
    });

  it("splits 10,000 players within ±2% of each weight", () => {
    const d = ab([20, 30, 50]);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) counts[Number(evaluate(d, facts({ userId: `player-${i}` }), {}, NOW).experiments[0].variant.slice(1))]++;
    [0.2, 0.3, 0.5].forEach((w, i) => assert.ok(Math.abs(counts[i] / 10_000 - w) <= 0.02, `variant ${i}: ${counts[i]}`));
  });

  it("assigns by a hash of player and experiment (the same anywhere), and keeps a stored assignment when weights change", () => {
    const before = evaluate(ab([50, 50]), facts({ userId: "p" }), {}, NOW);
    assert.equal(before.newAssignments.length, 1);
    assert.equal(before.experiments[0].variant, variantAt(ab([50, 50]).experiments[0], bucket("experiment", "exp", "p")));
    const stored = { exp: before.experiments[0].variant };
    for (const weights of [[100, 0], [0, 100]]) {
      const after = evaluate(ab(weights), facts({ userId: "p" }), stored, NOW);
      assert.equal(after.experiments[0].variant, stored.exp);
      assert.deepEqual(after.newAssignments, []);
    }
  });

  it("runs only between start and end, for its audience", () => {
    const d = defs({ ...ab([1]), audiences: [{ audienceId: "payers", rule: { payer: true } }] });
    d.experiments[0].audienceId = "payers";
    d.experiments[0].startsAt = "2026-06-06T11:00:00Z";
    d.experiments[0].endsAt = "2026-06-06T13:00:00Z";
    assert.equal(evaluate(d, facts({ payer: true }), {}, NOW).experiments.length, 1);
    assert.equal(evaluate(d, facts({ payer: false }), {}, NOW).experiments.length, 0);
    assert.equal(evaluate(d, facts({ payer: true }), {}, Date.parse("2026-06-06T13:00:00Z")).experiments.length, 0);
    assert.equal(evaluate(d, facts({ payer: true }), {}, NOW).validUntil, Date.parse("2026-06-06T13:00:00Z"));
  });

  it("puts a player in at most one experiment of a layer, and keeps the stored one", () => {
    const d = defs({
      flags: [{ key: "f", default: 0 }],
      experiments: ["a", "b", "c"].map((id) => ({ experimentId: id, layer: "L", variants: [{ variant: "x", weight: 1, flags: {} }] })),
    });
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const e = evaluate(d, facts({ userId: `p${i}` }), {}, NOW);
      assert.equal(e.experiments.length, 1);
      seen.add(e.experiments[0].experimentId);
    }
    assert.equal(seen.size, 3);
    assert.deepEqual(evaluate(d, facts({ userId: "p0" }), { c: "x" }, NOW).experiments, [{ experimentId: "c", variant: "x" }]);
  });
});

describe("LiveOps precedence and live events", () => {
  const d = () =>
    defs({
      flags: [{ key: "text", default: "default", audiences: [{ audienceId: "payers", value: "audience" }, { audienceId: "everyone", value: "second audience" }] }],
      audiences: [{ audienceId: "payers", rule: { payer: true } }, { audienceId: "everyone", rule: { not: { app: ["none"] } } }],
      experiments: [
        { experimentId: "e1", startsAt: "2026-06-06T13:00:00Z", variants: [{ variant: "a", weight: 1, flags: { text: "experiment 1" } }] },
        { experimentId: "e2", startsAt: "2026-06-06T13:00:00Z", variants: [{ variant: "a", weight: 1, flags: { text: "experiment 2" } }] },
      ],
      events: [
        { eventId: "first", name: "First", startsAt: "2026-06-06T11:00:00Z", endsAt: "2026-06-06T14:00:00Z", flags: { text: "event first" }, prices: { sword: { coins: 20 } }, rewardMultipliers: { ads: 2 } },
        { eventId: "second", name: "Second", startsAt: "2026-06-06T10:00:00Z", endsAt: "2026-06-06T15:00:00Z", flags: { text: "event second" }, prices: { sword: { coins: 10 } }, rewardMultipliers: { ads: 3, giftPacks: 4 }, limitedItems: ["golden-skin"] },
      ],
    });
  const text = (f: PlayerFacts, at: number) => {
    const e = evaluate(d(), f, {}, at);
    return [e.flags.text, e.reasons.text];
  };

  it("experiment > live event > audience value > default; the first listed of a kind wins", () => {
    assert.deepEqual(text(facts(), Date.parse("2026-06-06T09:00:00Z")), ["second audience", "audience:everyone"]);
    assert.deepEqual(text(facts({ payer: true }), Date.parse("2026-06-06T09:00:00Z")), ["audience", "audience:payers"]);
    assert.deepEqual(text(facts(), Date.parse("2026-06-06T10:30:00Z")), ["event second", "event:second"]);
    assert.deepEqual(text(facts(), NOW), ["event first", "event:first"]);
    assert.deepEqual(text(facts(), Date.parse("2026-06-06T13:30:00Z")), ["experiment 1", "experiment:e1/a"]);
  });

  it("gives the first listed active event's sale price and multipliers; limited items only while listed", () => {
    const defsNow = d();
    const at = (iso: string) => evaluate(defsNow, facts(), {}, Date.parse(iso));
    assert.deepEqual(salePrice(at("2026-06-06T12:00:00Z"), "sword"), { prices: { coins: 20 }, eventId: "first" });
    assert.deepEqual(salePrice(at("2026-06-06T14:30:00Z"), "sword"), { prices: { coins: 10 }, eventId: "second" });
    assert.equal(salePrice(at("2026-06-06T15:00:00Z"), "sword"), undefined);
    assert.deepEqual(rewardMultiplier(at("2026-06-06T12:00:00Z"), "ads"), { factor: 2, eventId: "first" });
    assert.deepEqual(rewardMultiplier(at("2026-06-06T12:00:00Z"), "giftPacks"), { factor: 4, eventId: "second" });
    assert.deepEqual(rewardMultiplier(at("2026-06-06T16:00:00Z"), "ads"), { factor: 1 });
    assert.ok(limitedItemOnSale(defsNow, at("2026-06-06T12:00:00Z"), "golden-skin"));
    assert.ok(!limitedItemOnSale(defsNow, at("2026-06-06T16:00:00Z"), "golden-skin"));
    assert.ok(limitedItemOnSale(defsNow, at("2026-06-06T16:00:00Z"), "sword"));
  });

  it("repeats on a schedule in the configured time zone", () => {
    const weekend = { schedule: { at: "10:00", days: ["sat" as const, "sun" as const], durationMinutes: 120 } };
    // 10:00 in Shanghai is 02:00 UTC.
    assert.deepEqual(currentOrNext(weekend, "Asia/Shanghai", Date.parse("2026-06-06T03:00:00Z")), { startsAt: Date.parse("2026-06-06T02:00:00Z"), endsAt: Date.parse("2026-06-06T04:00:00Z") });
    assert.deepEqual(currentOrNext(weekend, "Asia/Shanghai", Date.parse("2026-06-06T04:00:00Z")), { startsAt: Date.parse("2026-06-07T02:00:00Z"), endsAt: Date.parse("2026-06-07T04:00:00Z") });
    assert.deepEqual(currentOrNext(weekend, "Asia/Shanghai", Date.parse("2026-06-08T04:00:00Z"))?.startsAt, Date.parse("2026-06-13T02:00:00Z"));
    // Daylight saving: 10:00 in New York is 14:00 UTC in June, 15:00 UTC in January.
    assert.equal(zonedInstant(2026, 6, 6, 10, 0, "America/New_York"), Date.parse("2026-06-06T14:00:00Z"));
    assert.equal(zonedInstant(2026, 1, 10, 10, 0, "America/New_York"), Date.parse("2026-01-10T15:00:00Z"));
    assert.equal(currentOrNext({ endsAt: "2026-01-01T00:00:00Z" }, "UTC", NOW), null);
  });
});

/**
 * The risk check before grants (risk-rank.ts) over a fake WeChat and cache: the threshold's edge,
 * refuse against flag, only the listed sources, the per-player cache, players without WeChat.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { RiskRanks, riskCheckedGranter, type RiskRankSettings } from "../../src/services/growth/risk-rank";
import { MemoryRewardGranter } from "../support/memory-reward-granter";

function setUp(settings: Partial<RiskRankSettings>, ranks: Record<string, number>) {
  const cache = new Map<string, string>();
  const asked: string[] = [];
  const logs: string[] = [];
  const logger = createLogger({ level: "info", destination: new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }) });
  const ranksOf = new RiskRanks({
    cache: { get: async (k) => cache.get(k) ?? null, set: async (k, v) => void cache.set(k, v) },
    settings: { checks: ["gift_pack"], threshold: 3, action: "refuse", cacheSec: 60, ...settings },
    openidOf: async (_app, userId) => (userId.startsWith("douyin") ? "" : `o-${userId}`),
    askWechat: async (_app, openid) => {
      asked.push(openid);
      return ranks[openid] ?? 0;
    },
    logger,
  });
  const inner = new MemoryRewardGranter();
  const granter = riskCheckedGranter(inner, ranksOf);
  const grant = (userId: string, source: "gift_pack" | "ad_reward" = "gift_pack") => granter.grant({ appId: "default", userId, source, sourceId: `s-${userId}-${source}`, currencies: { gems: 1 } });
  return { ranksOf, inner, grant, asked, logs, cache };
}

const isRisky = (err: unknown) => err instanceof AppError && err.code === "risky_player";

describe("growth: WeChat risk rank before grants", () => {
  it("refuses at and above the threshold, grants below it, nothing recorded when refused", async () => {
    const { ranksOf, inner, grant } = setUp({}, { "o-r3": 3, "o-r2": 2 });
    await ranksOf.remember("default", "r3", "203.0.113.7");
    await ranksOf.remember("default", "r2", "203.0.113.8");
    await assert.rejects(grant("r3"), isRisky);
    assert.equal((await grant("r2")).granted, true);
    assert.deepEqual(inner.applied.map((g) => g.userId), ["r2"]);
  });

  it("flag mode grants and logs; sources not listed and players without WeChat are not asked about", async () => {
    const { ranksOf, inner, grant, asked, logs } = setUp({ action: "flag" }, { "o-r4": 4 });
    await ranksOf.remember("default", "r4", "203.0.113.9");
    assert.equal((await grant("r4")).granted, true);
    assert.ok(logs.some((l) => l.includes("risk_rank_flagged")));
    assert.equal((await grant("r4", "ad_reward")).granted, true);
    assert.equal((await grant("douyin-player")).granted, true);
    assert.deepEqual(asked, ["o-r4"]);
    assert.equal(inner.applied.length, 3);
  });

  it("asks WeChat once per player while cached, with the remembered IP; an unknown IP refuses in refuse mode only", async () => {
    const refuse = setUp({}, {});
    await assert.rejects(refuse.grant("unseen"), isRisky);
    assert.deepEqual(refuse.asked, []);
    await refuse.ranksOf.remember("default", "seen", "198.51.100.1");
    await refuse.grant("seen");
    await refuse.grant("seen").catch(() => undefined);
    assert.deepEqual(await refuse.ranksOf.refresh("default", "seen", "198.51.100.1"), { checked: true });
    assert.deepEqual(refuse.asked, ["o-seen"]);
    // The cache expiring (here: emptied) asks again.
    refuse.cache.delete("growth:risk_rank:default:seen");
    await refuse.ranksOf.verdict("default", "seen");
    assert.deepEqual(refuse.asked, ["o-seen", "o-seen"]);

    const flag = setUp({ action: "flag" }, {});
    assert.equal((await flag.grant("unseen")).granted, true);
    assert.ok(flag.logs.some((l) => l.includes("risk_rank_unchecked")));
  });
});

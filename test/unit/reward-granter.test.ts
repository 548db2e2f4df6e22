/** The RewardGranter over a real (SQLite) economy store: once per source, checked input, one notice. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import type { EconomyStore } from "../../src/core/ports/economy-store";
import { EconomyRewards, type RewardNotice } from "../../src/services/economy/reward-granter";

describe("EconomyRewards (RewardGranter)", () => {
  let dir: string;
  let store: EconomyStore;
  let rewards: EconomyRewards;
  const notices: RewardNotice[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-rewards-"));
    store = await createEconomyStore({ kind: "sqlite", path: path.join(dir, "db.sqlite"), synchronous: "NORMAL" });
    rewards = new EconomyRewards(store);
    rewards.onReward((n) => notices.push(n));
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("grants once per (app, source, sourceId) and tells the listeners once", async () => {
    const grant = { appId: "game", userId: "u1", source: "operator" as const, sourceId: "comp-1", currencies: { gold: 10 }, items: [{ itemId: "gem", count: 1 }, { itemId: "gem", count: 2 }] };
    const first = await rewards.grant(grant);
    assert.deepEqual(first, { granted: true, balances: { gold: 10 }, items: [{ itemId: "gem", count: 3 }] });
    const results = await Promise.all(Array.from({ length: 20 }, () => rewards.grant(grant)));
    assert.ok(results.every((r) => !r.granted && r.balances.gold === 10));
    assert.equal(notices.filter((n) => n.sourceId === "comp-1").length, 1);
    assert.deepEqual(notices[0].balances, { gold: 10 });
    // Another source with the same id is another grant.
    assert.equal((await rewards.grant({ ...grant, source: "mail" })).balances.gold, 20);
  });

  it("refuses a grant past its cap (reward_cap_reached), the same on a replay, and counts per key", async () => {
    const cap = { key: "ad:adunit-example:2026-11-26", limit: 2 };
    const view = (n: number) => ({ appId: "game", userId: "u3", source: "ad_reward" as const, sourceId: `view-${n}`, currencies: { gems: 5 }, cap });
    assert.equal((await rewards.grant(view(1))).granted, true);
    assert.equal((await rewards.grant(view(2))).balances.gems, 10);
    for (let i = 0; i < 2; i++) await assert.rejects(rewards.grant(view(3)), (err: { code?: string }) => err.code === "reward_cap_reached");
    assert.equal((await rewards.grant(view(1))).granted, false, "an earlier view replayed is still its grant");
    assert.equal((await rewards.grant({ ...view(4), cap: { ...cap, key: "ad:adunit-example:2026-11-27" } })).balances.gems, 15);
    await assert.rejects(rewards.grant({ ...view(5), cap: { key: "", limit: 1 } }), (err: { code?: string }) => err.code === "invalid_request");
  });

  it("refuses malformed grants with nothing recorded", async () => {
    for (const bad of [
      { currencies: { gold: -5 } },
      { currencies: { gold: 1.5 } },
      { items: [{ itemId: "", count: 1 }] },
      { items: [{ itemId: "x", count: 0 }] },
      {},
      { source: "forged" },
    ]) {
      await assert.rejects(rewards.grant({ appId: "game", userId: "u2", source: "operator", sourceId: "bad", ...bad } as never), (err: { code?: string }) => err.code === "invalid_request");
    }
    assert.deepEqual(await store.entries("game", "u2"), []);
    assert.equal(await store.findBySource("game", "operator", "bad"), null);
  });
});

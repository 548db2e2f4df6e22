/**
 * A RewardGranter kept in memory for the reward sources' suites, faithful to the port's contract
 * (one grant per (appId, source, sourceId), a repeat answers the first's balances; the economy's
 * own suites prove its store keeps that contract on every backend). It counts the grants that
 * changed something, which is what the sources' tests assert on.
 */
import type { RewardGrant, RewardGrantResult, RewardGranter } from "../../src/core/ports/reward-grants";

export class MemoryRewardGranter implements RewardGranter {
  readonly applied: RewardGrant[] = [];
  calls = 0;
  private readonly results = new Map<string, RewardGrantResult>();
  private readonly balances = new Map<string, Record<string, number>>();
  private readonly items = new Map<string, Record<string, number>>();

  async grant(grant: RewardGrant): Promise<RewardGrantResult> {
    this.calls += 1;
    // An await, as a store's would be: concurrent callers interleave here.
    await new Promise((resolve) => setImmediate(resolve));
    const key = `${grant.appId}\0${grant.source}\0${grant.sourceId}`;
    const first = this.results.get(key);
    if (first) return { ...first, granted: false };
    const player = `${grant.appId}\0${grant.userId}`;
    const balances = { ...(this.balances.get(player) ?? {}) };
    for (const [c, n] of Object.entries(grant.currencies ?? {})) balances[c] = (balances[c] ?? 0) + n;
    const owned = { ...(this.items.get(player) ?? {}) };
    for (const { itemId, count } of grant.items ?? []) owned[itemId] = (owned[itemId] ?? 0) + count;
    this.balances.set(player, balances);
    this.items.set(player, owned);
    const result: RewardGrantResult = { granted: true, balances, items: (grant.items ?? []).map((i) => ({ itemId: i.itemId, count: owned[i.itemId] })) };
    this.results.set(key, result);
    this.applied.push(grant);
    return result;
  }

  grantsOf(source: string): RewardGrant[] {
    return this.applied.filter((g) => g.source === source);
  }

  balanceOf(appId: string, userId: string): Record<string, number> {
    return this.balances.get(`${appId}\0${userId}`) ?? {};
  }
}

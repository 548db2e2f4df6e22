/**
 * The RewardGranter over the economy store: every grant of value (orders, pushes, ads, gifts,
 * mail, operators, seasons, imports) becomes one ledger entry keyed by (appId, source, sourceId),
 * so a repeat changes nothing and answers the first grant's balances. The player's room
 * connections hear of each grant once, from the process that made it.
 */
import { AppError, invalidRequest, type FieldProblem } from "../../core/errors";
import type { EconomyStore, LedgerEntry } from "../../core/ports/economy-store";
import { REWARD_SOURCES, type ItemCount, type RewardGrant, type RewardGrantResult, type RewardGranter } from "../../core/ports/reward-grants";

/** What a player's room connections receive as the `reward` message. */
export interface RewardNotice {
  appId: string;
  userId: string;
  source: string;
  sourceId: string;
  currencies: Record<string, number>;
  items: ItemCount[];
  /** Balances after the grant. */
  balances: Record<string, number>;
}

export type RewardListener = (notice: RewardNotice) => void;

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export class EconomyRewards implements RewardGranter {
  private listeners: RewardListener[] = [];

  constructor(
    private readonly store: EconomyStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called once per grant that changed something (never for a replay). */
  onReward(listener: RewardListener): void {
    this.listeners.push(listener);
  }

  async grant(grant: RewardGrant): Promise<RewardGrantResult> {
    const problems = checkGrant(grant);
    if (problems.length > 0) throw invalidRequest(problems);
    const items = mergeItems(grant.items ?? []);
    const { entry, first } = await this.store.apply({
      appId: grant.appId,
      userId: grant.userId,
      source: grant.source,
      sourceId: grant.sourceId,
      currencies: grant.currencies,
      items,
      reason: grant.reason,
      liveEvent: grant.liveEvent,
      cap: grant.cap,
      at: new Date(this.now()).toISOString(),
    });
    if (entry.reason === "cap_reached") throw new AppError("reward_cap_reached", { data: { source: grant.source, sourceId: grant.sourceId, cap: grant.cap?.key } });
    // A grant adds only, so it can be refused otherwise only if the key was used for a spend before.
    if (entry.outcome !== "applied") throw new AppError("source_conflict", { data: { source: grant.source, sourceId: grant.sourceId } });
    const result = grantResult(entry);
    if (first) this.announce(entry);
    return { ...result, granted: first };
  }

  /** Tells the listeners of an entry this process recorded first (also purchases). */
  announce(entry: LedgerEntry): void {
    const notice: RewardNotice = {
      appId: entry.appId,
      userId: entry.userId,
      source: entry.source,
      sourceId: entry.sourceId,
      currencies: entry.currencies,
      items: entry.items,
      balances: entry.state.balances,
    };
    for (const listener of this.listeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure must not undo or fail a grant that is recorded.
      }
    }
  }
}

export function grantResult(entry: LedgerEntry): Omit<RewardGrantResult, "granted"> {
  return {
    balances: entry.state.balances,
    items: entry.items.map((i) => ({ itemId: i.itemId, count: entry.state.items[i.itemId] ?? 0 })),
  };
}

function mergeItems(items: ItemCount[]): ItemCount[] {
  const counts = new Map<string, number>();
  for (const { itemId, count } of items) counts.set(itemId, (counts.get(itemId) ?? 0) + count);
  return [...counts].map(([itemId, count]) => ({ itemId, count }));
}

function checkGrant(grant: RewardGrant): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!grant.appId) problems.push({ field: "appId", message: "is required" });
  if (!grant.userId) problems.push({ field: "userId", message: "is required" });
  if (!(REWARD_SOURCES as readonly string[]).includes(grant.source)) problems.push({ field: "source", message: `must be one of ${REWARD_SOURCES.join(", ")}` });
  if (typeof grant.sourceId !== "string" || grant.sourceId.length === 0 || grant.sourceId.length > 256) problems.push({ field: "sourceId", message: "must be 1 to 256 characters" });
  for (const [currency, amount] of Object.entries(grant.currencies ?? {})) {
    if (!ID.test(currency)) problems.push({ field: `currencies.${currency}`, message: "is not a valid currency id" });
    if (!Number.isSafeInteger(amount) || amount <= 0) problems.push({ field: `currencies.${currency}`, message: "must be a positive integer" });
  }
  for (const [i, item] of (grant.items ?? []).entries()) {
    if (!ID.test(item.itemId ?? "")) problems.push({ field: `items[${i}].itemId`, message: "is not a valid item id" });
    if (!Number.isSafeInteger(item.count) || item.count <= 0) problems.push({ field: `items[${i}].count`, message: "must be a positive integer" });
  }
  if (grant.cap !== undefined && (typeof grant.cap.key !== "string" || !grant.cap.key || grant.cap.key.length > 200 || !Number.isSafeInteger(grant.cap.limit) || grant.cap.limit < 1)) {
    problems.push({ field: "cap", message: "needs a key (1–200 characters) and a positive whole limit" });
  }
  if (Object.keys(grant.currencies ?? {}).length === 0 && (grant.items ?? []).length === 0) problems.push({ field: "", message: "a grant needs currencies or items" });
  return problems;
}

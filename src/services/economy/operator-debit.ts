/**
 * An operator's correction of a wallet or inventory: currencies and items taken back through the
 * ledger, as one entry keyed by the operator's debit id (source `operator_debit`), so a retry or a
 * replay takes once. Never below zero: a debit of more than the player holds is refused, nothing taken.
 */
import { AppError } from "../../core/errors";
import type { EconomyStore } from "../../core/ports/economy-store";
import type { ItemCount } from "../../core/ports/reward-grants";

export const OPERATOR_DEBIT_SOURCE = "operator_debit";

export interface OperatorDebit {
  appId: string;
  userId: string;
  /** The operator's id for this debit: the same id again is the same debit. */
  debitId: string;
  currencies: Record<string, number>;
  items: ItemCount[];
  reason: string;
}

export interface OperatorDebitResult {
  /** False when this debit id was used before: nothing was taken this time. */
  debited: boolean;
  balances: Record<string, number>;
  /** The counts after the debit of the items it touched. */
  items: ItemCount[];
}

export async function debitByOperator(store: Pick<EconomyStore, "apply" | "state" | "findBySource">, debit: OperatorDebit, now = Date.now()): Promise<OperatorDebitResult> {
  const refuse = (what: string) => new AppError("insufficient_funds", { message: `The player holds less than the debit takes: ${what}; nothing was taken` });
  // A debit id already decided answers as it was decided, whatever the player holds now.
  const earlier = await store.findBySource(debit.appId, OPERATOR_DEBIT_SOURCE, debit.debitId);
  if (!earlier) {
    // Checked before the ledger so that an obvious shortfall does not use up the id (a refused id stays refused).
    const before = await store.state(debit.appId, debit.userId);
    const short = [
      ...Object.entries(debit.currencies).filter(([id, n]) => (before.balances[id] ?? 0) < n).map(([id]) => `currency "${id}" (holds ${before.balances[id] ?? 0})`),
      ...debit.items.filter((i) => (before.items[i.itemId] ?? 0) < i.count).map((i) => `item "${i.itemId}" (holds ${before.items[i.itemId] ?? 0})`),
    ];
    if (short.length > 0) throw refuse(short.join(", "));
  }
  const { entry, first } = await store.apply({
    appId: debit.appId,
    userId: debit.userId,
    source: OPERATOR_DEBIT_SOURCE,
    sourceId: debit.debitId,
    currencies: Object.fromEntries(Object.entries(debit.currencies).map(([id, n]) => [id, -n])),
    items: debit.items.map((i) => ({ itemId: i.itemId, count: -i.count })),
    reason: debit.reason,
    at: new Date(now).toISOString(),
  });
  // The ledger's own check (a spend between the read and the debit): refused for good under this id.
  if (entry.outcome !== "applied") throw refuse(`debit id ${debit.debitId} was refused when first used; use a new id`);
  return { debited: first, balances: entry.state.balances, items: entry.items.map((i) => ({ itemId: i.itemId, count: entry.state.items[i.itemId] ?? 0 })) };
}
